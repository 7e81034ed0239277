/**
 * The message bus over Redis pub/sub (runtime/src/state/bus-redis.ts), against the real Redis of this machine: two
 * RedisBus instances stand for two processes; then two real server processes, where a resources/updated published on
 * A reaches a 2026-07-28 subscriptions/listen stream on B and a legacy session (resources/subscribe, the official SDK
 * 1.x client) on B, and A's own listen stream hears each event once (its echo from Redis is dropped).
 */
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Http1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { McpClient, RedisBus, type ServerEvent, StreamableHttpClientTransport, createServer } from "../../runtime/dist/index.js";
import { ROOT } from "../helpers.js";
import { REDIS_URL, hasRedis } from "../services.js";
import { type Fixture, MODERN, startFixture } from "./http-helpers.js";

const FIXTURE = join(ROOT, "test", "fixtures", "bus-fixture.mjs");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Channels of their own per run. */
const PREFIX = `mcp-test-bus-${process.pid}-${Date.now()}:`;

describe("RedisBus", async () => {
  const available = await hasRedis();
  const buses: RedisBus[] = [];
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.close()));
  });

  it.runIf(available)("delivers here at once and synchronously, elsewhere in publish order, and never echoes a process's own messages", async () => {
    const a = new RedisBus(REDIS_URL, { prefix: PREFIX });
    const b = new RedisBus(REDIS_URL, { prefix: PREFIX });
    buses.push(a, b);
    await Promise.all([a.ready, b.ready]);
    const onA: unknown[] = [];
    const onB: unknown[] = [];
    const other: unknown[] = [];
    a.subscribe("events", (m) => onA.push(m.n));
    b.subscribe("events", (m) => onB.push(m.n));
    b.subscribe("elsewhere", (m) => other.push(m));
    for (let n = 1; n <= 20; n++) {
      a.publish("events", { n });
      expect(onA.length).toBe(n); // synchronously, before publish returned
    }
    for (let i = 0; i < 100 && onB.length < 20; i++) await sleep(20);
    expect(onB).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // A round trip through Redis after the last one: had the echo come back, it would be here by now.
    b.publish("events", { n: "from b" });
    for (let i = 0; i < 100 && onA.length < 21; i++) await sleep(20);
    expect(onA).toEqual([...Array.from({ length: 20 }, (_, i) => i + 1), "from b"]);
    expect(onB.filter((n) => n === "from b")).toHaveLength(1);
    expect(other).toEqual([]);
  });

  it.runIf(available)("an unsubscribed handler hears nothing more; another prefix is another bus", async () => {
    const a = new RedisBus(REDIS_URL, { prefix: PREFIX });
    const b = new RedisBus(REDIS_URL, { prefix: PREFIX });
    const foreign = new RedisBus(REDIS_URL, { prefix: `${PREFIX}other:` });
    buses.push(a, b, foreign);
    await Promise.all([a.ready, b.ready, foreign.ready]);
    const heard: unknown[] = [];
    const foreignHeard: unknown[] = [];
    const stop = b.subscribe("c", (m) => heard.push(m.n));
    foreign.subscribe("c", (m) => foreignHeard.push(m.n));
    a.publish("c", { n: 1 });
    for (let i = 0; i < 100 && heard.length < 1; i++) await sleep(20);
    stop();
    a.publish("c", { n: 2 });
    const marker: unknown[] = [];
    b.subscribe("marker", (m) => marker.push(m));
    a.publish("marker", { done: true });
    for (let i = 0; i < 100 && marker.length < 1; i++) await sleep(20);
    expect([heard, foreignHeard, marker.length]).toEqual([[1], [], 1]);
  });
});

