/**
 * A refused request of the resource server (authorization.ts): its HTTP status and the RFC 6750 §3 error of its
 * challenge. Its own module so that the verifiers (introspection.ts) and the principal's construction (principals.ts)
 * throw it without importing the resource server.
 */

/** The bound on each fetch of the authorization server (metadata, keys, introspection), in milliseconds. */
export const FETCH_TIMEOUT_MS = 10_000;

/** A refused request: its HTTP status and the RFC 6750 §3 error of its challenge. */
export class AuthorizationError extends Error {
  constructor(
    /** 503: the token could not be verified now (the authorization server unreachable): not the token's fault, no challenge. */
    readonly status: 400 | 401 | 403 | 503,
    /** RFC 6750 §3.1 error code; undefined when the request had no credentials (§3: then no error code). */
    readonly error: "invalid_request" | "invalid_token" | "insufficient_scope" | undefined,
    message: string,
    /** The scopes the request needs (the challenge's `scope`). */
    readonly scope?: readonly string[],
  ) {
    super(message);
    this.name = "AuthorizationError";
  }
}

/** The authorization server could not be reached: the request cannot be verified now (503). */
export const unavailable = (why: string) => new AuthorizationError(503, undefined, `the access token cannot be verified now: ${why}`);
