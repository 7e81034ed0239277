// The HTTP endpoint as an OAuth 2.1 resource server, against a real authorization server (oidc-provider on
// 127.0.0.1, test/auth/authorization-server.ts): Protected Resource Metadata, 401/403 challenges, JWT verification
// (issuer, audience, expiry), scopes per feature, and the principal bindings of sessions and requestState.
// spec/2025-11-25/basic/authorization.mdx, spec/2026-07-28/basic/authorization/index.mdx
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createServer, rules, type HttpHandle, type McpServer } from "../../runtime/dist/index.js";
import { jsonPost, modernMeta, modernRequest, raw, sessionHeaders, initializeBody } from "../runtime/http-helpers.js";
import { OPAQUE_RESOURCE, RS_CLIENT, startAuthorizationServer, type AuthorizationServer } from "./authorization-server.js";

const LEGACY = "2025-11-25";

export function authFixture(): McpServer {
  const server = createServer({ name: "auth-fixture", version: "1.0.0" });
  const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
  server.tool({ name: "echo", scopes: ["tools:read"], inputSchema: { type: "object", properties: { text: { type: "string" } } }, handler: ({ text: t }) => text(String(t)) });
  server.tool({ name: "admin", scopes: ["tools:admin"], inputSchema: { type: "object" }, handler: (_a, ctx) => text(`admin for ${ctx.principal?.subject}`) });
  server.tool({
    name: "whoami",
    inputSchema: { type: "object" },
    handler: (_a, ctx) => text(JSON.stringify({ subject: ctx.principal?.subject, clientId: ctx.principal?.clientId, scopes: ctx.principal?.scopes })),
  });
  server.tool({
    name: "ask",
    inputSchema: { type: "object" },
    handler: async (_a, ctx) => {
      const r = await ctx.elicit({ message: "name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } });
      return text(`hello ${(r.content as { name?: string } | undefined)?.name} from ${ctx.principal?.subject}`);
    },
  });
  server.tool({
    name: "job",
    taskSupport: "optional",
    inputSchema: { type: "object" },
    handler: () => new Promise((r) => setTimeout(() => r(text("job done")), 30)),
  });
  server.prompt({
    name: "secret",
    scopes: ["prompts:read"],
    arguments: [{ name: "topic" }],
    complete: { topic: () => ["alpha", "beta"] },
    get: () => ({ messages: [{ role: "user", content: { type: "text", text: "s" } }] }),
  });
  server.resource({ uri: "app://private", name: "private", scopes: ["tools:admin"], read: (uri) => ({ contents: [{ uri, text: "p" }] }) });
  return server;
}

let as: AuthorizationServer;
let other: AuthorizationServer;
let handle: HttpHandle;
let url: string;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  [as, other] = await Promise.all([startAuthorizationServer(), startAuthorizationServer()]);
  handle = await authFixture().serveHttp({ port: 0, quiet: true, authorization: { issuer: as.issuer } });
  url = handle.url;
  as.resources.add(url);
  other.resources.add(url);
  as.resources.add("http://127.0.0.1:1/another-server");
});
afterAll(async () => {
  await handle?.close();
  await Promise.all([as?.close(), other?.close()]);
});

const call = (token: string | undefined, method: string, params: Record<string, unknown> = {}, meta = modernMeta()) => {
  const { body, headers } = modernRequest(1, method, params, meta);
  return raw(url, { headers: { ...headers, ...(token ? bearer(token) : {}) }, body });
};

/** The auth-params of a WWW-Authenticate Bearer challenge. */
function challenge(header: string | string[] | undefined): Record<string, string> {
  const h = String(header ?? "");
  expect(h).toMatch(/^Bearer /);
  return Object.fromEntries([...h.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
}

describe("Protected Resource Metadata (RFC 9728)", () => {
  it("is served at the root and the path-suffixed well-known URI, with CORS for any origin", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const r = await raw(new URL(path, url).href, { method: "GET", headers: { origin: "https://app.example" } });
      expect(r.status).toBe(200);
      expect(r.headers["access-control-allow-origin"]).toBe("*");
      expect(r.json).toEqual({ resource: url, authorization_servers: [as.issuer], bearer_methods_supported: ["header"], scopes_supported: ["tools:read", "tools:admin", "prompts:read"] });
    }
    const pre = await raw(new URL("/.well-known/oauth-protected-resource/mcp", url).href, { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "GET" } });
    expect(pre.status).toBe(204);
    expect(pre.headers["access-control-allow-origin"]).toBe("*");
  });

  it("mirrors the authorization server's metadata where 2025-03-26 clients look (spec/2025-03-26/basic/authorization.mdx#server-metadata-discovery)", async () => {
    const r = await raw(new URL("/.well-known/oauth-authorization-server", url).href, { method: "GET" });
    expect(r.status).toBe(200);
    expect(r.json.issuer).toBe(as.issuer);
    expect(r.json.token_endpoint).toBe(`${as.issuer}/token`);
  });
});

