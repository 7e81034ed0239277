import { ResourceNotFoundError } from "@create-mcp-server/runtime";
import type { GreetingResourceTemplate } from "../../generated/handlers.js";

const KNOWN = ["Ada", "Alan", "Grace", "Linus", "Margaret"];

/** app://greetings/{name}: a greeting for a non-empty name. */
export const read: GreetingResourceTemplate["read"] = (uri, { name }) => {
  const who = decodeURIComponent(name).trim();
  // Nothing to greet is "not found": the runtime answers with the revision's resource-not-found error.
  if (!who) throw new ResourceNotFoundError(uri);
  return { contents: [{ uri, mimeType: "text/plain", text: `Hello, ${who}!` }] };
};

/** Completion of the {name} variable: the runtime ranks these by the typed prefix. */
export const complete: GreetingResourceTemplate["complete"] = {
  name: () => KNOWN,
};
