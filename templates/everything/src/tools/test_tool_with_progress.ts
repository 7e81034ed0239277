import type { TestToolWithProgressTool } from "../../generated/handlers.js";
import { sleep } from "../media.js";

/** Progress 0, 50, 100 of 100; the runtime sends it only when the request carried a progressToken. */
export const handler: TestToolWithProgressTool = async (_args, ctx) => {
  for (const progress of [0, 50, 100]) {
    ctx.progress(progress, 100, `Completed step ${progress} of 100`);
    if (progress < 100) await sleep(50);
  }
  return { content: [{ type: "text", text: "Progress reported: 0, 50, 100 of 100" }] };
};
