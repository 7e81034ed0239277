import type { TestLoggingToolTool } from "../../generated/handlers.js";

/** Logs at info: in 2026-07-28 the runtime sends it only when the request's _meta sets io.modelcontextprotocol/logLevel. */
export const handler: TestLoggingToolTool = (_args, ctx) => {
  ctx.log("info", "test_logging_tool ran");
  return { content: [{ type: "text", text: "Logged at info" }] };
};
