import type { TestSimplePromptPrompt } from "../../generated/handlers.js";

export const get: TestSimplePromptPrompt["get"] = () => ({
  messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }],
});
