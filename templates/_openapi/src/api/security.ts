/**
 * The API's credentials: which alternative of an operation's `security` to satisfy, from the environment variables
 * the descriptor names, and how each scheme goes on the request (OpenAPI 3.x Security Scheme Object). OAuth 2 client
 * credentials tokens (RFC 6749 §4.4) are fetched once and kept until shortly before they expire.
 */
import type { ApiDescriptor, OperationDescriptor, SecuritySchemeDescriptor } from "./descriptor.js";

/** What the chosen credentials add to a request. */
export interface Credentials {
  headers: Record<string, string>;
  query: string[];
  cookies: string[];
  /** The OAuth 2 token cache entries used (dropped and fetched again once when the API answers 401). */
  oauth: OAuthKey[];
  /** Whether the MCP caller's token was passed on (API_FORWARD_MCP_TOKEN=1). */
  forwarded: boolean;
}

/** Failure to obtain an OAuth 2 token: a tool error, not the API's answer. */
export class CredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CredentialsError";
  }
}

type Env = Record<string, string | undefined>;
type OAuthScheme = Extract<SecuritySchemeDescriptor, { type: "oauth2" }>;
type OAuthKey = string;

/** A scheme the MCP caller's bearer token can stand for, when passthrough is on (not mutual TLS: a certificate). */
const takesBearer = (s: SecuritySchemeDescriptor) =>
  (s.type === "http" && s.scheme === "bearer") || s.type === "oauth2" || (s.type === "unsupported" && s.bearer);

/** The environment variables a scheme needs (none for one the client cannot satisfy by itself). */
export function variablesOf(s: SecuritySchemeDescriptor): string[] {
  return Object.values(s.env as Record<string, string>);
}

const set = (env: Env, name: string) => env[name] !== undefined && env[name] !== "";

/** The operation's alternatives: its own `security`, else the document's. */
export const alternativesOf = (api: ApiDescriptor, op: OperationDescriptor) => op.security ?? api.security;

/**
 * The alternative to satisfy: the first (in the document's order) whose schemes are all configured (or, with
 * passthrough, stand-in for by the caller's token), else an empty one (`{}`: anonymous allowed), else none
 * (undefined: the request goes without credentials and the API says what it needs).
 */
export function chooseAlternative(
  api: ApiDescriptor,
  op: OperationDescriptor,
  env: Env,
  callerToken: string | undefined,
): Record<string, string[]> | undefined {
  const alternatives = alternativesOf(api, op);
  const satisfied = (alt: Record<string, string[]>) =>
    Object.keys(alt).every((name) => {
      const s = api.securitySchemes[name];
      if (!s) return false;
      if (callerToken !== undefined && takesBearer(s)) return true;
      if (s.type === "unsupported") return false;
      return variablesOf(s).every((v) => set(env, v));
    });
  return (
    alternatives.find((alt) => Object.keys(alt).length > 0 && satisfied(alt)) ??
    alternatives.find((alt) => Object.keys(alt).length === 0)
  );
}

/** "set A and B (scheme x), or C (scheme y)": what would let a refused request through. */
export function whatToSet(api: ApiDescriptor, op: OperationDescriptor): string {
  const options = alternativesOf(api, op)
    .filter((alt) => Object.keys(alt).length > 0)
    .map((alt) =>
      Object.keys(alt)
        .map((name) => {
          const s = api.securitySchemes[name];
          if (s?.type === "unsupported" && !s.bearer)
            return `credentials this client cannot send (scheme ${name}, ${s.original})`;
          if (!s || s.type === "unsupported")
            return `the MCP caller's token with API_FORWARD_MCP_TOKEN=1 (scheme ${name}${s ? `, ${s.original}` : ""})`;
          return `${variablesOf(s).join(" and ")} (scheme ${name})`;
        })
        .join(" with "),
    );
  return options.length ? `set ${options.join(", or ")}` : "";
}

