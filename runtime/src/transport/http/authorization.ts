/**
 * The MCP server as an OAuth 2.1 resource server (HTTP only: a stdio server takes its credentials from the
 * environment and never runs OAuth). Every request to the MCP endpoint carries a bearer access token, verified
 * before the message is classified (token-verifier.ts: a JWT against the authorization server's JWKS, an opaque token
 * by RFC 7662 introspection, or a custom verifier). Here: the metadata documents, the challenges, and the request's
 * principal from its Authorization header. The principal goes into the request's scope; what state is kept is bound
 * to it (legacy sessions, requestState in protocol/input-rounds.ts).
 *
 * spec/2025-03-26/basic/authorization.mdx#access-token-usage (authorization-server metadata at the server's base URL)
 * spec/2025-06-18/basic/authorization.mdx#authorization-server-location (Protected Resource Metadata, RFC 9728)
 * spec/2025-11-25/basic/authorization.mdx#token-handling, spec/2026-07-28/basic/authorization/index.mdx#token-handling
 * spec/2026-07-28/basic/authorization/security-considerations.mdx#access-token-privilege-restriction
 */
import type { Principal } from "../../protocol/request.js";
import { type AuthorizationOptions, canonicalResource } from "./authorization-config.js";
import { one } from "./body.js";
import { AuthorizationError, FETCH_TIMEOUT_MS } from "./authorization-error.js";
import { missingScopes } from "./principals.js";
import type { HeaderBag, Reply } from "./io.js";
import { BEARER, TokenVerifier } from "./token-verifier.js";

export { AuthorizationError } from "./authorization-error.js";
export { principalOf } from "./principals.js";

const PRM = "/.well-known/oauth-protected-resource";
const ASM = "/.well-known/oauth-authorization-server";

/**
 * A challenge's quoted value. RFC 6750 §3 allows only %x20-21 / %x23-5B / %x5D-7E in error_description (and the
 * scope), so a quoted-pair escape (`\"`) is not an option: `"` becomes `'`, `\` becomes `/`, anything else outside
 * printable ASCII `?`. A URL (resource_metadata) is percent-encoded instead, to stay the same URL.
 */
const quoted = (v: string) =>
  `"${v
    .replace(/"/g, "'")
    .replace(/\\/g, "/")
    .replace(/[^\x20-\x7e]/g, "?")}"`;
const quotedUri = (v: string) => `"${v.replace(/["\\]|[^\x20-\x7e]/gu, (c) => encodeURIComponent(c))}"`;
/** RFC 6750 §3 scope-token: %x21 / %x23-5B / %x5D-7E; a scope that is not one is left out of the challenge. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * RFC 8414 §3.1 and OpenID Connect Discovery: the metadata URLs of `issuer`, in the order MCP clients try them
 * (spec/2026-07-28/basic/authorization/authorization-server-discovery.mdx#authorization-server-metadata-discovery).
 */
export function issuerMetadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/$/, "");
  if (!path) return [`${u.origin}${ASM}`, `${u.origin}/.well-known/openid-configuration`];
  return [`${u.origin}${ASM}${path}`, `${u.origin}/.well-known/openid-configuration${path}`, `${u.origin}${path}/.well-known/openid-configuration`];
}

/**
 * One MCP endpoint's resource server: its metadata documents, its challenges, and a request's principal from its
 * Authorization header (the token itself is decided by TokenVerifier).
 */
export class ResourceServer {
  readonly resource: string;
  readonly audience: readonly string[];
  readonly issuer: string;
  /** URL of the Protected Resource Metadata (the path-suffixed form, RFC 9728 §3.1). */
  readonly metadataUrl: string;
  private readonly metadataPaths: Set<string>;
  private issuerMetadata?: Promise<Record<string, unknown>>;
  /** Where the issuer's metadata was read (once it was). */
  issuerMetadataUrl?: string;
  /** How a token is decided: the custom `verify`, introspection or the JWKS, and what is cached of it. */
  private readonly tokens: TokenVerifier;

