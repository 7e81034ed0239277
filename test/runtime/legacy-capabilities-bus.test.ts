/**
 * A legacy session keeps the capabilities it was told at initialize (spec/2025-11-25/basic/lifecycle.mdx#capability-negotiation):
 * two server instances (two processes' worth: each its own RedisBus, so its own origin on the bus) share a real Redis
 * bus. When the last tool is removed, a session told `tools.listChanged` hears notifications/tools/list_changed on its
 * GET stream and its tools/list answers an empty list (was -32601: the method's capability had gone from what the
 * server declares now); a new session is told no `tools`. A session on the other instance hears the change too, and
 * still lists that instance's own tool.
 */
import { request as httpRequest } from "node:http";
import { createParser } from "eventsource-parser";
import { afterAll, describe, expect, it } from "vitest";
import { RedisBus, createServer, type HttpHandle } from "../../runtime/dist/index.js";
import { REDIS_URL, hasRedis } from "../services.js";
import { jsonPost, initializeBody, openSession, raw, sessionHeaders, waitFor } from "./http-helpers.js";

const LEGACY = "2025-11-25";
const redisUp = await hasRedis();

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c().catch(() => {});
});

/** A session's GET stream: the JSON-RPC messages it carries, collected; resolves once the stream is open (200). */
function getStream(url: string, sid: string): Promise<{ messages: any[] }> {
  const u = new URL(url);
  const messages: any[] = [];
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: "GET", headers: { accept: "text/event-stream", ...sessionHeaders(sid, LEGACY) }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET stream: HTTP ${res.statusCode}`));
      const parser = createParser({ onEvent: (e) => e.data && messages.push(JSON.parse(e.data)) });
      res.setEncoding("utf8");
      res.on("data", (c: string) => parser.feed(c));
      resolve({ messages });
    });
    req.on("error", reject);
    req.end();
    closers.push(async () => req.destroy());
  });
}

async function instance(prefix: string): Promise<{ server: ReturnType<typeof createServer>; url: string }> {
  const bus = new RedisBus(REDIS_URL, { prefix });
  await bus.ready;
  const server = createServer({ name: "told", version: "1", bus });
  server.tool({ name: "only", inputSchema: { type: "object" }, handler: () => ({ content: [{ type: "text", text: "ok" }] }) });
  const h: HttpHandle = await server.serveHttp({ port: 0, quiet: true });
  closers.push(() => bus.close());
  closers.push(() => h.close());
  return { server, url: h.url };
}

const listChanged = (m: any) => m.method === "notifications/tools/list_changed";

describe.runIf(redisUp)("a legacy session keeps the capabilities it was told at initialize (two instances on one Redis bus)", () => {
  it("the last tool removed: its session hears list_changed and tools/list answers []; a new session is told no tools; the other instance's session hears it and lists its own tool", async () => {
    const prefix = `told-${process.pid}-${Date.now()}:`;
    const [a, b] = [await instance(prefix), await instance(prefix)];
    const [sa, sb] = [await openSession(a.url, LEGACY), await openSession(b.url, LEGACY)];
    const [ga, gb] = [await getStream(a.url, sa), await getStream(b.url, sb)];
    const list = async (url: string, sid: string) => (await raw(url, { headers: jsonPost(sessionHeaders(sid, LEGACY)), body: { jsonrpc: "2.0", id: 7, method: "tools/list", params: {} } })).json;

    a.server.removeTool("only");
    expect(await waitFor(() => ga.messages.some(listChanged)), "session on A: list_changed").toBe(true);
    expect(await list(a.url, sa)).toEqual({ jsonrpc: "2.0", id: 7, result: { tools: [] } });
    const fresh = await raw(a.url, { headers: jsonPost(), body: initializeBody(LEGACY) });
    expect(fresh.json.result.capabilities).toEqual({ logging: {} });

    // The event went over Redis to B, whose session was told tools.listChanged by B (which still has its tool).
    expect(await waitFor(() => gb.messages.some(listChanged)), "session on B: list_changed over the bus").toBe(true);
    expect((await list(b.url, sb)).result.tools.map((t: any) => t.name)).toEqual(["only"]);

    // B's last tool goes too: B's session is told, and lists nothing; A's session hears B's change over the bus.
    const before = ga.messages.filter(listChanged).length;
    b.server.removeTool("only");
    expect(await waitFor(() => gb.messages.filter(listChanged).length >= 2)).toBe(true);
    expect(await list(b.url, sb)).toEqual({ jsonrpc: "2.0", id: 7, result: { tools: [] } });
    expect(await waitFor(() => ga.messages.filter(listChanged).length > before), "session on A: B's change over the bus").toBe(true);
  });
});
