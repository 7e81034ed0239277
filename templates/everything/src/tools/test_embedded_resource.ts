import type { TestEmbeddedResourceTool } from "../../generated/handlers.js";

export const handler: TestEmbeddedResourceTool = () => ({
  content: [
    {
      type: "resource",
      resource: {
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "This is an embedded resource content.",
      },
    },
  ],
});
