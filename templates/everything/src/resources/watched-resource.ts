import type { WatchedResourceResource } from "../../generated/handlers.js";

/** Subscribing to it (resources/subscribe, handshake era) is answered by the runtime with {}. */
export const read: WatchedResourceResource["read"] = (uri) => ({
  contents: [{ uri, mimeType: "text/plain", text: "Watched resource content" }],
});
