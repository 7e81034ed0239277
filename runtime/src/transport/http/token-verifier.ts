/**
 * Bearer access tokens decided (TokenVerifier) and remembered (CachedPrincipals), for the resource server of
 * authorization.ts. spec/2025-11-25/basic/authorization.mdx#token-handling
 */
import type { Principal } from "../../protocol/request.js";
import type { AuthorizationOptions } from "./authorization-config.js";
import { AuthorizationError, FETCH_TIMEOUT_MS, unavailable } from "./authorization-error.js";
import { Introspection } from "./introspection.js";
import { missingScopes, principalOf } from "./principals.js";
import { TokenCache, type Entry as CachedToken, type TokenCacheLimits } from "./token-cache.js";

/** Asymmetric JWS algorithms (RFC 7518): an access token signed with a shared secret or unsigned is never accepted. */
const ASYMMETRIC = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];
/** A copy of `p` with the raw token as a non-enumerable `token` (Principal.token): JSON.stringify and spreads leave it out. */
function withToken(p: Principal, token: string): Principal {
  return Object.freeze(Object.defineProperty({ ...p }, "token", { value: token, enumerable: false }));
}

/** RFC 6750 §2.1: `Bearer` then a b64token. */
export const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
/** RFC 9068 §2.1: the `typ` of a JWT access token. */
const ACCESS_TOKEN_TYPES = ["at+jwt"];
/** A media type as RFC 7515 §4.1.9 compares it: no case, no `application/` prefix. */
const mediaType = (t: string) => t.toLowerCase().replace(/^application\//, "");

type Jose = typeof import("jose");
/** jose, loaded on first verification: a server without authorization never loads it. */
let joseModule: Promise<Jose> | undefined;
const jose = () => (joseModule ??= import("jose"));

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
 * How one resource server decides a bearer access token: its custom `verify`, RFC 7662 introspection, or a JWT access
 * token (RFC 9068) checked against the issuer's JWKS (jose). What is decided is kept in the token cache (not for a
 * custom `verify`, whose lifetime rules are its own), entries are dropped when the issuer stops publishing the key
 * that signed them, and a connection's last Authorization header is remembered with its principal.
 * spec/2025-11-25/basic/authorization.mdx#token-handling, spec/2026-07-28/basic/authorization/index.mdx#token-handling
 */
export class TokenVerifier {
  readonly issuer: string;
  private readonly tolerance: number;
  /** Accepted `typ` values, as mediaType() writes them. */
  private readonly tokenTypes: ReadonlySet<string>;
  private jwks?: Promise<ReturnType<Jose["createRemoteJWKSet"]>>;
  /** What jose last fetched of the JWKS (its `jwksCache` slot, written on each fetch), to see a key set change. */
  private readonly jwksFetched: { jwks?: { keys?: Array<{ kid?: unknown }> }; uat?: number } = {};
  private seenKeySet?: object;
  /** RFC 7662 introspection, when `options.introspection`. */
  private readonly introspection?: Introspection;
  /** Verified tokens' principals (JWT and introspection). */
  private readonly tokens: TokenCache;
  private readonly cached: CachedPrincipals;

  /**
   * @param resource the canonical URI of the resource, given to a custom `verify`.
   * @param audience the `aud` values a token must name (one of).
   * @param issuerMetadata the issuer's metadata (RFC 8414), for its `jwks_uri` and introspection endpoint.
   */
  constructor(
    private readonly options: AuthorizationOptions,
    private readonly resource: string,
    private readonly audience: readonly string[],
    private readonly issuerMetadata: () => Promise<Record<string, unknown>>,
  ) {
    this.issuer = options.issuer;
    this.tolerance = options.clockToleranceSec ?? 30;
    if (options.audienceCheck === false) warnNoAudienceCheck(this.issuer);
    this.tokenTypes = acceptedTokenTypes(options.tokenTypes);
    this.tokens = new TokenCache(tokenCacheLimits(options));
    this.cached = new CachedPrincipals(this.tokens, options.requiredScopes);
    if (options.introspection) this.introspection = new Introspection(options.introspection, this.issuer, issuerMetadata);
  }

  /** The verified principal of `token`, carrying it (Principal.token). Rejects AuthorizationError (401, 503). */
  async principal(token: string): Promise<Principal> {
    return withToken(await this.verify(token), token);
  }

  /**
   * The principal of Bearer `header` when the token cache holds its token with every `requiredScopes`, at once (no
   * promise); undefined when it must be verified (or refused), or with a custom `verify`.
   */
  cachedPrincipal(header: string, connection: object | undefined): Principal | undefined {
    return this.options.verify ? undefined : this.cached.of(header, connection);
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
    const doc = await this.issuerMetadata().catch((err: Error) => {
      throw unavailable(err.message);
    });
    if (typeof doc.jwks_uri !== "string") throw unavailable(`issuer ${this.issuer} publishes no jwks_uri`);
    return doc.jwks_uri;
  }
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