describe("401: no token or an invalid one", () => {
  it("no token: 401 naming the metadata, no error code (RFC 6750 §3), and a JSON-RPC error body", async () => {
    const r = await call(undefined, "tools/list");
    expect(r.status).toBe(401);
    const c = challenge(r.headers["www-authenticate"]);
    expect(c.resource_metadata).toBe(new URL("/.well-known/oauth-protected-resource/mcp", url).href);
    expect(c.error).toBeUndefined();
    expect(r.json.jsonrpc).toBe("2.0");
    expect(r.json.error.code).toBe(-32600);
    expect(r.json.error.message).toMatch(/^Unauthorized/);
  });

  it("a legacy initialize and GET/DELETE without a token: 401 too", async () => {
    const init = await raw(url, { headers: jsonPost(), body: initializeBody(LEGACY) });
    expect(init.status).toBe(401);
    expect(init.headers["mcp-session-id"]).toBeUndefined();
    for (const method of ["GET", "DELETE"]) {
      const r = await raw(url, { method, headers: { accept: "text/event-stream", "mcp-session-id": "x" } });
      expect(r.status).toBe(401);
    }
  });

  it.each([
    ["malformed", () => Promise.resolve("not-a-jwt"), /well-formed/],
    ["expired", () => as.sign({ iss: as.issuer, aud: url, sub: "alice", scope: "tools:read", iat: now() - 7200, exp: now() - 3600 }), /expired/],
    ["not yet valid", () => as.sign({ iss: as.issuer, aud: url, sub: "alice", scope: "tools:read", nbf: now() + 3600, exp: now() + 7200 }), /nbf|not active|claim/],
    ["from another issuer (a real token of another authorization server)", () => other.clientCredentials(url, "tools:read"), /key|issuer|signature/],
    ["naming another issuer, signed by the right key", () => as.sign({ iss: other.issuer, aud: url, sub: "alice", scope: "tools:read", exp: now() + 600 }), /another issuer/],
    ["issued for another server (audience)", () => as.clientCredentials("http://127.0.0.1:1/another-server", "tools:read"), /audience/],
    ["without exp", () => as.sign({ iss: as.issuer, aud: url, sub: "alice", scope: "tools:read" }), /exp/],
    // RFC 9068 §4: typ must be at+jwt; "JWT" is the shape of an ID token or any other JWT the issuer signs.
    ["of typ JWT, signed by the issuer (RFC 9068 §4)", () => as.sign({ iss: as.issuer, aud: url, sub: "alice", scope: "tools:read", exp: now() + 600 }, "JWT"), /not an access token/],
    ["without typ, signed by the issuer (RFC 9068 §4)", () => as.sign({ iss: as.issuer, aud: url, sub: "alice", scope: "tools:read", exp: now() + 600 }, null), /not an access token/],
  ])("%s: 401 invalid_token", async (_name, token, why) => {
    const r = await call(await token(), "tools/list");
    expect(r.status).toBe(401);
    const c = challenge(r.headers["www-authenticate"]);
    expect(c.error).toBe("invalid_token");
    expect(c.resource_metadata).toContain("/.well-known/oauth-protected-resource");
    expect(r.json.error.message).toMatch(why);
  });

  it("another scheme is no credentials (401, no error code); a Bearer without a token is malformed (400 invalid_request)", async () => {
    const basic = await raw(url, { headers: { ...modernRequest(1, "tools/list").headers, authorization: "Basic YTpi" }, body: modernRequest(1, "tools/list").body });
    expect(basic.status).toBe(401);
    expect(challenge(basic.headers["www-authenticate"]).error).toBeUndefined();
    const empty = await raw(url, { headers: { ...modernRequest(1, "tools/list").headers, authorization: "Bearer " }, body: modernRequest(1, "tools/list").body });
    expect(empty.status).toBe(400);
    expect(challenge(empty.headers["www-authenticate"]).error).toBe("invalid_request");
  });
});

const now = () => Math.floor(Date.now() / 1000);

describe("a valid token", () => {
  it("is served, and the handler sees the principal (subject, client id, scopes), never the token", async () => {
    const token = await as.clientCredentials(url, "tools:read");
    const r = await call(token, "tools/call", { name: "whoami", arguments: {} });
    expect(r.status).toBe(200);
    const who = JSON.parse(r.messages[0].result.content[0].text);
    expect(who).toEqual({ subject: "cc-alice", clientId: "cc-alice", scopes: ["tools:read"] });
  });

  it("the handler reads the request's own token as principal.token (for an opted-in passthrough), never in the principal's JSON or keys", async () => {
    const server = authFixture();
    server.tool({
      name: "token",
      inputSchema: { type: "object" },
      handler: (_a, ctx) => ({ content: [{ type: "text", text: JSON.stringify({ token: ctx.principal?.token, json: JSON.stringify(ctx.principal), keys: Object.keys(ctx.principal ?? {}) }) }] }),
    });
    const h = await server.serveHttp({ port: 0, quiet: true, authorization: { issuer: as.issuer } });
    as.resources.add(h.url);
    try {
      const seen = (r: Awaited<ReturnType<typeof raw>>) => JSON.parse(r.messages[0].result.content[0].text);
      const first = await as.clientCredentials(h.url, "tools:read");
      const { body, headers } = modernRequest(1, "tools/call", { name: "token", arguments: {} });
      const modern = seen(await raw(h.url, { headers: { ...headers, ...bearer(first) }, body }));
      expect(modern.token).toBe(first);
      expect(modern.json).not.toContain(first);
      expect(modern.keys).toEqual(["subject", "clientId", "scopes", "claims"]);
      // A legacy session keeps the principal that opened it, but each request's handler sees that request's token.
      const init = await raw(h.url, { headers: jsonPost(bearer(first)), body: initializeBody(LEGACY) });
      const sid = String(init.headers["mcp-session-id"]);
      await raw(h.url, { headers: jsonPost({ ...sessionHeaders(sid, LEGACY), ...bearer(first) }), body: { jsonrpc: "2.0", method: "notifications/initialized" } });
      const second = await as.clientCredentials(h.url, "tools:read");
      expect(second).not.toBe(first);
      const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "token", arguments: {} } };
      expect(seen(await raw(h.url, { headers: jsonPost({ ...sessionHeaders(sid, LEGACY), ...bearer(second) }), body: call })).token).toBe(second);
    } finally {
      await h.close();
    }
  });

  it("a token signed by a key the server has not seen yet is verified after one JWKS refetch (key rotation)", async () => {
    // The server cached the JWKS above; a token with a new kid makes it fetch again (jose's createRemoteJWKSet).
    const token = await as.sign({ iss: as.issuer, aud: url, sub: "carol", scope: "tools:read", exp: now() + 600 });
    expect((await call(token, "tools/call", { name: "whoami", arguments: {} })).status).toBe(200);
  });
});

