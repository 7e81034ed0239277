import type { TestErrorHandlingTool } from "../../generated/handlers.js";

/** A tool error is a result the model can see (isError), not a protocol error. */
export const handler: TestErrorHandlingTool = () => ({
  isError: true,
  content: [{ type: "text", text: "This tool intentionally returns an error for testing" }],
});
