/**
 * What `authorization` is: its options, and the one check of its issuer and resource, made where a configuration is
 * first seen (nodeHandler and fetchHandler at once, before their module loads; every endpoint when it is made). Only
 * types imported, so that the entry module may use it without loading the HTTP side.
 *
 * The resource is the canonical URI of the MCP server: an absolute http(s) URI without a fragment (RFC 8707 §2,
 * RFC 9728 §2). spec/2025-11-25/basic/authorization.mdx#canonical-server-uri
 */
import type { Principal } from "../../protocol/request.js";

/** What a custom verifier is told about the resource it verifies for. */
export interface VerifyContext {
  /** The canonical URI of this MCP server (RFC 8707 §2): the audience a token must name. */
  resource: string;
  /** The audiences accepted (default: `[resource]`). */
  audience: readonly string[];
  issuer: string;
}

/**
 * `authorization` of HandlerOptions/HttpOptions: the server is an OAuth 2.1 resource server of `issuer`.
 * Every request to the MCP endpoint then needs `Authorization: Bearer <token>`; without a valid token it gets 401.
 */
export interface AuthorizationOptions {
  /** The authorization server's issuer identifier (RFC 8414), e.g. `https://auth.example.com`. */
  issuer: string;
  /**
   * The canonical URI of this MCP server (spec/2025-11-25/basic/authorization.mdx#canonical-server-uri), e.g.
   * `https://mcp.example.com/mcp`: the `resource` of the Protected Resource Metadata and the audience tokens must name.
   * serveHttp on a loopback address: default its own URL. Required for handlers and for a non-loopback bind (the
   * public URL cannot be derived from a request's Host without trusting the client).
   */
  resource?: string;
  /** Audiences accepted in a token's `aud` (or an introspection response's). Default: `[resource]`. */
  audience?: string | readonly string[];
  /**
   * Check the audience. Default true (spec: tokens MUST have been issued for this server). `false` accepts a token
   * issued for any resource of the issuer: only for an authorization server that cannot set the audience; logs a warning.
   */
  audienceCheck?: boolean;
  /** The issuer's JWKS URL. Default: `jwks_uri` of its metadata (RFC 8414 `oauth-authorization-server`, then `openid-configuration`). */
  jwksUri?: string;
  /**
   * JWT `typ` header values accepted, compared without case and without an `application/` prefix (RFC 7515 §4.1.9).
   * Default `["at+jwt"]`: only an RFC 9068 access token (§2.1, §4), so an ID token or another JWT the issuer signs is
   * refused. `""` in the list accepts a token with no `typ`. A list other than the default is noted on stderr at start.
   */
  tokenTypes?: readonly string[];
  /** JWS algorithms accepted. Default: the asymmetric ones jose supports (never `none`, never HMAC). */
  algorithms?: readonly string[];
  /** `scopes_supported` of the Protected Resource Metadata. Default: `requiredScopes` plus every scope a tool, prompt or resource declares. */
  scopesSupported?: readonly string[];
  /** Scopes every request needs (a token without them: 403 insufficient_scope). Default none. */
  requiredScopes?: readonly string[];
  /** Tolerance for `exp`, `nbf` and `iat`, in seconds. Default 30. */
  clockToleranceSec?: number;
  /**
   * Opaque tokens: verify by RFC 7662 introspection instead of as JWTs. `endpoint` default: the issuer metadata's
   * `introspection_endpoint`; the resource server authenticates with client_secret_basic.
   */
  introspection?: { endpoint?: string; clientId: string; clientSecret: string };
  /**
   * A custom verifier instead of JWT or introspection: the principal of a valid token, or undefined (401
   * invalid_token). It is responsible for the issuer, audience and expiry checks.
   */
  verify?: (token: string, context: VerifyContext) => Promise<Principal | undefined> | Principal | undefined;
  /**
   * Verified tokens remembered by a hash of the token, so that a client's next request with the same token costs no
   * signature check or introspection: until the earliest of its `exp` (without the clock tolerance), `maxAgeSec`
   * (JWT, default 60) or `introspectionMaxAgeSec` (opaque tokens, default 10: a token revoked at the authorization
   * server is accepted here until then) after its verification, and the next JWKS fetch that no longer publishes its
   * signing key. Bounded: `maxEntries` (default 10,000) and `maxBytes` (default 16 MiB), least recently used out.
   * `false` (or a max age of 0): verify every request. A custom `verify` is never cached.
   */
  tokenCache?: false | { maxAgeSec?: number; introspectionMaxAgeSec?: number; maxEntries?: number; maxBytes?: number };
  /** `resource_name` of the Protected Resource Metadata. */
  resourceName?: string;
  /** `resource_documentation` of the Protected Resource Metadata. */
  resourceDocumentation?: string;
  /**
   * Also serve the authorization server's metadata at `/.well-known/oauth-authorization-server` of this server's
   * origin, where 2025-03-26 clients look for it (spec/2025-03-26/basic/authorization.mdx#server-metadata-discovery).
   * Default true.
   */
  mirrorAuthorizationServerMetadata?: boolean;
}

/** The part of AuthorizationOptions checked here. */
export interface AuthorizationIdentity {
  issuer: string;
  resource?: string;
}

const RESOURCE_EXAMPLE = "the canonical URI of this MCP server (e.g. https://mcp.example.com/mcp), the audience its tokens must name";

/** Whether `uri` may be a canonical server URI: `http(s)://` as written, parseable, with no fragment (not even an empty one). */
function isResourceUri(uri: string): boolean {
  return /^https?:\/\/[^#]+$/i.test(uri) && URL.canParse(uri);
}

/**
 * Throws TypeError unless `auth` names an issuer and a valid resource (or none, when `derivable`: serveHttp's own URL
 * stands in). `what` (e.g. "nodeHandler") prefixes the message.
 */
export function checkAuthorization(auth: AuthorizationIdentity, what?: string, derivable = false): void {
  const prefix = what ? `${what}: ` : "";
  if (!auth.issuer) throw new TypeError(`${prefix}authorization.issuer is required: the issuer identifier of the authorization server (e.g. https://auth.example.com)`);
  if (auth.resource === undefined || auth.resource === "") {
    if (derivable) return;
    throw new TypeError(`${prefix}authorization.resource is required: ${RESOURCE_EXAMPLE}`);
  }
  checkResource(auth.resource, prefix);
}

function checkResource(uri: string, prefix = ""): void {
  if (!isResourceUri(uri)) throw new TypeError(`${prefix}authorization.resource must be an absolute http(s) URL without a fragment, ${RESOURCE_EXAMPLE}; not ${JSON.stringify(uri)}`);
}

/**
 * The canonical form of a resource URI: lowercase scheme and host, no trailing slash on an empty path. Throws
 * TypeError (checkAuthorization's message) for a URI that cannot be one. spec/2025-11-25/basic/authorization.mdx#canonical-server-uri
 */
export function canonicalResource(uri: string): string {
  checkResource(uri);
  const u = new URL(uri);
  const path = u.pathname === "/" ? "" : u.pathname;
  return `${u.protocol}//${u.host}${path}${u.search}`;
}
