/**
 * The MCP server as an OAuth 2.1 resource server (HTTP only: a stdio server takes its credentials from the
 * environment and never runs OAuth). Every request to the MCP endpoint carries a bearer access token, verified here
 * before the message is classified: a JWT against the authorization server's JWKS (jose), an opaque token by RFC 7662
 * introspection, or a custom verifier. The verified principal goes into the request's scope; what state is kept is
 * bound to it (legacy sessions here, requestState in protocol/input-rounds.ts).
 *
 * spec/2025-03-26/basic/authorization.mdx#access-token-usage (authorization-server metadata at the server's base URL)
 * spec/2025-06-18/basic/authorization.mdx#authorization-server-location (Protected Resource Metadata, RFC 9728)
 * spec/2025-11-25/basic/authorization.mdx#token-handling, spec/2026-07-28/basic/authorization/index.mdx#token-handling
 * spec/2026-07-28/basic/authorization/security-considerations.mdx#access-token-privilege-restriction
 */
import type { Principal } from "../../protocol/request.js";
import { type AuthorizationOptions, canonicalResource } from "./authorization-config.js";
import { one } from "./body.js";
import { AuthorizationError, FETCH_TIMEOUT_MS, unavailable } from "./authorization-error.js";
import { Introspection } from "./introspection.js";
import { missingScopes, principalOf } from "./principals.js";
import type { HeaderBag, Reply } from "./io.js";
import { TokenCache, type Entry as CachedToken, type TokenCacheLimits } from "./token-cache.js";

export { AuthorizationError } from "./authorization-error.js";
export { principalOf } from "./principals.js";

const PRM = "/.well-known/oauth-protected-resource";
const ASM = "/.well-known/oauth-authorization-server";
/** Asymmetric JWS algorithms (RFC 7518): an access token signed with a shared secret or unsigned is never accepted. */
const ASYMMETRIC = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];
/** A copy of `p` with the raw token as a non-enumerable `token` (Principal.token): JSON.stringify and spreads leave it out. */
function withToken(p: Principal, token: string): Principal {
  return Object.freeze(Object.defineProperty({ ...p }, "token", { value: token, enumerable: false }));
}

