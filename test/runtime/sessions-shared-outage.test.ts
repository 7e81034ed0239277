// A shared session store (Redis) that cannot be reached: every legacy request that needs it is 503 with Retry-After
// and a JSON-RPC error that says so, never 500 nor the driver's words (docs/deploy.md, "A store that cannot be
// reached"). Redis is cut by closing a TCP proxy in front of the shared Redis (the service itself is never stopped),
// or named on a port nothing listens on.
import { type Server, type Socket, connect, createServer as createTcpServer } from "node:net";
import type { AddressInfo } from "node:net";
import { LocalBus, RedisSessions, createServer } from "../../runtime/dist/index.js";
import { afterAll, describe, expect, it } from "vitest";
import { REDIS_URL, hasRedis } from "../services.js";
import { initializeBody, jsonPost, raw, sessionHeaders } from "./http-helpers.js";

const LEGACY = "2025-11-25";
const redisUp = await hasRedis();

/** A TCP proxy to the shared Redis; `cut()` stops listening and resets every connection through it. */
async function redisProxy(): Promise<{ url: string; cut(): Promise<void> }> {
  const target = new URL(REDIS_URL);
  const sockets = new Set<Socket>();
  const server: Server = createTcpServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    cut: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
      }),
  };
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of closers) await c().catch(() => {});
});

/** An answer of a store outage: 503, Retry-After in seconds, -32603 saying the store is unavailable, no driver words. */
function expectUnavailable(r: { status: number; headers: Record<string, string | string[] | undefined>; text: string }, what: string): void {
  expect(r.status, `${what}: ${r.text}`).toBe(503);
  expect(Number(r.headers["retry-after"]), `${what}: Retry-After`).toBeGreaterThan(0);
  const body = JSON.parse(r.text) as { error: { code: number; message: string } };
  expect(body.error.code).toBe(-32603);
  expect(body.error.message).toMatch(/session store could not be reached/);
  expect(r.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|Connection is closed|max retries/i);
}

type Entry = {
  name: string;
  start(sessionsUrl: string): Promise<{
    url: string;
    request(url: string, init: { method: string; headers: Record<string, string>; body?: unknown }): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>;
  }>;
};

const viaNode = async (init: { method: string; headers: Record<string, string>; body?: unknown }, url: string) => {
  const r = await raw(url, { method: init.method, headers: init.headers, body: init.body as object | undefined, timeoutMs: 15_000 });
  return { status: r.status, headers: r.headers, text: r.text };
};

const entries: Entry[] = [
  {
    name: "serveHttp",
    async start(sessionsUrl) {
      const mcp = createServer({ name: "outage", version: "1.0.0", sessions: new RedisSessions(sessionsUrl, { prefix: `outage:${process.pid}:` }), bus: new LocalBus() });
      const h = await mcp.serveHttp({ port: 0, quiet: true });
      closers.push(() => h.close());
      return { url: h.url, request: (url, init) => viaNode(init, url) };
    },
  },
  {
    name: "fetchHandler",
    async start(sessionsUrl) {
      const mcp = createServer({ name: "outage", version: "1.0.0", sessions: new RedisSessions(sessionsUrl, { prefix: `outage:${process.pid}:` }), bus: new LocalBus() });
      const handler = mcp.fetchHandler();
      return {
        url: "http://127.0.0.1/mcp",
        async request(url, init) {
          const res = await handler(new Request(url, { method: init.method, headers: init.headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) }));
          const headers: Record<string, string> = {};
          res.headers.forEach((v, k) => (headers[k] = v));
          // An SSE answer would not end: a store outage is answered before any stream starts.
          return { status: res.status, headers, text: await res.text() };
        },
      };
    },
  },
];

describe.skipIf(!redisUp)("a shared session store that cannot be reached: 503 with Retry-After (docs/deploy.md)", () => {
  for (const entry of entries) {
    it(`${entry.name}: POST, GET and DELETE of a session held here, once Redis is cut, and initialize: each 503 with Retry-After`, async () => {
      const proxy = await redisProxy();
      const { url, request } = await entry.start(proxy.url);
      const init = await request(url, { method: "POST", headers: jsonPost(), body: initializeBody(LEGACY, 1, "outage") });
      expect(init.status, init.text).toBe(200);
      const sid = String(init.headers["mcp-session-id"]);
      const h = jsonPost(sessionHeaders(sid, LEGACY));
      expect((await request(url, { method: "POST", headers: h, body: { jsonrpc: "2.0", method: "notifications/initialized" } })).status).toBe(202);
      await proxy.cut();
      expectUnavailable(await request(url, { method: "POST", headers: h, body: { jsonrpc: "2.0", id: 2, method: "ping" } }), "POST");
      expectUnavailable(await request(url, { method: "GET", headers: { accept: "text/event-stream", ...sessionHeaders(sid, LEGACY) } }), "GET");
      expectUnavailable(await request(url, { method: "DELETE", headers: sessionHeaders(sid, LEGACY) }), "DELETE");
      expectUnavailable(await request(url, { method: "POST", headers: jsonPost(), body: initializeBody(LEGACY, 3, "outage") }), "initialize");
    });

    it(`${entry.name}: Redis on a closed port: a session another process opened (POST, GET, DELETE) is 503 with Retry-After`, async () => {
      const { url, request } = await entry.start(`redis://127.0.0.1:${await closedPort()}`);
      const headers = sessionHeaders("a-session-elsewhere", LEGACY);
      expectUnavailable(await request(url, { method: "POST", headers: jsonPost(headers), body: { jsonrpc: "2.0", id: 2, method: "ping" } }), "POST");
      expectUnavailable(await request(url, { method: "GET", headers: { accept: "text/event-stream", ...headers } }), "GET");
      expectUnavailable(await request(url, { method: "DELETE", headers }), "DELETE");
    });
  }
});
