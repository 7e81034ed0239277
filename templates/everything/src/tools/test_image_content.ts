import type { TestImageContentTool } from "../../generated/handlers.js";
import { PNG_BASE64 } from "../media.js";

export const handler: TestImageContentTool = () => ({
  content: [{ type: "image", data: PNG_BASE64, mimeType: "image/png" }],
});