/** RFC 6750 §2.1: `Bearer` then a b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
/** RFC 9068 §2.1: the `typ` of a JWT access token. */
const ACCESS_TOKEN_TYPES = ["at+jwt"];
/** A media type as RFC 7515 §4.1.9 compares it: no case, no `application/` prefix. */
const mediaType = (t: string) => t.toLowerCase().replace(/^application\//, "");

type Jose = typeof import("jose");
/** jose, loaded on first verification: a server without authorization never loads it. */
let joseModule: Promise<Jose> | undefined;
const jose = () => (joseModule ??= import("jose"));

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
 * The principal of a Bearer header whose token the cache holds with every required scope, at once. Per connection
 * (node:http: its socket) the header it last sent is remembered with its entry and principal: a keep-alive client
 * sends the same header on every request, and what it was stands while its entry does (not evicted, rotated out or
 * expired), without hashing the token again.
 */
class CachedPrincipals {
  private readonly last = new WeakMap<object, { header: string; entry: CachedToken; principal: Principal }>();

  constructor(
    private readonly tokens: TokenCache,
    private readonly requiredScopes: readonly string[] | undefined,
  ) {}

  of(header: string, connection: object | undefined): Principal | undefined {
    const last = connection && this.last.get(connection);
    if (last && last.header === header && this.tokens.stands(last.entry)) return last.principal;
    const m = BEARER.exec(header);
    const entry = m ? this.tokens.entry(m[1]) : undefined;
    if (!entry || missingScopes(entry.principal, this.requiredScopes).length > 0) return undefined;
    const principal = withToken(entry.principal, m![1]);
    if (connection) this.last.set(connection, { header, entry, principal });
    return principal;
  }
}

/**
 * One MCP endpoint's resource server: its metadata documents, its challenges and its token verification.
 */
export class ResourceServer {
  readonly resource: string;
  readonly audience: readonly string[];
  readonly issuer: string;
  /** URL of the Protected Resource Metadata (the path-suffixed form, RFC 9728 §3.1). */
  readonly metadataUrl: string;
  private readonly metadataPaths: Set<string>;
  private readonly tolerance: number;
  /** Accepted `typ` values, as mediaType() writes them. */
  private readonly tokenTypes: ReadonlySet<string>;
  private issuerMetadata?: Promise<Record<string, unknown>>;
  /** Where the issuer's metadata was read (once it was). */
  issuerMetadataUrl?: string;
  private jwks?: Promise<ReturnType<Jose["createRemoteJWKSet"]>>;
  /** What jose last fetched of the JWKS (its `jwksCache` slot, written on each fetch), to see a key set change. */
  private readonly jwksFetched: { jwks?: { keys?: Array<{ kid?: unknown }> }; uat?: number } = {};
  private seenKeySet?: object;
  /** RFC 7662 introspection, when `options.introspection`. */
  private readonly introspection?: Introspection;
  /** Verified tokens' principals (JWT and introspection; not a custom `verify`, whose lifetime rules are its own). */
  private readonly tokens: TokenCache;
  private readonly cached: CachedPrincipals;

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
    this.tolerance = options.clockToleranceSec ?? 30;
    if (options.audienceCheck === false) warnNoAudienceCheck(this.issuer);
    this.tokenTypes = acceptedTokenTypes(options.tokenTypes);
    this.tokens = new TokenCache(tokenCacheLimits(options));
    this.cached = new CachedPrincipals(this.tokens, options.requiredScopes);
    if (options.introspection) this.introspection = new Introspection(options.introspection, this.issuer, () => this.authorizationServerMetadata());
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
    const principal = withToken(await this.verify(m[1]), m[1]);
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
    return typeof header === "string" && !this.options.verify ? this.cached.of(header, connection) : undefined;
  }

  private async verify(token: string): Promise<Principal> {
    const o = this.options;
    if (o.verify) {
      let p: Principal | undefined;
      try {
        p = await o.verify(token, { resource: this.resource, audience: this.audience, issuer: this.issuer });
      } catch (err) {
        if (err instanceof AuthorizationError) throw err;
        throw new AuthorizationError(401, "invalid_token", `the token was refused: ${(err as Error)?.message ?? err}`);
      }
      if (!p || typeof p.subject !== "string" || !Array.isArray(p.scopes)) throw new AuthorizationError(401, "invalid_token", "the token was refused");
      return p;
    }
    const cached = this.tokens.get(token);
    if (cached) return cached;
    if (o.introspection) {
      const p = await this.introspection!.principal(token, this.tolerance, o.audienceCheck === false ? undefined : this.audience);
      this.tokens.set(token, p, numeric(p.claims?.exp));
      return p;
    }
    const { principal, kid } = await this.verifyJwt(token);
    this.tokens.set(token, principal, numeric(principal.claims?.exp), kid);
    return principal;
  }

  /** After a JWKS fetch (jose writes jwksFetched): forget tokens whose key the issuer no longer publishes. */
  private noticeKeySet(): void {
    const set = this.jwksFetched.jwks;
    if (!set || set === this.seenKeySet) return;
    this.seenKeySet = set;
    this.tokens.retainKeys(new Set((set.keys ?? []).map((k) => k.kid).filter((k): k is string => typeof k === "string")));
  }

  /** A JWT access token (RFC 9068): signature by the issuer's JWKS, iss, aud, exp and nbf, and its `typ` (§4). */
  private async verifyJwt(token: string): Promise<{ principal: Principal; kid?: string }> {
    const { jwtVerify, createRemoteJWKSet, errors, jwksCache } = await jose();
    // createRemoteJWKSet caches the keys and refetches (with a cooldown) when a token names a key it does not have:
    // a key rotation costs one fetch, a verification with known keys none. One set, however many requests come first.
    this.jwks ??= (async () =>
      createRemoteJWKSet(new URL(this.options.jwksUri ?? (await this.discoveredJwksUri())), {
        timeoutDuration: FETCH_TIMEOUT_MS,
        [jwksCache]: this.jwksFetched,
      }))();
    this.jwks.catch(() => (this.jwks = undefined));
    const jwks = await this.jwks;
    try {
      const { payload, protectedHeader } = await jwtVerify(token, jwks, {
        issuer: this.issuer,
        audience: this.options.audienceCheck === false ? undefined : [...this.audience],
        algorithms: [...(this.options.algorithms ?? ASYMMETRIC)],
        clockTolerance: this.tolerance,
        requiredClaims: ["exp"],
      });
      const typ = typeof protectedHeader.typ === "string" ? mediaType(protectedHeader.typ) : "";
      if (!this.tokenTypes.has(typ))
        throw new AuthorizationError(
          401,
          "invalid_token",
          `the token is not an access token this server accepts (typ ${JSON.stringify(protectedHeader.typ ?? "")}; RFC 9068 access tokens are "at+jwt")`,
        );
      return { principal: principalOf(payload), kid: typeof protectedHeader.kid === "string" ? protectedHeader.kid : undefined };
    } catch (err) {
      if (err instanceof AuthorizationError) throw err;
      // Keys that cannot be fetched are the server's problem, not the token's: 503, so that a client does not throw
      // away a good token.
      // jose reports a JWKS answered with a non-200 status or a body that is not a key set as generic or JWKSInvalid errors.
      const keysUnavailable = err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || !(err instanceof errors.JOSEError) || err.code === "ERR_JOSE_GENERIC";
      if (keysUnavailable) throw unavailable(`the issuer's keys could not be fetched (${(err as Error)?.message ?? err})`);
      throw new AuthorizationError(401, "invalid_token", `the token is not valid: ${describeJoseError(err)}`);
    } finally {
      this.noticeKeySet();
    }
  }

  private async discoveredJwksUri(): Promise<string> {
    const doc = await this.authorizationServerMetadata().catch((err: Error) => {
      throw unavailable(err.message);
    });
    if (typeof doc.jwks_uri !== "string") throw unavailable(`issuer ${this.issuer} publishes no jwks_uri`);
    return doc.jwks_uri;
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

/** The `typ` values accepted (mediaType form); a list other than RFC 9068's is noted at start. */
function acceptedTokenTypes(configured: readonly string[] | undefined): ReadonlySet<string> {
  const types = new Set((configured ?? ACCESS_TOKEN_TYPES).map(mediaType));
  if (configured && (types.size !== 1 || !types.has("at+jwt"))) {
    console.warn(
      `mcp runtime: note: authorization.tokenTypes accepts JWTs of typ ${[...types].map((t) => JSON.stringify(t)).join(", ")} as access tokens; ` +
        `RFC 9068 access tokens are "at+jwt", and another type (e.g. an ID token) is not meant for this server.`,
    );
  }
  return types;
}

function warnNoAudienceCheck(issuer: string): void {
  console.warn(
    `mcp runtime: WARNING: authorization.audienceCheck is false: tokens issued by ${issuer} for any resource are accepted here, ` +
      `so a token meant for another server can be replayed against this one (spec/2025-11-25/basic/authorization.mdx#token-audience-binding-and-validation).`,
  );
}

/** Why a fetch failed, in its own words: fetch says only "fetch failed", its cause what (e.g. connect ECONNREFUSED 127.0.0.1:9). */
function fetchFailure(err: unknown): string {
  const e = err as Error & { cause?: { message?: string } };
  return e?.cause?.message ?? e?.message ?? String(err);
}

/** A jose failure in words a client can act on (never the token itself). */
function describeJoseError(err: { code?: string; message: string; claim?: string }): string {
  switch (err.code) {
    case "ERR_JWT_EXPIRED":
      return "it has expired";
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      return err.claim === "aud" ? "it was not issued for this server (audience)" : err.claim === "iss" ? "it is from another issuer" : `claim ${err.claim}: ${err.message}`;
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return "its signature does not verify";
    case "ERR_JWKS_NO_MATCHING_KEY":
      return "it is signed by a key the issuer does not publish";
    case "ERR_JWS_INVALID":
    case "ERR_JWT_INVALID":
      return "it is not a well-formed JWT";
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return "its signature algorithm is not accepted";
    default:
      return err.message;
  }
}

/** A claim that is a number (`exp`), else undefined. */
const numeric = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** The token cache's limits from `authorization.tokenCache` (defaults: 60 s for JWTs, 10 s for introspection, 10,000 entries, 16 MiB). */
function tokenCacheLimits(o: AuthorizationOptions): TokenCacheLimits {
  const c = o.tokenCache === false ? { maxAgeSec: 0, introspectionMaxAgeSec: 0 } : (o.tokenCache ?? {});
  const seconds = o.introspection ? (c.introspectionMaxAgeSec ?? 10) : (c.maxAgeSec ?? 60);
  return { maxAgeMs: Math.max(0, seconds) * 1000, maxEntries: c.maxEntries ?? 10_000, maxBytes: c.maxBytes ?? 16 * 1024 * 1024 };
}
