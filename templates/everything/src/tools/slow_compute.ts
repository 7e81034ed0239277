import type { SlowComputeTool } from "../../generated/handlers.js";
import { sleep } from "../media.js";

/** Works for `seconds` (taskSupport "optional": a task when the client can take one); tasks/cancel stops it at once. */
export const handler: SlowComputeTool = async ({ seconds, label }, ctx) => {
  const ms = Math.max(0, Math.round(seconds * 1000));
  if (ms > 0) {
    ctx.task?.status(`computing${label ? ` ${label}` : ""} for ${seconds} s`);
    await sleep(ms, ctx.signal);
  }
  return { content: [{ type: "text", text: `Computed${label ? ` ${label}` : ""} after ${seconds} s` }] };
};