describe("scopes per feature", () => {
  it("a tool whose scope the token lacks: 403 insufficient_scope naming it (and keeping the granted ones)", async () => {
    const token = await as.clientCredentials(url, "tools:read");
    const r = await call(token, "tools/call", { name: "admin", arguments: {} });
    expect(r.status).toBe(403);
    const c = challenge(r.headers["www-authenticate"]);
    expect(c.error).toBe("insufficient_scope");
    expect(c.scope.split(" ").sort()).toEqual(["tools:admin", "tools:read"]);
    expect(c.resource_metadata).toContain("/.well-known/oauth-protected-resource");
    expect(r.json.error.message).toContain("tools:admin");
    expect(r.json.id).toBe(1);
    // The same in a legacy session.
    const sid = await legacySession(token);
    const legacy = await raw(url, { headers: jsonPost({ ...sessionHeaders(sid, LEGACY), ...bearer(token) }), body: { jsonrpc: "2.0", id: 2, method: "prompts/get", params: { name: "secret" } } });
    expect(legacy.status).toBe(403);
    expect(challenge(legacy.headers["www-authenticate"]).scope).toContain("prompts:read");
  });

  it("what reveals a scoped feature needs its scopes too: completion of a prompt's arguments, reading and subscribing to a resource", async () => {
    const token = await as.clientCredentials(url, "tools:read");
    const completion = await call(token, "completion/complete", { ref: { type: "ref/prompt", name: "secret" }, argument: { name: "topic", value: "a" } });
    expect(completion.status).toBe(403);
    expect(challenge(completion.headers["www-authenticate"]).scope).toContain("prompts:read");
    const read = await call(token, "resources/read", { uri: "app://private" });
    expect(read.status).toBe(403);
    const sid = await legacySession(token);
    const subscribe = await raw(url, {
      headers: jsonPost({ ...sessionHeaders(sid, LEGACY), ...bearer(token) }),
      body: { jsonrpc: "2.0", id: 3, method: "resources/subscribe", params: { uri: "app://private" } },
    });
    expect(subscribe.status).toBe(403);
    expect((await call(token, "resources/list")).messages[0].result.resources).toEqual([]);
    const listen = await call(token, "subscriptions/listen", { notifications: { resourceSubscriptions: ["app://private"] } });
    expect(listen.status).toBe(403);
    const allowed = await as.clientCredentials(url, "prompts:read");
    const ok = await call(allowed, "completion/complete", { ref: { type: "ref/prompt", name: "secret" }, argument: { name: "topic", value: "a" } });
    expect(ok.messages[0].result.completion.values).toEqual(["alpha", "beta"]);
  });

  it("with the scope: served", async () => {
    const token = await as.clientCredentials(url, "tools:read tools:admin");
    const r = await call(token, "tools/call", { name: "admin", arguments: {} });
    expect(r.status).toBe(200);
    expect(r.messages[0].result.content[0].text).toBe("admin for cc-alice");
  });

  it("lists show only what the scopes allow; in 2026-07-28 they are cacheScope private", async () => {
    const token = await as.clientCredentials(url, "tools:read");
    const r = await call(token, "tools/list");
    expect(r.messages[0].result.tools.map((t: { name: string }) => t.name)).toEqual(["echo", "whoami", "ask", "job"]);
    expect(r.messages[0].result.cacheScope).toBe("private");
    // The same list in a legacy revision has no caching fields at all.
    const sid = await legacySession(token);
    const legacy = await raw(url, { headers: jsonPost({ ...sessionHeaders(sid, LEGACY), ...bearer(token) }), body: { jsonrpc: "2.0", id: 9, method: "tools/list" } });
    expect(legacy.messages[0].result.cacheScope).toBeUndefined();
    const none = await as.clientCredentials(url, "");
    const r2 = await call(none, "tools/list");
    expect(r2.messages[0].result.tools.map((t: { name: string }) => t.name)).toEqual(["whoami", "ask", "job"]);
    const prompts = await call(token, "prompts/list");
    expect(prompts.messages[0].result.prompts).toEqual([]);
  });
});

async function legacySession(token: string): Promise<string> {
  const init = await raw(url, { headers: jsonPost(bearer(token)), body: initializeBody(LEGACY) });
  expect(init.status).toBe(200);
  const sid = String(init.headers["mcp-session-id"]);
  const ack = await raw(url, { headers: jsonPost({ ...sessionHeaders(sid, LEGACY), ...bearer(token) }), body: { jsonrpc: "2.0", method: "notifications/initialized" } });
  expect(ack.status).toBe(202);
  return sid;
}

