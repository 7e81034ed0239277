/**
 * A real OAuth 2.1 / OpenID authorization server for the authorization tests: oidc-provider (the OpenID-certified Node
 * implementation) on 127.0.0.1, with resource indicators (RFC 8707) so that an access token requested for our MCP
 * server's URI is a JWT whose `aud` is that URI. Opaque tokens for RFC 7662 introspection come from a second resource.
 * Consent is answered by the test: the interaction routes log in `account` and grant what was asked.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import Provider from "oidc-provider";

export const SCOPES = ["tools:read", "tools:admin", "prompts:read"];
export const OPAQUE_RESOURCE = "urn:test:opaque";

export interface AuthorizationServer {
  issuer: string;
  provider: Provider;
  /** The account the next interactive login signs in (the test's user). */
  account: string;
  /** Resources (RFC 8707) the server issues tokens for: JWTs, except OPAQUE_RESOURCE. */
  resources: Set<string>;
  /** A client_credentials access token for `resource` (`clientId` one of cc-alice, cc-bob). */
  clientCredentials(resource: string, scope: string, clientId?: string): Promise<string>;
  /** A JWT signed with the server's own signing key, with these claims (to make expired or otherwise crafted tokens). */
  /** A JWT signed by this server's key; `typ` default "at+jwt" (RFC 9068 §2.1), `null` for none. */
  sign(claims: Record<string, unknown>, typ?: string | null): Promise<string>;
  /** Follow an authorization URL through login and consent (answered here) to the redirect; returns the redirect URL. */
  authorize(url: URL | string): Promise<URL>;
  close(): Promise<void>;
}

export const CC_SECRET = "cc-secret-that-is-long-enough-0123456789";
export const RS_CLIENT = { clientId: "mcp-resource-server", clientSecret: "rs-secret-that-is-long-enough-0123456789" };

export async function startAuthorizationServer(): Promise<AuthorizationServer> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: "test-es256", alg: "ES256", use: "sig" };
  const http: Server = createServer();
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const resources = new Set<string>([OPAQUE_RESOURCE]);
  const state = { account: "alice" };

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: "cc-alice",
        client_secret: CC_SECRET,
        grant_types: ["client_credentials"],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: "client_secret_basic",
        scope: SCOPES.join(" "),
      },
      {
        client_id: "cc-bob",
        client_secret: CC_SECRET,
        grant_types: ["client_credentials"],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: "client_secret_basic",
        scope: SCOPES.join(" "),
      },
      { client_id: RS_CLIENT.clientId, client_secret: RS_CLIENT.clientSecret, grant_types: [], redirect_uris: [], response_types: [], token_endpoint_auth_method: "client_secret_basic" },
    ],
    jwks: { keys: [jwk] },
    scopes: ["openid", "offline_access", ...SCOPES],
    cookies: { keys: ["test-cookie-key-0123456789"] },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    clientDefaults: { grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none", id_token_signed_response_alg: "ES256" },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => (oneOf ? oneOf[0] : undefined!),
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (!resources.has(resource)) throw new Error(`unknown resource ${resource}`);
          if (resource === OPAQUE_RESOURCE) return { scope: SCOPES.join(" "), accessTokenFormat: "opaque", accessTokenTTL: 600 };
          return { scope: SCOPES.join(" "), audience: resource, accessTokenFormat: "jwt", accessTokenTTL: 600, jwt: { sign: { alg: "ES256" } } };
        },
      },
    },
  });
  // Unknown resources are "invalid_target": getResourceServerInfo's throw surfaces as a server error otherwise.
  const callback = provider.callback();

  const interaction = async (req: IncomingMessage, res: ServerResponse) => {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === "login") {
      return provider.interactionFinished(req, res, { login: { accountId: state.account } }, { mergeWithLastSubmission: false });
    }
    // Consent: grant every scope and resource asked for (the test's user says yes).
    const { params, session } = details;
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: session!.accountId, clientId: params.client_id as string });
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
    if (missing.missingOIDCScope?.length) grant!.addOIDCScope(missing.missingOIDCScope.join(" "));
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant!.addResourceScope(resource, scopes.join(" "));
    const grantId = await grant!.save();
    return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  };

  http.on("request", (req, res) => {
    if (req.url?.startsWith("/interaction/")) {
      interaction(req, res).catch((err) => {
        res.statusCode = 500;
        res.end(String(err?.stack ?? err));
      });
      return;
    }
    // Dynamic registration: the registered `scope` is not kept as a ceiling, so that a registered client may step up
    // to scopes it did not register with (the SDK registers with the scopes of its first authorization).
    if (req.method === "POST" && req.url === "/reg") {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => (body += c));
      req.on("end", () => {
        const metadata = JSON.parse(body || "{}");
        delete metadata.scope;
        (req as IncomingMessage & { body?: unknown }).body = metadata;
        callback(req, res);
      });
      return;
    }
    callback(req, res);
  });

  const form = (body: Record<string, string>) => new URLSearchParams(body).toString();

  return {
    issuer,
    provider,
    resources,
    get account() {
      return state.account;
    },
    set account(a: string) {
      state.account = a;
    },
    async clientCredentials(resource, scope, clientId = "cc-alice") {
      const r = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(`${clientId}:${CC_SECRET}`)}` },
        body: form({ grant_type: "client_credentials", resource, scope }),
      });
      const body = (await r.json()) as { access_token?: string };
      if (!r.ok || !body.access_token) throw new Error(`token request failed: ${r.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    sign(claims, typ = "at+jwt") {
      return new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: jwk.kid, ...(typ === null ? {} : { typ }) }).sign(privateKey);
    },
    async authorize(start) {
      const jar = new Map<string, string>();
      let url = new URL(start);
      for (let hop = 0; hop < 20; hop++) {
        if (url.origin !== issuer) return url;
        const r = await fetch(url, { redirect: "manual", headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") } });
        for (const c of r.headers.getSetCookie()) {
          const [pair] = c.split(";");
          const i = pair.indexOf("=");
          jar.set(pair.slice(0, i), pair.slice(i + 1));
        }
        const location = r.headers.get("location");
        if (!location) throw new Error(`authorization stopped at ${url} with ${r.status}: ${await r.text()}`);
        url = new URL(location, url);
      }
      throw new Error("too many redirects");
    },
    close: () =>
      new Promise<void>((r) => {
        http.closeAllConnections();
        http.close(() => r());
      }),
  };
}
