import type { TestMultipleContentTypesTool } from "../../generated/handlers.js";
import { PNG_BASE64 } from "../media.js";

export const handler: TestMultipleContentTypesTool = () => ({
  content: [
    { type: "text", text: "Multiple content types test:" },
    { type: "image", data: PNG_BASE64, mimeType: "image/png" },
    {
      type: "resource",
      resource: {
        uri: "test://mixed-content-resource",
        mimeType: "application/json",
        text: JSON.stringify({ test: "data", value: 123 }),
      },
    },
  ],
});
