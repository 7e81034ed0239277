import type { ConfirmDeleteTool } from "../../generated/handlers.js";
import { sleep } from "../media.js";

/**
 * A task that asks the user to confirm (elicitation/create) after it has started: 2026-07-28, an input request of the
 * task answered by tasks/update; 2025-11-25, a request to the client with the related-task _meta.
 */
export const handler: ConfirmDeleteTool = async ({ filename }, ctx) => {
  // Started first (so the ask is the task's, and a 2025-11-25 client has time to wait on tasks/result), then ask.
  await sleep(300, ctx.signal);
  const answer = await ctx.elicit(
    {
      message: `Delete ${filename}?`,
      requestedSchema: {
        type: "object",
        properties: { confirm: { type: "boolean", description: "Delete the file" } },
        required: ["confirm"],
      },
    },
    { key: "confirm_delete" },
  );
  const confirmed =
    answer.action === "accept" && (answer.content as { confirm?: unknown } | undefined)?.confirm === true;
  return { content: [{ type: "text", text: confirmed ? `Deleted ${filename}` : `Kept ${filename}` }] };
};
