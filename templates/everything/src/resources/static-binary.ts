import type { StaticBinaryResource } from "../../generated/handlers.js";
import { PNG_BASE64 } from "../media.js";

export const read: StaticBinaryResource["read"] = (uri) => ({
  contents: [{ uri, mimeType: "image/png", blob: PNG_BASE64 }],
});
