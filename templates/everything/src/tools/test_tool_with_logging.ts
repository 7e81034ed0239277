import type { TestToolWithLoggingTool } from "../../generated/handlers.js";
import { sleep } from "../media.js";

/** Three info logs about 50 ms apart; the runtime sends each only where the revision's logging rules allow it. */
export const handler: TestToolWithLoggingTool = async (_args, ctx) => {
  ctx.log("info", "Tool execution started");
  await sleep(50);
  ctx.log("info", "Tool processing data");
  await sleep(50);
  ctx.log("info", "Tool execution completed");
  return { content: [{ type: "text", text: "Tool with logging executed successfully" }] };
};
