/**
 * A legacy session's principal binding holds across processes: two servers (standing for two processes) share their
 * sessions through the real Redis (RedisSessions + RedisBus) and trust one real authorization server (oidc-provider).
 * A session alice opened on A is served to alice on B, and to bob nowhere. spec/2025-11-25/basic/authorization.mdx#token-requirements
 */
import { afterAll, describe, expect, it } from "vitest";
import { createServer, RedisBus, RedisSessions, type HttpHandle } from "../../runtime/dist/index.js";
import { initializeBody, jsonPost, raw, sessionHeaders } from "../runtime/http-helpers.js";
import { REDIS_URL, hasRedis } from "../services.js";
import { startAuthorizationServer, type AuthorizationServer } from "./authorization-server.js";

const LEGACY = "2025-11-25";
const RESOURCE = "http://mcp.shared.test/mcp";

describe("principal binding of shared sessions", async () => {
  const available = await hasRedis();
  const prefix = `mcp-auth-test-${process.pid}-${Date.now()}:`;
  let as: AuthorizationServer | undefined;
  const handles: HttpHandle[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    await Promise.all(handles.map((h) => h.close()));
    await Promise.all(closers.map((c) => c().catch(() => {})));
    await as?.close();
  });
  const start = async () => {
    as ??= await startAuthorizationServer();
    as.resources.add(RESOURCE);
    const sessions = new RedisSessions(REDIS_URL, { prefix });
    const bus = new RedisBus(REDIS_URL, { prefix });
    closers.push(
      () => sessions.close(),
      () => bus.close(),
    );
    const server = createServer({ name: "shared-auth", version: "1.0.0", sessions, bus });
    server.tool({ name: "whoami", inputSchema: { type: "object" }, handler: (_a, ctx) => ({ content: [{ type: "text", text: String(ctx.principal?.subject) }] }) });
    const h = await server.serveHttp({ port: 0, quiet: true, authorization: { issuer: as.issuer, resource: RESOURCE } });
    handles.push(h);
    return h.url;
  };

  it.runIf(available)("alice's session opened on A is alice's on B; bob's token gets 404 on both", async () => {
    const [a, b] = [await start(), await start()];
    const alice = await as!.clientCredentials(RESOURCE, "", "cc-alice");
    const bob = await as!.clientCredentials(RESOURCE, "", "cc-bob");
    const auth = (t: string) => ({ authorization: `Bearer ${t}` });
    const init = await raw(a, { headers: jsonPost(auth(alice)), body: initializeBody(LEGACY) });
    const sid = String(init.headers["mcp-session-id"]);
    const h = (t: string) => jsonPost({ ...sessionHeaders(sid, LEGACY), ...auth(t) });
    expect((await raw(b, { headers: h(alice), body: { jsonrpc: "2.0", method: "notifications/initialized" } })).status).toBe(202);
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "whoami", arguments: {} } };
    for (const url of [b, a]) {
      const stolen = await raw(url, { headers: h(bob), body: call });
      expect(stolen.status).toBe(404);
      expect(stolen.text).not.toContain("cc-alice");
    }
    const own = await raw(b, { headers: h(alice), body: call });
    expect(own.messages[0].result.content[0].text).toBe("cc-alice");
  });
});
