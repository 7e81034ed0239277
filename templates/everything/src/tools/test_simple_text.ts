import type { TestSimpleTextTool } from "../../generated/handlers.js";

export const handler: TestSimpleTextTool = () => ({
  content: [{ type: "text", text: "This is a simple text response for testing." }],
});
