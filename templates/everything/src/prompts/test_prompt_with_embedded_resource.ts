import type { TestPromptWithEmbeddedResourcePrompt } from "../../generated/handlers.js";

export const get: TestPromptWithEmbeddedResourcePrompt["get"] = ({ resourceUri }) => ({
  messages: [
    {
      role: "user",
      content: {
        type: "resource",
        resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." },
      },
    },
    { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
  ],
});
