/**
 * Legacy sessions served by several processes over one Redis (session store, event log, bus), as a client that does
 * odd things, or a Redis that misbehaves, would find them. spec/2025-11-25/basic/transports.mdx#session-management,
 * spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery, spec/2025-11-25/basic/transports.mdx#multiple-connections
 */
import { Redis } from "ioredis";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { LocalBus, MemorySessions, RedisBus, createServer } from "../../runtime/dist/index.js";
import { afterAll, describe, expect, it } from "vitest";
import { REDIS_URL, hasRedis } from "../services.js";
import { type Fixture, initializeBody, jsonPost, raw, sessionHeaders, sharedPair, startFixture } from "./http-helpers.js";

const LEGACY = "2025-11-25";
const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("legacy sessions across processes, adversarially (Redis)", async () => {
  const available = await hasRedis();
  const prefix = `adv-${process.pid}-${Date.now()}:`;
  const pair = sharedPair(REDIS_URL, prefix, "adv");
  afterAll(async () => {
    await pair.stop();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });
  const both = pair.urls;
  const open = pair.open;

  it.runIf(available)("a session kept in the older layout (one JSON string at session:<id>) is still served, and DELETE ends it, on either process", async () => {
    const { ua, ub } = await both();
    const sid = "oldLayoutSession0000000000000000";
    const redis = new Redis(REDIS_URL);
    try {
      const record = { id: sid, revision: LEGACY, clientCapabilities: {}, clientInfo: { name: "old", version: "1" }, initialized: true, subscriptions: ["test://watched-resource"] };
      await redis.set(`${prefix}session:${sid}`, JSON.stringify(record), "PX", 60_000);
      const h = jsonPost(sessionHeaders(sid, LEGACY));
      const r = await raw(ub, { headers: h, body: call(2, "whoami") });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.messages[0].result.content[0].text)).toMatchObject({ client: "old", revision: LEGACY });
      // A change of it is stored (not a WRONGTYPE error), and the other process restores it with the change.
      expect((await raw(ub, { headers: h, body: { jsonrpc: "2.0", id: 3, method: "logging/setLevel", params: { level: "error" } } })).status).toBe(200);
      expect((await raw(ua, { headers: h, body: call(4, "echo", { text: "on A" }) })).status).toBe(200);
      expect((await raw(ua, { method: "DELETE", headers: sessionHeaders(sid, LEGACY) })).status).toBe(200);
      expect((await raw(ub, { headers: h, body: call(5, "echo", { text: "gone" }) })).status).toBe(404);
    } finally {
      redis.disconnect();
    }
  });

  it.runIf(available)("a second GET stream of the session on another process: a change notification goes out on one stream, not on both", async () => {
    const { ua, ub, h, get } = await open();
    const changed = (events: { data: string }[]) => events.some((e) => e.data.includes("list_changed"));
    const onA = raw(ua, { method: "GET", headers: get, until: changed, timeoutMs: 1500 });
    await sleep(300);
    const onB = raw(ub, { method: "GET", headers: get, until: changed, timeoutMs: 1500 });
    await sleep(300);
    await raw(ua, { headers: h, body: call(2, "touch") });
    const [ra, rb] = await Promise.all([onA, onB]);
    const count = (r: { messages: { method?: string }[] }) => r.messages.filter((m) => m.method === "notifications/tools/list_changed").length;
    // spec/2025-11-25/basic/transports.mdx#multiple-connections: each message on only one of the connected streams.
    expect(count(ra) + count(rb)).toBe(1);
    // The newest one carries it; the older one on A was ended.
    expect(count(rb)).toBe(1);
  });

  it.runIf(available)("a stream of A resumed twice at once on B: the second is refused (409) and the first ends with the stream", async () => {
    const { ua, ub, h, get } = await open();
    const first = await raw(ua, { headers: h, body: call(2, "two_parts", { ms: 1200 }), until: (events) => events.some((e) => e.data.includes("part 1")) });
    const lastId = first.events.filter((e) => e.id).at(-1)!.id!;
    const started = Date.now();
    let firstEnded = 0;
    const one = raw(ub, { method: "GET", headers: { ...get, "last-event-id": lastId }, timeoutMs: 6000 }).then((r) => ((firstEnded = Date.now() - started), r));
    await sleep(200);
    const two = await raw(ub, { method: "GET", headers: { ...get, "last-event-id": lastId }, timeoutMs: 6000 });
    expect(two.status).toBe(409);
    const r1 = await one;
    expect(r1.messages.find((m) => m.id === 2)?.result.content[0].text).toBe("both parts");
    expect(firstEnded).toBeLessThan(5000);
  });

  it.runIf(available)("a stream of A resumed on B, then again on A: B's connection ends, and the rest goes out on A's only", async () => {
    const { ua, ub, h, get } = await open();
    const first = await raw(ua, { headers: h, body: call(2, "two_parts", { ms: 1200 }), until: (events) => events.some((e) => e.data.includes("part 1")) });
    const lastId = first.events.filter((e) => e.id).at(-1)!.id!;
    const onB = raw(ub, { method: "GET", headers: { ...get, "last-event-id": lastId }, timeoutMs: 6000 });
    await sleep(200);
    const onA = await raw(ua, { method: "GET", headers: { ...get, "last-event-id": lastId }, timeoutMs: 6000 });
    const b = await onB;
    // Each message on one connection: the response on the newest, none on the one it replaced.
    expect(onA.messages.find((m) => m.id === 2)?.result.content[0].text).toBe("both parts");
    expect(b.messages.some((m) => m.id === 2)).toBe(false);
  });

  it.runIf(available)(
    "odd Last-Event-IDs (huge, zero, negative, another session's stream) on a process that did not write them: an empty stream or a fresh GET stream, and the process lives",
    async () => {
      const one = await open();
      const other = await open();
      const theirs = await raw(other.ua, { headers: other.h, body: call(2, "two_parts", { ms: 10 }) });
      const theirId = theirs.events.filter((e) => e.id).at(-1)!.id!;
      for (const id of ["999999999999999-999999999999999", "0-0", "-1-1", "1-", "x", theirId, `${theirId.split("-")[0]}-0`]) {
        const r = await raw(one.ub, { method: "GET", headers: { ...one.get, "last-event-id": id }, timeoutMs: 400 });
        expect(r.status).toBe(200);
        // Never another session's events.
        expect(r.messages.some((m) => m.id === 2)).toBe(false);
      }
      expect((await raw(one.ub, { headers: one.h, body: call(3, "echo", { text: "alive" }) })).status).toBe(200);
      expect((await raw(one.ua, { headers: one.h, body: call(4, "echo", { text: "alive" }) })).status).toBe(200);
    },
  );
});