describe("state bound to the principal", () => {
  it("a legacy session id used with another principal's token is refused (404, as if unknown) and never served", async () => {
    const alice = await as.clientCredentials(url, "tools:read", "cc-alice");
    const bob = await as.clientCredentials(url, "tools:read", "cc-bob");
    const sid = await legacySession(alice);
    const list = { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "whoami", arguments: {} } };
    const stolen = await raw(url, { headers: jsonPost({ ...sessionHeaders(sid, LEGACY), ...bearer(bob) }), body: list });
    expect(stolen.status).toBe(404);
    expect(stolen.text).not.toContain("cc-alice");
    const get = await raw(url, { method: "GET", headers: { accept: "text/event-stream", ...sessionHeaders(sid, LEGACY), ...bearer(bob) } });
    expect(get.status).toBe(404);
    const del = await raw(url, { method: "DELETE", headers: { ...sessionHeaders(sid, LEGACY), ...bearer(bob) } });
    expect(del.status).toBe(404);
    // Still alice's, and alive.
    const own = await raw(url, { headers: jsonPost({ ...sessionHeaders(sid, LEGACY), ...bearer(alice) }), body: list });
    expect(own.status).toBe(200);
    expect(JSON.parse(own.messages[0].result.content[0].text).subject).toBe("cc-alice");
    // A new token of the same principal (refreshed) keeps the session.
    const alice2 = await as.clientCredentials(url, "tools:read", "cc-alice");
    expect((await raw(url, { headers: jsonPost({ ...sessionHeaders(sid, LEGACY), ...bearer(alice2) }), body: list })).status).toBe(200);
  });

  it("an MRTR requestState replayed with another subject's token is -32602; with its own, served", async () => {
    const alice = await as.clientCredentials(url, "tools:read", "cc-alice");
    const bob = await as.clientCredentials(url, "tools:read", "cc-bob");
    const meta = modernMeta(undefined, { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } });
    const first = await call(alice, "tools/call", { name: "ask", arguments: {} }, meta);
    const result = first.messages[0].result;
    expect(result.resultType).toBe("input_required");
    const retry = { name: "ask", arguments: {}, requestState: result.requestState, inputResponses: { [Object.keys(result.inputRequests)[0]]: { action: "accept", content: { name: "Ann" } } } };
    // Bob's retry carries alice's state: refused before anything runs.
    const replay = await call(bob, "tools/call", retry, meta);
    expect(replay.messages[0].error.code).toBe(-32602);
    expect(replay.messages[0].error.message).toMatch(/requestState/);
    // A state is checked however it came: bob's own state on a fresh round is fine, alice's retry is served.
    const own = await call(alice, "tools/call", retry, meta);
    expect(own.messages[0].result.content[0].text).toBe("hello Ann from cc-alice");
  });
});

describe("state bound to the principal: its subject and its client, as tasks are", () => {
  const claims = (extra: Record<string, unknown>) => ({ iss: as.issuer, aud: url, scope: "tools:read", exp: now() + 600, ...extra });
  // Written by hand: the pairs that share a subject string but are not the same principal.
  const pairs = () =>
    [
      ["the same user through another client", as.sign(claims({ sub: "alice", client_id: "app1" })), as.sign(claims({ sub: "alice", client_id: "app2" }))],
      ["client svc (client credentials, no sub) and the user whose sub is svc", as.sign(claims({ client_id: "svc" })), as.sign(claims({ sub: "svc", client_id: "svc" }))],
    ] as const;

  it("an MRTR requestState sealed for one is -32602 for the other; for itself, served", async () => {
    const meta = modernMeta(undefined, { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } });
    for (const [what, a, b] of pairs()) {
      const [first, second] = await Promise.all([a, b]);
      const result = (await call(first, "tools/call", { name: "ask", arguments: {} }, meta)).messages[0].result;
      expect(result.resultType, what).toBe("input_required");
      const retry = { name: "ask", arguments: {}, requestState: result.requestState, inputResponses: { [Object.keys(result.inputRequests)[0]]: { action: "accept", content: { name: "Ann" } } } };
      const replay = await call(second, "tools/call", retry, meta);
      expect([what, replay.messages[0].error?.code]).toEqual([what, -32602]);
      const own = await call(first, "tools/call", retry, meta);
      expect(own.messages[0].result.content[0].text, what).toMatch(/^hello Ann from /);
    }
  });

  it("a legacy session opened by one is 404 for the other; for itself, served", async () => {
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    for (const [what, a, b] of pairs()) {
      const [first, second] = await Promise.all([a, b]);
      const sid = await legacySession(first);
      const other = await raw(url, { headers: jsonPost({ ...sessionHeaders(sid, LEGACY), ...bearer(second) }), body: list });
      expect([what, other.status]).toEqual([what, 404]);
      const own = await raw(url, { headers: jsonPost({ ...sessionHeaders(sid, LEGACY), ...bearer(first) }), body: list });
      expect([what, own.status]).toEqual([what, 200]);
    }
  });
});

