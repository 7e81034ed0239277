import type { TestTriggerPromptChangeTool } from "../../generated/handlers.js";

/** The prompt list of this server is fixed; there is no list change to announce (see README: list-change notifications). */
export const handler: TestTriggerPromptChangeTool = () => ({
  content: [{ type: "text", text: "Prompt list change triggered" }],
});