describe("a server on a shared bus", async () => {
  const available = await hasRedis();
  const buses: RedisBus[] = [];
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.close()));
  });
  const serverOn = async () => {
    const bus = new RedisBus(REDIS_URL, { prefix: `${PREFIX}servers:` });
    buses.push(bus);
    await bus.ready;
    return createServer({ name: "s", version: "1", bus });
  };
  const tool = (name: string) => ({ name, inputSchema: { type: "object" as const }, handler: () => ({ content: [] }) });

  it.runIf(available)("notify*() before any link here still reaches the others; a registration only once this process has a link; endSubscriptions ends only this process's streams", async () => {
    const a = await serverOn();
    const b = await serverOn();
    const onB: ServerEvent[] = [];
    const onA: ServerEvent[] = [];
    b.onEvent((e) => onB.push(e));
    a.tool(tool("at-start-up")); // no link on A yet: not a change anyone was told of
    a.notifyResourceUpdated("test://one"); // explicit: published although A has no link
    for (let i = 0; i < 100 && onB.length < 1; i++) await sleep(20);
    a.onEvent((e) => onA.push(e)); // A's first link
    a.tool(tool("later"));
    a.endSubscriptions();
    a.notifyResourceUpdated("test://two");
    for (let i = 0; i < 100 && onB.length < 3; i++) await sleep(20);
    expect(onB.map((e) => e.uri ?? e.method)).toEqual(["test://one", "notifications/tools/list_changed", "test://two"]);
    expect(onA.map((e) => e.uri ?? e.filter)).toEqual(["toolsListChanged", "end", "test://two"]);
  });
});

describe("server events across processes (RedisBus from MCP_REDIS_URL)", async () => {
  const available = await hasRedis();
  const fixtures: Fixture[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    await Promise.all(closers.map((c) => c().catch(() => {})));
    await Promise.all(fixtures.map((f) => f.stop()));
  });
  const start = async () => {
    const f = await startFixture({ MCP_REDIS_URL: REDIS_URL, MCP_REDIS_PREFIX: PREFIX }, [], FIXTURE);
    fixtures.push(f);
    return f;
  };
  const modern = async (f: Fixture) => {
    const client = await new McpClient({ transport: new StreamableHttpClientTransport(f.url), revision: MODERN as never }).connect();
    closers.push(() => client.close());
    return client;
  };

  it.runIf(available)("resources/updated published on A reaches B's listen stream and B's legacy session, and A's own listen stream once per event", async () => {
    const a = await start();
    const b = await start();
    const uri = "test://watched";
    const marker = "test://marker";
    // B: a 2026-07-28 listen stream.
    const onListenB: any[] = [];
    const onListenA: any[] = [];
    const controller = new AbortController();
    const listenB = await modern(b);
    const listeningB = listenB
      .request("subscriptions/listen", { notifications: { resourceSubscriptions: [uri] } }, { signal: controller.signal, onNotification: (n) => onListenB.push(n) })
      .catch(() => {});
    const listenA = await modern(a);
    const listeningA = listenA
      .request("subscriptions/listen", { notifications: { resourceSubscriptions: [uri, marker] } }, { signal: controller.signal, onNotification: (n) => onListenA.push(n) })
      .catch(() => {});
    // B: a legacy session of the official SDK 1.x client, subscribed.
    const legacy = new Client1({ name: "sdk1-bus", version: "1.0.0" });
    const onLegacyB: any[] = [];
    legacy.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void onLegacyB.push(n));
    const transport = new Http1(new URL(b.url));
    await legacy.connect(transport);
    closers.push(() => legacy.close());
    await legacy.subscribeResource({ uri });
    // A: touch until both of B's subscribers heard it (B's subscription to Redis may be a moment behind its streams).
    const caller = await modern(a);
    const updated = (list: any[]) => list.filter((n) => n.method === "notifications/resources/updated");
    let touches = 0;
    for (let i = 0; i < 50 && !(updated(onListenB).length && onLegacyB.length); i++) {
      const r = (await caller.callTool("touch", { uri })) as any;
      expect(r.content[0].text).toContain(`on ${a.child.pid}`);
      touches++;
      for (let j = 0; j < 10 && !(updated(onListenB).length && onLegacyB.length); j++) await sleep(20);
    }
    expect(updated(onListenB)[0].params).toMatchObject({ uri });
    expect(onLegacyB[0].params).toMatchObject({ uri });
    // A's own stream: exactly one notification per touch (delivered locally; the echo from Redis is dropped). A
    // marker touch on B, heard on A through Redis after everything A published, closes the count.
    await (await modern(b)).callTool("touch", { uri: marker });
    for (let i = 0; i < 100 && !updated(onListenA).some((n) => n.params.uri === marker); i++) await sleep(20);
    expect(updated(onListenA).map((n) => n.params.uri)).toEqual([...Array(touches).fill(uri), marker]);
    controller.abort();
    await Promise.all([listeningA, listeningB]);
  });
});
