/** Errors a handler may throw (or meet) that the runtime answers by the revision's rules. */

/** Thrown by `ctx.elicit/sample/listRoots` when the client did not declare the capability the request needs. */
export class MissingCapabilityError extends Error {
  constructor(
    readonly requiredCapabilities: Record<string, unknown>,
    message = `the client did not declare the ${Object.keys(requiredCapabilities).join(", ")} capability`,
  ) {
    super(message);
    this.name = "MissingCapabilityError";
  }
}

/** At most 200 characters of `text` (a URI a caller sent) for an error message, so a 512 KiB URI is not sent back. */
export function quoted(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** Throw from a resource handler for an unknown URI: answered with the revision's resource-not-found code and `data.uri`. */
export class ResourceNotFoundError extends Error {
  constructor(readonly uri: string) {
    super(`Resource not found: ${quoted(uri)}`);
    this.name = "ResourceNotFoundError";
  }
}