describe("tasks bound to the principal", () => {
  const tasksMeta = modernMeta(undefined, { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } });
  it("2026-07-28: a task id used with another principal's token is answered as unknown (-32602) for get, update and cancel", async () => {
    const alice = await as.clientCredentials(url, "tools:read", "cc-alice");
    const bob = await as.clientCredentials(url, "tools:read", "cc-bob");
    const created = (await call(alice, "tools/call", { name: "job", arguments: {} }, tasksMeta)).messages[0].result;
    expect(created.resultType).toBe("task");
    for (const [method, params] of [
      ["tasks/get", { taskId: created.taskId }],
      ["tasks/update", { taskId: created.taskId, inputResponses: {} }],
      ["tasks/cancel", { taskId: created.taskId }],
    ] as const) {
      const stolen = await call(bob, method, params, tasksMeta);
      expect([method, stolen.messages[0].error?.code]).toEqual([method, -32602]);
    }
    const own = await call(alice, "tasks/get", { taskId: created.taskId }, tasksMeta);
    expect(own.messages[0].result.taskId).toBe(created.taskId);
  });

  it("the authorization context is the subject and its client: a client id that equals a user's subject, or the same user through another client, sees nothing", async () => {
    // A custom verifier stands in for tokens a real server issues: a user's (sub), and a client-credentials one whose
    // subject is its client id.
    const principals: Record<string, { subject: string; clientId?: string; scopes: string[]; claims: Record<string, unknown> }> = {
      "alice-app1": { subject: "alice", clientId: "app-1", scopes: [], claims: { sub: "alice", client_id: "app-1" } },
      "alice-app2": { subject: "alice", clientId: "app-2", scopes: [], claims: { sub: "alice", client_id: "app-2" } },
      "machine-alice": { subject: "alice", clientId: "alice", scopes: [], claims: { client_id: "alice" } },
    };
    const h = await authFixture().serveHttp({ port: 0, quiet: true, authorization: { issuer: "https://issuer.invalid", verify: (token) => principals[token] } });
    try {
      const at = (token: string, method: string, params: Record<string, unknown>) => {
        const { body, headers } = modernRequest(1, method, params, tasksMeta);
        return raw(h.url, { headers: { ...headers, ...bearer(token) }, body });
      };
      const created = (await at("alice-app1", "tools/call", { name: "job", arguments: {} })).messages[0].result;
      expect(created.resultType).toBe("task");
      for (const other of ["alice-app2", "machine-alice"]) expect([other, (await at(other, "tasks/get", { taskId: created.taskId })).messages[0].error?.code]).toEqual([other, -32602]);
      expect((await at("alice-app1", "tasks/get", { taskId: created.taskId })).messages[0].result.taskId).toBe(created.taskId);
    } finally {
      await h.close();
    }
  });

  // Holds the owner check of subscriptions/listen taskIds (protocol/listen.ts): a task id is no capability to watch
  // another principal's task. spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#security-considerations
  it("2026-07-28: subscriptions/listen with another principal's taskId gets no notifications/tasks; the owner's listen does", async () => {
    const server = createServer({ name: "listen-owner", version: "1.0.0" });
    server.tool({
      name: "slow",
      taskSupport: "optional",
      inputSchema: { type: "object" },
      handler: () => new Promise((r) => setTimeout(() => r({ content: [{ type: "text" as const, text: "alice's secret" }] }), 600)),
    });
    const principals: Record<string, { subject: string; clientId?: string; scopes: string[]; claims: Record<string, unknown> }> = {
      alice: { subject: "alice", clientId: "app", scopes: [], claims: { sub: "alice", client_id: "app" } },
      bob: { subject: "bob", clientId: "app", scopes: [], claims: { sub: "bob", client_id: "app" } },
    };
    const h = await server.serveHttp({ port: 0, quiet: true, authorization: { issuer: "https://issuer.invalid", verify: (token) => principals[token] } });
    try {
      const post = (token: string, method: string, params: Record<string, unknown>, options: { until?: (e: { data: string }[]) => boolean; timeoutMs?: number } = {}) => {
        const { body, headers } = modernRequest(1, method, params, tasksMeta);
        return raw(h.url, { headers: { ...headers, ...bearer(token) }, body, ...options });
      };
      const created = (await post("alice", "tools/call", { name: "slow", arguments: {} })).messages[0].result;
      expect(created.resultType).toBe("task");
      const completed = (events: { data: string }[]) => events.some((e) => e.data.includes('"completed"'));
      const watch = { notifications: { taskIds: [created.taskId] } };
      const [own, stolen] = await Promise.all([
        post("alice", "subscriptions/listen", watch, { until: completed, timeoutMs: 5000 }),
        post("bob", "subscriptions/listen", watch, { until: completed, timeoutMs: 2000 }),
      ]);
      expect(own.messages.find((m) => m.method === "notifications/tasks" && m.params.status === "completed")?.params).toMatchObject({ taskId: created.taskId });
      expect(stolen.messages.filter((m) => m.method === "notifications/tasks")).toEqual([]);
      expect(stolen.text).not.toContain("alice's secret");
    } finally {
      await h.close();
    }
  });

  // One rule for every task method (#20 item 9): what tasks/get finds, tasks/list lists, and no more
  // (spec/2025-11-25/basic/utilities/tasks.mdx#task-listing); a task exists only in the wire form it was created in.
  it("a task of one wire form does not exist for the other, even for its own principal: 2025-11-25 tasks/get, result, cancel and list alike", async () => {
    const alice = await as.clientCredentials(url, "tools:read", "cc-alice");
    const created = (await call(alice, "tools/call", { name: "job", arguments: {} }, tasksMeta)).messages[0].result;
    expect(created.resultType).toBe("task");
    const sid = await legacySession(alice);
    const legacy = (method: string, params: Record<string, unknown>) =>
      raw(url, { headers: jsonPost({ ...sessionHeaders(sid, LEGACY), ...bearer(alice) }), body: { jsonrpc: "2.0", id: 3, method, params } });
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) expect([method, (await legacy(method, { taskId: created.taskId })).messages[0].error?.code]).toEqual([method, -32602]);
    const own = (await legacy("tools/call", { name: "job", arguments: {}, task: {} })).messages[0].result.task;
    const listed = (await legacy("tasks/list", {})).messages[0].result.tasks.map((t: { taskId: string }) => t.taskId);
    expect([listed.includes(own.taskId), listed.includes(created.taskId)]).toEqual([true, false]);
  });

  it("2025-11-25: tasks/list shows only the principal's tasks, across its sessions; another principal's tasks/result is refused", async () => {
    const alice = await as.clientCredentials(url, "tools:read", "cc-alice");
    const bob = await as.clientCredentials(url, "tools:read", "cc-bob");
    const [a1, a2, b] = [await legacySession(alice), await legacySession(alice), await legacySession(bob)];
    const post = (token: string, sid: string, method: string, params: Record<string, unknown>) =>
      raw(url, { headers: jsonPost({ ...sessionHeaders(sid, LEGACY), ...bearer(token) }), body: { jsonrpc: "2.0", id: 9, method, params } });
    const created = (await post(alice, a1, "tools/call", { name: "job", arguments: {}, task: {} })).messages[0].result.task;
    // Bound to the principal, not the session: alice's other session sees it, bob's does not.
    expect((await post(alice, a2, "tasks/list", {})).messages[0].result.tasks.map((t: { taskId: string }) => t.taskId)).toContain(created.taskId);
    expect((await post(bob, b, "tasks/list", {})).messages[0].result.tasks).toEqual([]);
    expect((await post(bob, b, "tasks/result", { taskId: created.taskId })).messages[0].error.code).toBe(-32602);
    expect((await post(alice, a2, "tasks/result", { taskId: created.taskId })).messages[0].result.content[0].text).toBe("job done");
  });
});

