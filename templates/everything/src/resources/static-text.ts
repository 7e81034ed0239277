import type { StaticTextResource } from "../../generated/handlers.js";

export const read: StaticTextResource["read"] = (uri) => ({
  contents: [{ uri, mimeType: "text/plain", text: "This is the content of the static text resource." }],
});