/** A TCP proxy to Redis that can stop carrying bytes (a Redis that hangs, or a network that drops packets) or go away. */
async function redisProxy() {
  const { createServer, connect } = await import("node:net");
  const target = new URL(REDIS_URL);
  const sockets = new Set<import("node:net").Socket>();
  let frozen = false;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => sockets.delete(s));
    }
    client.on("data", (d) => void (frozen || upstream.write(d)));
    upstream.on("data", (d) => void (frozen || client.write(d)));
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `redis://127.0.0.1:${(server.address() as import("node:net").AddressInfo).port}`,
    freeze: () => void (frozen = true),
    close: () => {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

describe("legacy sessions when Redis stops answering", async () => {
  const available = await hasRedis();
  const prefix = `adv-${process.pid}-${Date.now()}-down:`;
  const fixtures: Fixture[] = [];
  afterAll(async () => {
    await Promise.all(fixtures.map((f) => f.stop()));
  });

  it.runIf(available)("a Redis that hangs mid-session: a request of the session is answered with an error within seconds, not held for ever", { timeout: 30_000 }, async () => {
    const proxy = await redisProxy();
    const f = await startFixture({ MCP_REDIS_URL: proxy.url, MCP_REDIS_PREFIX: prefix });
    fixtures.push(f);
    try {
      const init = await raw(f.url, { headers: jsonPost(), body: initializeBody(LEGACY, 1, "adv") });
      expect(init.status).toBe(200);
      const sid = String(init.headers["mcp-session-id"]);
      const h = jsonPost(sessionHeaders(sid, LEGACY));
      expect((await raw(f.url, { headers: h, body: { jsonrpc: "2.0", method: "notifications/initialized" } })).status).toBe(202);
      proxy.freeze();
      // 5 s per command, twice at most: the batch of notifications/initialized's change may be on its way before it.
      const started = Date.now();
      const r = await raw(f.url, { headers: h, body: call(2, "echo", { text: "x" }), timeoutMs: 20_000 });
      expect(Date.now() - started).toBeLessThan(12_000);
      // A store outage, not a failure of the server's own: 503 and when to retry (docs/deploy.md).
      expect(r.status).toBe(503);
      expect(Number(r.headers["retry-after"])).toBeGreaterThan(0);
      expect(r.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32603, message: "Service Unavailable: the session store could not be reached; try again" } });
    } finally {
      proxy.close();
    }
  });

  it.runIf(available)("a Redis gone mid-session: requests (POST, GET, DELETE) are answered 503 with Retry-After at once, and the process lives on", { timeout: 30_000 }, async () => {
    const proxy = await redisProxy();
    const f = await startFixture({ MCP_REDIS_URL: proxy.url, MCP_REDIS_PREFIX: prefix });
    fixtures.push(f);
    const init = await raw(f.url, { headers: jsonPost(), body: initializeBody(LEGACY, 1, "adv") });
    const sid = String(init.headers["mcp-session-id"]);
    const h = jsonPost(sessionHeaders(sid, LEGACY));
    proxy.close();
    for (const body of [call(2, "echo", { text: "x" }), { jsonrpc: "2.0", id: 3, method: "logging/setLevel", params: { level: "error" } }]) {
      const started = Date.now();
      const r = await raw(f.url, { headers: h, body, timeoutMs: 20_000 });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(r.status).toBe(503);
      expect(Number(r.headers["retry-after"])).toBeGreaterThan(0);
    }
    const get = await raw(f.url, { method: "GET", headers: { accept: "text/event-stream", ...sessionHeaders(sid, LEGACY), "last-event-id": "5-1" }, timeoutMs: 5000 });
    expect(get.status).toBe(503);
    expect(Number(get.headers["retry-after"])).toBeGreaterThan(0);
    const del = await raw(f.url, { method: "DELETE", headers: sessionHeaders(sid, LEGACY), timeoutMs: 5000 });
    expect(del.status).toBe(503);
    expect(Number(del.headers["retry-after"])).toBeGreaterThan(0);
    expect(f.child.exitCode).toBeNull();
  });
});