describe("every entry and transport", () => {
  it("a 2025-03-26 batch: a request whose tool needs a scope the token lacks is refused inside the batch, the rest answered", async () => {
    const revision = "2025-03-26";
    expect(rules.supportsBatches(revision)).toBe(true);
    const token = await as.clientCredentials(url, "tools:read");
    const init = await raw(url, { headers: jsonPost(bearer(token)), body: initializeBody(revision) });
    const sid = String(init.headers["mcp-session-id"]);
    await raw(url, { headers: jsonPost({ ...sessionHeaders(sid, revision), ...bearer(token) }), body: { jsonrpc: "2.0", method: "notifications/initialized" } });
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "admin", arguments: {} } },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "ok" } } },
      // Subscribing to a scoped resource needs its scope, inside a batch too.
      { jsonrpc: "2.0", id: 3, method: "resources/subscribe", params: { uri: "app://private" } },
    ];
    const r = await raw(url, { headers: jsonPost({ ...sessionHeaders(sid, revision), ...bearer(token) }), body: batch });
    const [first, second, third] = [...r.messages.flat()].sort((a, b) => a.id - b.id);
    expect(first.error.message).toMatch(/insufficient_scope.*tools:admin/);
    expect(first.error.data).toEqual({ error: "insufficient_scope", scope: "tools:admin" });
    expect(second.result.content[0].text).toBe("ok");
    expect(third.error.data).toEqual({ error: "insufficient_scope", scope: "tools:admin" });
  });

  it("the 2024-11-05 HTTP+SSE transport: the GET stream and its POSTs need the token, and of the same principal", async () => {
    const h = await authFixture().serveHttp({ port: 0, quiet: true, legacySse: true, authorization: { issuer: as.issuer } });
    as.resources.add(h.url);
    try {
      const sse = new URL("/sse", h.url).href;
      expect((await raw(sse, { method: "GET", headers: { accept: "text/event-stream" } })).status).toBe(401);
      const alice = await as.clientCredentials(h.url, "tools:read", "cc-alice");
      const bob = await as.clientCredentials(h.url, "tools:read", "cc-bob");
      const stream = await raw(sse, { method: "GET", headers: { accept: "text/event-stream", ...bearer(alice) }, until: (e) => e.some((x) => x.event === "endpoint") });
      const endpoint = stream.events.find((e) => e.event === "endpoint")!.data;
      const post = new URL(endpoint, h.url).href;
      const body = initializeBody("2024-11-05");
      expect((await raw(post, { headers: jsonPost(), body })).status).toBe(401);
      expect((await raw(post, { headers: jsonPost(bearer(bob)), body })).status).toBe(404);
    } finally {
      await h.close();
    }
  });

  it("nodeHandler mounted at a path serves the metadata documents too (with next, as in Express)", async () => {
    const server = authFixture();
    const handler = server.nodeHandler({ path: "/api/mcp", authorization: { issuer: as.issuer, resource: "http://127.0.0.1/api/mcp" } });
    const http = createHttpServer((req, res) => handler(req, res, () => res.writeHead(418).end()));
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    try {
      const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      const prm = await raw(`${base}/.well-known/oauth-protected-resource/api/mcp`, { method: "GET" });
      expect(prm.json.resource).toBe("http://127.0.0.1/api/mcp");
      expect((await raw(`${base}/elsewhere`, { method: "GET" })).status).toBe(418);
      const { body, headers } = modernRequest(1, "tools/list");
      const r = await raw(`${base}/api/mcp`, { headers, body });
      expect(r.status).toBe(401);
      expect(challenge(r.headers["www-authenticate"]).resource_metadata).toBe("http://127.0.0.1/.well-known/oauth-protected-resource/api/mcp");
    } finally {
      await handler.close();
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    }
  });

  it("fetchHandler: the same challenge and principal (web-standard Request/Response)", async () => {
    const resource = "http://localhost/mcp";
    as.resources.add(resource);
    const handler = authFixture().fetchHandler({ authorization: { issuer: as.issuer, resource } });
    try {
      const { body, headers } = modernRequest(1, "tools/call", { name: "whoami", arguments: {} });
      const none = await handler(new Request(resource, { method: "POST", headers, body: JSON.stringify(body) }));
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toContain('resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"');
      const token = await as.clientCredentials(resource, "tools:read");
      const ok = await handler(new Request(resource, { method: "POST", headers: { ...headers, ...bearer(token) }, body: JSON.stringify(body) }));
      expect(ok.status).toBe(200);
      const text = await ok.text();
      expect(text).toContain("cc-alice");
    } finally {
      await handler.close();
    }
  });
});

