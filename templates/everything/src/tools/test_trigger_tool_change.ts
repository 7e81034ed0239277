import type { TestTriggerToolChangeTool } from "../../generated/handlers.js";

/** The tool list of this server is fixed; there is no list change to announce (see README: list-change notifications). */
export const handler: TestTriggerToolChangeTool = () => ({
  content: [{ type: "text", text: "Tool list change triggered" }],
});
