import type { TestTriggerToolChangeTool } from "../../generated/handlers.js";
import { currentServer } from "../server.js";

/** Announces notifications/tools/list_changed: to legacy sessions, and to modern subscriptions/listen streams that asked. */
export const handler: TestTriggerToolChangeTool = () => {
  currentServer().notifyToolsListChanged();
  return { content: [{ type: "text", text: "Tool list change triggered" }] };
};
