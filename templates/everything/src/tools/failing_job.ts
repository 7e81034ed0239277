import type { FailingJobTool } from "../../generated/handlers.js";
import { sleep } from "../media.js";

/** A task (taskSupport "required") whose tool result is an error: the task ends completed with isError (2026-07-28), failed (2025-11-25). */
export const handler: FailingJobTool = async (_args, ctx) => {
  await sleep(1000, ctx.signal);
  return { isError: true, content: [{ type: "text", text: "The job failed: the input could not be processed" }] };
};