  /**
   * @param resource the canonical URI (options.resource, or serveHttp's own URL).
   * @param declaredScopes every scope a tool, prompt or resource declares (for `scopes_supported`).
   * Throws TypeError for a resource that cannot be a canonical URI (the rest was checked by checkAuthorization).
   */
  constructor(
    readonly options: AuthorizationOptions,
    resource: string,
    private readonly declaredScopes: () => readonly string[] = () => [],
  ) {
    this.issuer = options.issuer;
    this.resource = canonicalResource(resource);
    const aud = options.audience === undefined ? [this.resource] : typeof options.audience === "string" ? [options.audience] : [...options.audience];
    this.audience = aud;
    this.tokens = new TokenVerifier(options, this.resource, aud, () => this.authorizationServerMetadata());
    const u = new URL(this.resource);
    const suffix = u.pathname === "/" ? "" : u.pathname;
    this.metadataUrl = `${u.origin}${PRM}${suffix}`;
    this.metadataPaths = new Set([PRM, `${PRM}${suffix}`]);
  }

  /** The Protected Resource Metadata document (RFC 9728 §2). */
  metadata(): Record<string, unknown> {
    const o = this.options;
    const scopes = o.scopesSupported ?? [...new Set([...(o.requiredScopes ?? []), ...this.declaredScopes()])];
    const doc: Record<string, unknown> = { resource: this.resource, authorization_servers: [this.issuer], bearer_methods_supported: ["header"] };
    if (scopes.length) doc.scopes_supported = scopes;
    if (o.resourceName) doc.resource_name = o.resourceName;
    if (o.resourceDocumentation) doc.resource_documentation = o.resourceDocumentation;
    return doc;
  }

  /**
   * Answer a GET of a metadata document at `pathname`, or return false when the path is not one. Served to any
   * origin (CORS `*`): the documents are public, and browser clients must read them before they have a token.
   */
  serveMetadata(method: string, pathname: string, res: Reply): boolean | Promise<void> {
    const prm = this.metadataPaths.has(pathname);
    const asm = pathname === ASM && this.options.mirrorAuthorizationServerMetadata !== false;
    if (!prm && !asm) return false;
    res.setHeader("access-control-allow-origin", "*");
    if (method === "OPTIONS") {
      res.setHeader("access-control-allow-methods", "GET");
      res.setHeader("access-control-allow-headers", "mcp-protocol-version");
      res.writeHead(204).end();
      return true;
    }
    if (method !== "GET" && method !== "HEAD") {
      res.setHeader("allow", "GET");
      res.writeHead(405).end();
      return true;
    }
    const send = (status: number, doc: unknown) => {
      if (res.destroyed) return;
      res.statusCode = status;
      res.setHeader("content-type", "application/json");
      res.setHeader("cache-control", "max-age=300");
      res.end(method === "HEAD" ? "" : JSON.stringify(doc));
    };
    if (prm) {
      send(200, this.metadata());
      return true;
    }
    return this.authorizationServerMetadata().then(
      (doc) => send(200, doc),
      (err) => send(502, { error: "temporarily_unavailable", error_description: `the authorization server's metadata could not be read: ${(err as Error).message}` }),
    );
  }

  /** The issuer's metadata (RFC 8414, else OpenID Connect Discovery), fetched once; a failed fetch is retried next time. */
  authorizationServerMetadata(): Promise<Record<string, unknown>> {
    this.issuerMetadata ??= (async () => {
      const failures: string[] = [];
      for (const url of issuerMetadataUrls(this.issuer)) {
        try {
          const r = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
          if (!r.ok) {
            failures.push(`${url}: HTTP ${r.status}`);
            continue;
          }
          const doc = (await r.json()) as Record<string, unknown>;
          // The issuer in the document MUST be identical to the one the URL was built from (RFC 8414 §3.3).
          if (doc?.issuer !== this.issuer) throw new Error(`${url} names issuer ${JSON.stringify(doc?.issuer)}, not ${this.issuer}`);
          this.issuerMetadataUrl = url;
          return doc;
        } catch (err) {
          if ((err as Error).message.includes("names issuer")) throw err;
          failures.push(`${url}: ${fetchFailure(err)}`);
        }
      }
      throw new Error(`no metadata for issuer ${this.issuer} (${failures.join("; ")})`);
    })();
    this.issuerMetadata.catch(() => (this.issuerMetadata = undefined));
    return this.issuerMetadata;
  }

