// The official SDK clients' OAuth flow against our resource server and a real authorization server (oidc-provider),
// from nothing: the first request gets 401, the client reads our Protected Resource Metadata, discovers the
// authorization server, registers dynamically (or uses a pre-registered client), obtains a token for our URI
// (authorization code with PKCE, consent answered by the test; or client credentials), then lists and calls tools.
// SDK 1.x over Streamable HTTP in each legacy revision; @modelcontextprotocol/client 2.x pinned to 2026-07-28.
// spec/2025-11-25/basic/authorization.mdx#authorization-flow-steps, spec/2026-07-28/basic/authorization/index.mdx#authorization-flow-steps
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { Client as Client2, StreamableHTTPClientTransport as Http2 } from "@modelcontextprotocol/client";
import { createServer, type HttpHandle, type Revision } from "../../runtime/dist/index.js";
import { CC_SECRET, startAuthorizationServer, type AuthorizationServer } from "./authorization-server.js";

const LEGACY: Revision[] = ["2025-03-26", "2025-06-18", "2025-11-25"];
const MODERN: Revision = "2026-07-28";

/** An interactive client's OAuth state, its browser being the test (AuthorizationServer.authorize answers login and consent). */
class BrowserlessProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  /** The redirect back to us, once the "browser" has been through login and consent. */
  redirected?: Promise<URL>;
  readonly redirectUrl = "http://127.0.0.1:1/callback";
  constructor(private readonly as: AuthorizationServer) {}
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "sdk-oauth-test", redirect_uris: [this.redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.redirected = this.as.authorize(url);
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier!;
  }
}

function server(revisions: Revision[]) {
  const s = createServer({ name: "sdk-oauth", version: "1.0.0", revisions });
  s.tool({
    name: "whoami",
    scopes: ["tools:read"],
    inputSchema: { type: "object" },
    handler: (_a, ctx) => ({ content: [{ type: "text", text: `${ctx.principal?.subject} ${ctx.revision}` }] }),
  });
  s.tool({ name: "admin", scopes: ["tools:admin"], inputSchema: { type: "object" }, handler: () => ({ content: [{ type: "text", text: "admin" }] }) });
  return s;
}

let as: AuthorizationServer;
const handles: HttpHandle[] = [];
async function serve(revisions: Revision[], scopesSupported?: string[]): Promise<string> {
  const h = await server(revisions).serveHttp({ port: 0, quiet: true, authorization: { issuer: as.issuer, scopesSupported } });
  handles.push(h);
  as.resources.add(h.url);
  return h.url;
}

beforeAll(async () => {
  as = await startAuthorizationServer();
});
afterAll(async () => {
  await Promise.all(handles.map((h) => h.close()));
  await as?.close();
});

/** Authorization code with PKCE: connect, get sent to authorize, come back with the code, finish, connect again. */
async function interactive<C extends { connect(t: never): Promise<void> }>(
  makeClient: () => C,
  makeTransport: (p: OAuthClientProvider) => { finishAuth(code: string, iss?: string): Promise<void> },
  provider: BrowserlessProvider,
): Promise<C> {
  const first = makeTransport(provider);
  await expect(makeClient().connect(first as never)).rejects.toBeInstanceOf(Error);
  expect(provider.redirected, "the client was sent to the authorization endpoint").toBeDefined();
  const back = await provider.redirected!;
  const code = back.searchParams.get("code");
  expect(code, `redirect ${back}`).toBeTruthy();
  // The callback's `iss` (RFC 9207): the 2.x client checks it names the authorization server it started with.
  await first.finishAuth(code!, back.searchParams.get("iss") ?? undefined);
  const client = makeClient();
  await client.connect(makeTransport(provider) as never);
  return client;
}