describe("legacy sessions across servers: requests naming sessions that do not exist", async () => {
  const available = await hasRedis();
  const servers: import("node:http").Server[] = [];
  afterAll(async () => {
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });
  /** The channels a bus keeps (its own bookkeeping, where a leak would show). */
  const channels = (bus: object) => (bus as unknown as { channels: Map<string, Set<unknown>> }).channels;

  it("each one is 404, and none leaves its channel behind on the bus (a client could grow a process's memory with made-up ids)", async () => {
    class SharedMemory extends MemorySessions {
      override readonly shared = true as never;
    }
    const bus = new LocalBus();
    const mcp = createServer({ name: "ids", version: "1.0.0", sessions: new SharedMemory(), bus });
    const handler = mcp.nodeHandler({ path: "/mcp" });
    const http = createHttpServer((req, res) => handler(req, res));
    servers.push(http);
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    // A first request (the server's own channels are made on first use).
    expect((await raw(url, { headers: jsonPost(sessionHeaders("made-up", LEGACY)), body: { jsonrpc: "2.0", id: 0, method: "ping" } })).status).toBe(404);
    const before = channels(bus).size;
    for (let i = 0; i < 50; i++) {
      const sid = `made-up-${i}-${"z".repeat(2000)}`;
      const r = await raw(url, { headers: jsonPost(sessionHeaders(sid, LEGACY)), body: { jsonrpc: "2.0", id: i, method: "ping" } });
      expect(r.status).toBe(404);
    }
    expect(channels(bus).size).toBe(before);
  });

  it.runIf(available)("RedisBus forgets a channel once its last subscriber leaves", async () => {
    const bus = new RedisBus(REDIS_URL, { prefix: `adv-${process.pid}-${Date.now()}-bus:` });
    try {
      for (let i = 0; i < 100; i++) bus.subscribe(`session:${i}`, () => {})();
      const off = [bus.subscribe("kept", () => {}), bus.subscribe("kept", () => {})];
      off[0]();
      expect([...channels(bus).keys()]).toEqual(["kept"]);
      off[1]();
      expect(channels(bus).size).toBe(0);
    } finally {
      await bus.close();
    }
  });
});