  /** `WWW-Authenticate` of a refusal (RFC 6750 §3, RFC 9728 §5.1). */
  challenge(err: AuthorizationError): string {
    const params = [`resource_metadata=${quotedUri(this.metadataUrl)}`];
    if (err.error) params.push(`error=${quoted(err.error)}`, `error_description=${quoted(err.message)}`);
    const scope = (err.scope ?? (err.status === 401 ? this.options.requiredScopes : undefined))?.filter((s) => SCOPE_TOKEN.test(s));
    if (scope?.length) params.push(`scope=${quoted(scope.join(" "))}`);
    return `Bearer ${params.join(", ")}`;
  }

  /**
   * The verified principal of a request, from its Authorization header. Throws (rejects) AuthorizationError: 401
   * without a token or with an invalid one, 400 for a malformed request, 403 without `requiredScopes`.
   */
  async authenticate(headers: HeaderBag): Promise<Principal> {
    const raw = headers.authorization;
    // Credentials in more than one place (or header) is a malformed request. RFC 6750 §2, §3.1 invalid_request
    if (Array.isArray(raw) && raw.length > 1) throw new AuthorizationError(400, "invalid_request", "more than one Authorization header");
    const header = one(raw);
    // A platform that joins repeated fields (fetch's Headers) makes them one list; a b64token has no comma.
    if (header?.includes(",")) throw new AuthorizationError(400, "invalid_request", "more than one Authorization header");
    if (header === undefined || header === "") throw new AuthorizationError(401, undefined, "this server needs an OAuth access token (Authorization: Bearer <token>)");
    const m = BEARER.exec(header);
    if (!m) {
      // Another scheme: no credentials this server understands (no error code); a Bearer without a b64token: malformed.
      if (/^Bearer\b/i.test(header)) throw new AuthorizationError(400, "invalid_request", "malformed Bearer credentials");
      throw new AuthorizationError(401, undefined, "this server accepts only Bearer access tokens");
    }
    const principal = await this.tokens.principal(m[1]);
    const missing = missingScopes(principal, this.options.requiredScopes);
    if (missing.length) throw new AuthorizationError(403, "insufficient_scope", `the token lacks the scope ${missing.join(" ")}`, this.options.requiredScopes);
    return principal;
  }

  /**
   * The principal of a request whose Bearer token the token cache holds with every `requiredScopes`, at once (no
   * promise: the common case of a client sending the same token on each request); undefined when `authenticate` must
   * decide (a token to verify, a malformed header, a missing scope, a custom `verify`).
   */
  cachedPrincipal(headers: HeaderBag, connection?: object): Principal | undefined {
    const header = headers.authorization;
    return typeof header === "string" ? this.tokens.cachedPrincipal(header, connection) : undefined;
  }
}

/**
 * Whether the issuer can serve this server, asked once at start (serveHttp, nodeHandler; not fetchHandler, whose
 * hosts may forbid I/O outside a request): its metadata is read (and kept for the requests), must name this issuer
 * and, when the runtime verifies tokens with it, a `jwks_uri` (or an `introspection_endpoint`). Resolves to
 * undefined, or one line naming the issuer and the URL that failed; never rejects. A custom `verify` is not asked.
 * An issuer that cannot be used is not fatal: requests that need it are answered 503 until it can.
 */
export async function checkIssuer(rs: ResourceServer): Promise<string | undefined> {
  const o = rs.options;
  if (o.verify) return undefined;
  // What verification itself needs of the metadata (a configured jwksUri or introspection endpoint needs none).
  const needed = o.introspection ? (o.introspection.endpoint ? undefined : "introspection_endpoint") : o.jwksUri ? undefined : "jwks_uri";
  const then = needed ? "requests with a token are answered 503 until it can be used" : "clients that look it up cannot get tokens";
  const why = await rs.authorizationServerMetadata().then(
    (doc) => (needed && typeof doc[needed] !== "string" ? `its metadata (${rs.issuerMetadataUrl}) has no ${needed}` : undefined),
    (err: Error) => err.message,
  );
  return why && `the authorization server ${rs.issuer} cannot be used: ${why}; ${then} (checked once at start)`;
}

/** Why a fetch failed, in its own words: fetch says only "fetch failed", its cause what (e.g. connect ECONNREFUSED 127.0.0.1:9). */
function fetchFailure(err: unknown): string {
  const e = err as Error & { cause?: { message?: string } };
  return e?.cause?.message ?? e?.message ?? String(err);
}