describe("other verifiers and configurations", () => {
  it("RFC 7662 introspection for opaque tokens (audience, activity checked)", async () => {
    const h = await authFixture().serveHttp({ port: 0, quiet: true, authorization: { issuer: as.issuer, audience: OPAQUE_RESOURCE, introspection: RS_CLIENT } });
    try {
      const opaque = await as.clientCredentials(OPAQUE_RESOURCE, "tools:read");
      expect(opaque.split(".").length).toBe(1);
      const { body, headers } = modernRequest(1, "tools/call", { name: "whoami", arguments: {} });
      const ok = await raw(h.url, { headers: { ...headers, ...bearer(opaque) }, body });
      expect(ok.status).toBe(200);
      expect(JSON.parse(ok.messages[0].result.content[0].text).subject).toBe("cc-alice");
      // A JWT (another resource's token): the introspection endpoint refuses it (unsupported_token_type). The audience
      // check of an introspected token is held by the next test.
      const jwt = await as.clientCredentials(url, "tools:read");
      const wrong = await raw(h.url, { headers: { ...headers, ...bearer(jwt) }, body });
      expect(wrong.status).toBe(401);
      expect(challenge(wrong.headers["www-authenticate"]).error).toBe("invalid_token");
      const junk = await raw(h.url, { headers: { ...headers, ...bearer("junk") }, body });
      expect(junk.status).toBe(401);
      expect(junk.json.error.message).toMatch(/not active/);
    } finally {
      await h.close();
    }
  });

  // Holds the audience check of introspected tokens (transport/http/authorization.ts, introspect: claims.aud): the
  // token is opaque, active, of this issuer and introspected fine; only its audience is another server's.
  // spec/2025-11-25/basic/authorization.mdx#token-audience-binding-and-validation
  it("RFC 7662 introspection: an active opaque token of this issuer for another audience is 401 invalid_token (audience)", async () => {
    const opaque = await as.clientCredentials(OPAQUE_RESOURCE, "tools:read");
    const serve = (audience: string) => authFixture().serveHttp({ port: 0, quiet: true, authorization: { issuer: as.issuer, audience, introspection: RS_CLIENT } });
    const [right, elsewhere] = await Promise.all([serve(OPAQUE_RESOURCE), serve("urn:test:another-opaque-server")]);
    try {
      const { body, headers } = modernRequest(1, "tools/call", { name: "whoami", arguments: {} });
      const ok = await raw(right.url, { headers: { ...headers, ...bearer(opaque) }, body });
      expect(ok.status).toBe(200);
      const wrong = await raw(elsewhere.url, { headers: { ...headers, ...bearer(opaque) }, body });
      expect(wrong.status).toBe(401);
      expect(challenge(wrong.headers["www-authenticate"]).error).toBe("invalid_token");
      expect(wrong.json.error.message).toMatch(/audience/);
      expect(wrong.text).not.toContain("cc-alice");
    } finally {
      await Promise.all([right.close(), elsewhere.close()]);
    }
  });

  it("an authorization server that cannot be reached: 503 (the token is not blamed), and served once it can", async () => {
    const h = await authFixture().serveHttp({ port: 0, quiet: true, authorization: { issuer: as.issuer, jwksUri: "http://127.0.0.1:1/jwks" } });
    as.resources.add(h.url);
    try {
      const token = await as.clientCredentials(h.url, "tools:read");
      const { body, headers } = modernRequest(1, "tools/list");
      const r = await raw(h.url, { headers: { ...headers, ...bearer(token) }, body });
      expect(r.status).toBe(503);
      expect(r.headers["www-authenticate"]).toBeUndefined();
      expect(r.json.error.message).toMatch(/^Service Unavailable: the access token cannot be verified now/);
    } finally {
      await h.close();
    }
  });

  it("a JWKS endpoint that answers 500 or HTML: 503 too, never invalid_token", async () => {
    const { createServer: createHttp } = await import("node:http");
    let body = "";
    const jwks = createHttp((_req, res) => (body === "html" ? res.writeHead(200, { "content-type": "text/html" }).end("<html>oops</html>") : res.writeHead(500).end("down")));
    await new Promise<void>((r) => jwks.listen(0, "127.0.0.1", r));
    const h = await authFixture().serveHttp({ port: 0, quiet: true, authorization: { issuer: as.issuer, jwksUri: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks` } });
    as.resources.add(h.url);
    try {
      const token = await as.clientCredentials(h.url, "tools:read");
      for (const mode of ["500", "html"]) {
        body = mode;
        const { body: req, headers } = modernRequest(1, "tools/list");
        const r = await raw(h.url, { headers: { ...headers, ...bearer(token) }, body: req });
        expect([mode, r.status, r.headers["www-authenticate"]]).toEqual([mode, 503, undefined]);
      }
    } finally {
      await h.close();
      jwks.close();
    }
  });

  it("a handler's resource must be an absolute http(s) URL without a fragment", () => {
    const server = authFixture();
    for (const resource of ["mcp.example.com/mcp", "https://mcp.example.com/mcp#x", "urn:mcp"]) {
      expect(() => server.fetchHandler({ authorization: { issuer: as.issuer, resource } })).toThrow(/authorization\.resource must be an absolute http\(s\) URL/);
    }
  });

  it("audienceCheck: false is explicit and warns; then a token for another resource of the issuer is accepted", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const h = await authFixture().serveHttp({ port: 0, quiet: true, authorization: { issuer: as.issuer, audienceCheck: false } });
    try {
      expect(warn.mock.calls.map((c) => String(c[0])).join("\n")).toMatch(/WARNING: authorization\.audienceCheck is false/);
      const token = await as.clientCredentials("http://127.0.0.1:1/another-server", "tools:read");
      const { body, headers } = modernRequest(1, "tools/list");
      expect((await raw(h.url, { headers: { ...headers, ...bearer(token) }, body })).status).toBe(200);
    } finally {
      warn.mockRestore();
      await h.close();
    }
  });

  it("typ: at+jwt and application/at+jwt (any case) by default, the real authorization server's tokens included; tokenTypes widens it with a note", async () => {
    const claims = { iss: as.issuer, aud: url, sub: "alice", scope: "tools:read", exp: now() + 600 };
    for (const typ of ["at+jwt", "application/at+jwt", "AT+JWT"]) expect((await call(await as.sign(claims, typ), "tools/list")).status, typ).toBe(200);
    expect((await call(await as.clientCredentials(url, "tools:read"), "tools/list")).status).toBe(200);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const h = await authFixture().serveHttp({ port: 0, quiet: true, authorization: { issuer: as.issuer, tokenTypes: ["at+jwt", "JWT"] } });
    try {
      expect(warn.mock.calls.map((c) => String(c[0])).join("\n")).toMatch(/note: authorization\.tokenTypes accepts JWTs of typ "at\+jwt", "jwt"/);
      as.resources.add(h.url);
      const send = async (typ: string | null) => {
        const { body, headers } = modernRequest(1, "tools/list");
        return (await raw(h.url, { headers: { ...headers, ...bearer(await as.sign({ ...claims, aud: h.url }, typ)) }, body })).status;
      };
      expect(await send("JWT")).toBe(200);
      expect(await send("at+jwt")).toBe(200);
      expect(await send(null)).toBe(401);
    } finally {
      warn.mockRestore();
      await h.close();
    }
  });

  it("exp and nbf have a small clock tolerance (30 s): just expired or just not yet valid is accepted, a minute is not", async () => {
    const base = { iss: as.issuer, aud: url, sub: "alice", scope: "tools:read" };
    expect((await call(await as.sign({ ...base, exp: now() - 10 }), "tools/list")).status).toBe(200);
    expect((await call(await as.sign({ ...base, nbf: now() + 10, exp: now() + 600 }), "tools/list")).status).toBe(200);
    expect((await call(await as.sign({ ...base, exp: now() - 60 }), "tools/list")).status).toBe(401);
  });

  it("a custom verifier", async () => {
    const h = await authFixture().serveHttp({
      port: 0,
      quiet: true,
      authorization: { issuer: "https://issuer.invalid", verify: (token) => (token === "let-me-in" ? { subject: "dev", scopes: ["tools:read"], claims: {} } : undefined) },
    });
    try {
      const { body, headers } = modernRequest(1, "tools/call", { name: "echo", arguments: { text: "hi" } });
      expect((await raw(h.url, { headers: { ...headers, ...bearer("let-me-in") }, body })).messages[0].result.content[0].text).toBe("hi");
      expect((await raw(h.url, { headers: { ...headers, ...bearer("nope") }, body })).status).toBe(401);
    } finally {
      await h.close();
    }
  });

  it("requiredScopes: every request needs them (403), and the 401 challenge names them", async () => {
    const h = await authFixture().serveHttp({ port: 0, quiet: true, authorization: { issuer: as.issuer, requiredScopes: ["tools:read"] } });
    as.resources.add(h.url);
    try {
      const { body, headers } = modernRequest(1, "tools/list");
      const none = await raw(h.url, { headers, body });
      expect(challenge(none.headers["www-authenticate"]).scope).toBe("tools:read");
      const token = await as.clientCredentials(h.url, "prompts:read");
      const r = await raw(h.url, { headers: { ...headers, ...bearer(token) }, body });
      expect(r.status).toBe(403);
      expect(challenge(r.headers["www-authenticate"]).error).toBe("insufficient_scope");
    } finally {
      await h.close();
    }
  });

  it("with authorization, serveHttp binds a public address without allowRemote, given its public URL; handlers need the resource", async () => {
    const server = authFixture();
    await expect(server.serveHttp({ host: "0.0.0.0", port: 0, quiet: true, authorization: { issuer: as.issuer } })).rejects.toThrow(/authorization\.resource/);
    const h = await server.serveHttp({ host: "0.0.0.0", port: 0, quiet: true, authorization: { issuer: as.issuer, resource: "https://mcp.example.com/mcp" } });
    await h.close();
    await expect(server.serveHttp({ host: "0.0.0.0", port: 0, quiet: true })).rejects.toThrow(/^serveHttp: refusing to bind 0\.0\.0\.0 without authentication: [^\n]+$/);
    expect(() => server.fetchHandler({ authorization: { issuer: as.issuer } })).toThrow(/authorization\.resource is required/);
    expect(() => server.nodeHandler({ authorization: { issuer: as.issuer } })).toThrow(/authorization\.resource is required/);
  });
});