describe.each(LEGACY)("SDK 1.x over Streamable HTTP, revision %s", (revision) => {
  it("from nothing: 401, our metadata, discovery, dynamic registration, authorization code + PKCE, then tools", async () => {
    const url = await serve([revision]);
    as.account = "alice";
    const provider = new BrowserlessProvider(as);
    const client = await interactive(
      () => new Client({ name: "sdk1", version: "1.0.0" }),
      (p) => new StreamableHTTPClientTransport(new URL(url), { authProvider: p }),
      provider,
    );
    try {
      expect(provider.info?.client_id, "registered dynamically").toBeTruthy();
      // The token is a JWT for our URI (RFC 8707 resource indicator).
      const [, payload] = provider.saved!.access_token.split(".");
      const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
      expect(claims.aud).toBe(url);
      expect(claims.iss).toBe(as.issuer);
      expect(client.getServerVersion()?.name).toBe("sdk-oauth");
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name).sort()).toEqual(["admin", "whoami"]);
      const r = await client.callTool({ name: "whoami", arguments: {} });
      expect((r.content as { text: string }[])[0].text).toBe(`alice ${revision}`);
    } finally {
      await client.close();
    }
  });
});

describe("SDK 1.x with a pre-registered client (client credentials)", () => {
  it("gets a token for our URI and calls tools; a tool whose scope it lacks is 403", async () => {
    const url = await serve(["2025-11-25"]);
    const provider = new ClientCredentialsProvider({ clientId: "cc-bob", clientSecret: CC_SECRET, scope: "tools:read", expectedIssuer: as.issuer });
    const client = new Client({ name: "sdk1-cc", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
    try {
      const r = await client.callTool({ name: "whoami", arguments: {} });
      expect((r.content as { text: string }[])[0].text).toBe("cc-bob 2025-11-25");
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["whoami"]);
      // admin needs tools:admin: 403. (The SDK's client-credentials provider asks again with its configured scope, not
      // the challenge's, so it stays refused; the interactive step-up is below.)
      await expect(client.callTool({ name: "admin", arguments: {} })).rejects.toThrow(/403/);
    } finally {
      await client.close();
    }
  });
});

describe("step-up authorization (spec/2025-11-25/basic/authorization.mdx#step-up-authorization-flow)", () => {
  it("SDK 1.x: a token without a tool's scope gets 403 insufficient_scope naming it; the client re-authorizes with it and the call succeeds", async () => {
    // The metadata advertises tools:read only, so the first token has just that.
    const url = await serve(["2025-11-25"], ["tools:read"]);
    as.account = "erin";
    const provider = new BrowserlessProvider(as);
    const transport = (p: OAuthClientProvider) => new StreamableHTTPClientTransport(new URL(url), { authProvider: p });
    const client = await interactive(() => new Client({ name: "sdk1-stepup", version: "1.0.0" }), transport, provider);
    expect(provider.saved?.scope).toBe("tools:read");
    provider.redirected = undefined;
    await expect(client.callTool({ name: "admin", arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    await client.close();
    // The client was sent to authorize again, asking for the challenge's scopes.
    const back = await provider.redirected!;
    expect(back.searchParams.get("code"), String(back)).toBeTruthy();
    const again = transport(provider);
    await again.finishAuth(back.searchParams.get("code")!);
    expect(provider.saved?.scope?.split(" ").sort()).toEqual(["tools:admin", "tools:read"]);
    const client2 = new Client({ name: "sdk1-stepup", version: "1.0.0" });
    await client2.connect(again);
    try {
      expect(((await client2.callTool({ name: "admin", arguments: {} })).content as { text: string }[])[0].text).toBe("admin");
    } finally {
      await client2.close();
    }
  });
});

describe(`@modelcontextprotocol/client 2.x pinned to ${MODERN}`, () => {
  it("from nothing: 401, our metadata, discovery, dynamic registration, authorization code + PKCE, then tools", async () => {
    const url = await serve([MODERN]);
    as.account = "dave";
    const provider = new BrowserlessProvider(as);
    const client = await interactive(
      () => new Client2({ name: "sdk2", version: "2.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } }),
      (p) => new Http2(new URL(url), { authProvider: p as never }),
      provider,
    );
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name).sort()).toEqual(["admin", "whoami"]);
      const r = await client.callTool({ name: "whoami", arguments: {} });
      expect((r.content as { text: string }[])[0].text).toBe(`dave ${MODERN}`);
    } finally {
      await client.close();
    }
  });
});