/** The credentials of `alternative`, fetching OAuth tokens as needed. */
export async function credentialsFor(
  api: ApiDescriptor,
  alternative: Record<string, string[]> | undefined,
  io: { env: Env; callerToken?: string; signal: AbortSignal },
): Promise<Credentials> {
  const c: Credentials = { headers: {}, query: [], cookies: [], oauth: [], forwarded: false };
  for (const [name, scopes] of Object.entries(alternative ?? {})) {
    const s = api.securitySchemes[name];
    if (!s) continue;
    if (io.callerToken !== undefined && takesBearer(s)) {
      c.headers.authorization = `Bearer ${io.callerToken}`;
      c.forwarded = true;
    } else if (s.type === "apiKey") {
      const value = io.env[s.env.value]!;
      if (s.in === "header") c.headers[s.name.toLowerCase()] = value;
      else if (s.in === "query") c.query.push(`${encodeURIComponent(s.name)}=${encodeURIComponent(value)}`);
      else c.cookies.push(`${s.name}=${encodeURIComponent(value)}`);
    } else if (s.type === "http" && s.scheme === "bearer") c.headers.authorization = `Bearer ${io.env[s.env.token]}`;
    else if (s.type === "http" && s.scheme === "basic") {
      c.headers.authorization = `Basic ${Buffer.from(`${io.env[s.env.username]}:${io.env[s.env.password]}`).toString("base64")}`;
    } else if (s.type === "oauth2") {
      const { key, token } = await oauthToken(s, scopes, io.env, io.signal);
      c.headers.authorization = `Bearer ${token}`;
      c.oauth.push(key);
    }
  }
  // The caller's token, opted in, goes even where the document names no scheme it could stand for.
  if (io.callerToken !== undefined && !c.headers.authorization) {
    c.headers.authorization = `Bearer ${io.callerToken}`;
    c.forwarded = true;
  }
  return c;
}

interface CachedToken {
  token: string;
  /** Epoch ms after which it is fetched again (a margin before `expires_in`); Infinity without one. */
  renewAt: number;
}
const tokens = new Map<OAuthKey, CachedToken>();
const inFlight = new Map<OAuthKey, Promise<CachedToken>>();

/** Forget a token the API refused (401), so that the next request fetches a new one. */
export function dropToken(key: OAuthKey): void {
  tokens.delete(key);
}

/** Forget every cached token (tests; a process that rotated its client secret). */
export function clearTokenCache(): void {
  tokens.clear();
}

/** The token endpoint: API_OAUTH_TOKEN_URL (another environment's, a test's), else the document's `tokenUrl`. */
const tokenUrlOf = (s: OAuthScheme) => process.env.API_OAUTH_TOKEN_URL || s.tokenUrl;

/** A token for the client credentials grant: the cached one while fresh, else one fetch shared by every caller. */
async function oauthToken(
  s: OAuthScheme,
  scopes: string[],
  env: Env,
  signal: AbortSignal,
): Promise<{ key: OAuthKey; token: string }> {
  const clientId = env[s.env.clientId]!;
  const key = JSON.stringify([tokenUrlOf(s), clientId, [...scopes].sort()]);
  const cached = tokens.get(key);
  if (cached && Date.now() < cached.renewAt) return { key, token: cached.token };
  let pending = inFlight.get(key);
  if (!pending) {
    pending = fetchToken(s, scopes, clientId, env[s.env.clientSecret]!, signal).finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  const fresh = await pending;
  tokens.set(key, fresh);
  return { key, token: fresh.token };
}

/**
 * POST the client credentials grant to `tokenUrl` (client authentication `client_secret_basic`, RFC 6749 §2.3.1;
 * `API_OAUTH_CLIENT_AUTH=post` sends the credentials in the body instead).
 */
async function fetchToken(
  s: OAuthScheme,
  scopes: string[],
  clientId: string,
  secret: string,
  signal: AbortSignal,
): Promise<CachedToken> {
  const form = new URLSearchParams({ grant_type: "client_credentials" });
  if (scopes.length) form.set("scope", scopes.join(" "));
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  if (process.env.API_OAUTH_CLIENT_AUTH === "post") {
    form.set("client_id", clientId);
    form.set("client_secret", secret);
  } else {
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString("base64")}`;
  }
  let res: Response;
  try {
    res = await fetch(tokenUrlOf(s), { method: "POST", headers, body: form, signal });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new CredentialsError(`could not reach the OAuth token endpoint ${tokenUrlOf(s)}: ${(err as Error).message}`);
  }
  const text = await res.text();
  if (!res.ok)
    throw new CredentialsError(
      `the OAuth token endpoint ${tokenUrlOf(s)} answered HTTP ${res.status} ${res.statusText}: ${text.slice(0, 200)}`,
    );
  let body: { access_token?: unknown; expires_in?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new CredentialsError(`the OAuth token endpoint ${tokenUrlOf(s)} answered without JSON`);
  }
  if (typeof body.access_token !== "string")
    throw new CredentialsError(`the OAuth token endpoint ${tokenUrlOf(s)} answered without an access_token`);
  const lifetime = Number(body.expires_in);
  // Renew a little before it expires (30 s, or half its lifetime when shorter), so a request never carries a stale one.
  const renewAt =
    Number.isFinite(lifetime) && lifetime > 0
      ? Date.now() + lifetime * 1000 - Math.min(30_000, (lifetime * 1000) / 2)
      : Infinity;
  return { token: body.access_token, renewAt };
}
