import type { TestToolWithTaskTool } from "../../generated/handlers.js";
import { sleep } from "../media.js";

/**
 * MRTR before the task (2026-07-28): the ask comes before any work, so round 1 is answered input_required at once;
 * round 2 carries the answer, works, and so becomes a task that completes with the name.
 */
export const handler: TestToolWithTaskTool = async (_args, ctx) => {
  const answer = await ctx.elicit(
    {
      message: "What is your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    },
    { key: "user_name" },
  );
  const name = (answer.content as { name?: unknown } | undefined)?.name;
  await sleep(200, ctx.signal);
  return {
    content: [{ type: "text", text: `Hello, ${typeof name === "string" ? name : "stranger"}! The task is done.` }],
  };
};
