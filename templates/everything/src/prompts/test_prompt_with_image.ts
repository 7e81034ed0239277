import type { TestPromptWithImagePrompt } from "../../generated/handlers.js";
import { PNG_BASE64 } from "../media.js";

export const get: TestPromptWithImagePrompt["get"] = () => ({
  messages: [
    { role: "user", content: { type: "image", data: PNG_BASE64, mimeType: "image/png" } },
    { role: "user", content: { type: "text", text: "Please analyze the image above." } },
  ],
});
