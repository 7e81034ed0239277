/**
 * Opaque access tokens verified by RFC 7662 introspection: the authorization server is asked whether the token is
 * active, then what it says is checked as for a JWT (active, issuer, expiry, audience). The endpoint is the configured
 * one or the issuer metadata's `introspection_endpoint`; the resource server authenticates with client_secret_basic.
 * spec/2025-11-25/basic/authorization.mdx#token-handling
 */
import type { Principal } from "../../protocol/request.js";
import type { AuthorizationOptions } from "./authorization-config.js";
import { AuthorizationError, FETCH_TIMEOUT_MS, unavailable } from "./authorization-error.js";
import { principalOf } from "./principals.js";

export class Introspection {
  private introspectionEndpoint?: Promise<string>;

  constructor(
    private readonly cfg: NonNullable<AuthorizationOptions["introspection"]>,
    private readonly issuer: string,
    /** The issuer's metadata (the resource server's, fetched once). */
    private readonly metadata: () => Promise<Record<string, unknown>>,
  ) {}

  /** RFC 7662: ask the authorization server whether the token is active, then check what it says as for a JWT. */
  async principal(token: string, tolerance: number, audience: readonly string[] | undefined): Promise<Principal> {
    const cfg = this.cfg;
    this.introspectionEndpoint ??= cfg.endpoint
      ? Promise.resolve(cfg.endpoint)
      : this.metadata().then((doc) => {
          if (typeof doc.introspection_endpoint !== "string") throw new Error(`issuer ${this.issuer} publishes no introspection_endpoint`);
          return doc.introspection_endpoint;
        });
    let endpoint: string;
    try {
      endpoint = await this.introspectionEndpoint;
    } catch (err) {
      this.introspectionEndpoint = undefined;
      throw unavailable((err as Error).message);
    }
    let claims: Record<string, unknown>;
    let refused: string | undefined;
    try {
      const basic = btoa(`${encodeURIComponent(cfg.clientId)}:${encodeURIComponent(cfg.clientSecret)}`);
      const r = await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", authorization: `Basic ${basic}` },
        body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
      const body = (await r.json().catch(() => undefined)) as Record<string, unknown> | undefined;
      // A 400 with an OAuth error is about the token (e.g. unsupported_token_type for a JWT); anything else is ours.
      if (r.status === 400 && typeof body?.error === "string") refused = body.error;
      else if (!r.ok || !body) throw new Error(`introspection answered HTTP ${r.status}`);
      claims = body ?? {};
    } catch (err) {
      throw unavailable((err as Error).message);
    }
    if (refused) throw new AuthorizationError(401, "invalid_token", `the authorization server refused to introspect the token (${refused})`);
    checkIntrospected(claims, this.issuer, tolerance, audience);
    return principalOf(claims);
  }
}

/** What an introspection response says of the token, checked as for a JWT: active, issuer, expiry, audience (unless `audience` is undefined). */
function checkIntrospected(claims: Record<string, unknown>, issuer: string, tolerance: number, audience: readonly string[] | undefined): void {
  if (claims?.active !== true) throw new AuthorizationError(401, "invalid_token", "the token is not active");
  if (claims.iss !== undefined && claims.iss !== issuer) throw new AuthorizationError(401, "invalid_token", "the token is from another issuer");
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp === "number" && claims.exp + tolerance < now) throw new AuthorizationError(401, "invalid_token", "the token has expired");
  if (typeof claims.nbf === "number" && claims.nbf - tolerance > now) throw new AuthorizationError(401, "invalid_token", "the token is not valid yet");
  if (audience) {
    const aud = typeof claims.aud === "string" ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
    if (!aud.some((a) => audience.includes(a as string))) throw new AuthorizationError(401, "invalid_token", "the token was not issued for this server (audience)");
  }
}
