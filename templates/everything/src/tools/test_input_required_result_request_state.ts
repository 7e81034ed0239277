import type { TestInputRequiredResultRequestStateTool } from "../../generated/handlers.js";

/** The runtime keeps the earlier answers in the integrity-protected requestState between rounds. */
export const handler: TestInputRequiredResultRequestStateTool = async (_args, ctx) => {
  const answer = await ctx.elicit(
    { message: "Confirm to continue", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } },
    { key: "confirm" },
  );
  const ok = (answer.content as { ok?: unknown } | undefined)?.ok === true;
  return { content: [{ type: "text", text: ok ? "state-ok: confirmed" : "state-ok: not confirmed" }] };
};
