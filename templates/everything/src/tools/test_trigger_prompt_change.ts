import type { TestTriggerPromptChangeTool } from "../../generated/handlers.js";
import { currentServer } from "../server.js";

/** Announces notifications/prompts/list_changed: to legacy sessions, and to modern subscriptions/listen streams that asked. */
export const handler: TestTriggerPromptChangeTool = () => {
  currentServer().notifyPromptsListChanged();
  return { content: [{ type: "text", text: "Prompt list change triggered" }] };
};
