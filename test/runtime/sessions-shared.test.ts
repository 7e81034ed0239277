/**
 * Legacy Streamable HTTP sessions served by any process (no sticky routing): two real fixture processes sharing the
 * real Redis of this machine (MCP_REDIS_URL: session store, event log and bus). Every request of a session alternates
 * between them, as a round-robin proxy would send it. spec/2025-11-25/basic/transports.mdx#session-management,
 * spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery
 */
import { Redis } from "ioredis";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { LocalBus, MemorySessions, createServer, type SessionRecord } from "../../runtime/dist/index.js";
import { afterAll, describe, expect, it } from "vitest";
import { REDIS_URL, hasRedis } from "../services.js";
import { type Fixture, initializeBody, jsonPost, raw, sessionHeaders, sharedPair, startFixture } from "./http-helpers.js";

const LEGACY = "2025-11-25";
const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

describe("legacy sessions across processes (Redis)", async () => {
  const available = await hasRedis();
  const prefix = `mcp-test-${process.pid}-${Date.now()}:`;
  const fixtures: Fixture[] = [];
  const pair = sharedPair(REDIS_URL, prefix, "shared-test");
  afterAll(async () => {
    await Promise.all([pair.stop(), ...fixtures.map((f) => f.stop())]);
  });
  /** initialize on A, notifications/initialized on B: the session exists everywhere from the start. */
  const open = pair.open;

  it("a session store that cannot be reached: initialize is 503 with Retry-After, its id and no Mcp-Session-Id (no session half made)", async () => {
    const f = await startFixture({ MCP_REDIS_URL: "redis://127.0.0.1:1", MCP_REDIS_PREFIX: prefix });
    fixtures.push(f);
    const init = await raw(f.url, { headers: jsonPost(), body: initializeBody(LEGACY, 41, "no-redis") });
    expect(init.status).toBe(503);
    expect(init.headers["mcp-session-id"]).toBeUndefined();
    expect(Number(init.headers["retry-after"])).toBeGreaterThan(0);
    expect(init.json).toMatchObject({ jsonrpc: "2.0", id: 41, error: { code: -32603 } });
    // Why is the log's: the store's error (an address, a driver's words) is not the client's.
    expect(init.json.error.message).toBe("Service Unavailable: the session store could not be reached; try again");
  });

  it.runIf(available)("a session opened on A is answered on B, from the session store", async () => {
    const { ub, h } = await open();
    const r = await raw(ub, { headers: h, body: call(2, "echo", { text: "on B" }) });
    expect(r.status).toBe(200);
    expect(r.messages[0]).toMatchObject({ id: 2, result: { content: [{ type: "text", text: "on B" }] } });
    // An id no process knows is still 404.
    const unknown = await raw(ub, { headers: jsonPost(sessionHeaders("no-such-session-000000000000000", LEGACY)), body: call(3, "echo", { text: "x" }) });
    expect(unknown.status).toBe(404);
  });

  it.runIf(available)("an elicitation sent on A's stream is answered by a POST that lands on B; a GET with Last-Event-ID on B replays and carries A's stream to its response", async () => {
    const { sid, ua, ub, h } = await open({ elicitation: {} });
    // The POST on A: its SSE stream carries the elicitation request; the client's connection then drops.
    const first = await raw(ua, { headers: h, body: call(5, "ask"), until: (events) => events.some((e) => e.data.includes("elicitation/create")) });
    const asked = first.messages.find((m) => m.method === "elicitation/create");
    expect(asked.params.message).toBe("Your name?");
    const lastId = first.events.filter((e) => e.id).at(-1)!.id!;
    // The answer lands on B, and resumes the handler waiting on A.
    const answer = await raw(ub, { headers: h, body: { jsonrpc: "2.0", id: asked.id, result: { action: "accept", content: { name: "Ann" } } } });
    expect(answer.status).toBe(202);
    // The rest of A's stream, resumed on B: what A wrote after lastId, up to the tool's response.
    const resumed = await raw(ub, {
      method: "GET",
      headers: { accept: "text/event-stream", ...sessionHeaders(sid, LEGACY), "last-event-id": lastId },
      until: (events) => events.some((e) => e.data.includes('"id":5')),
    });
    expect(resumed.status).toBe(200);
    const response = resumed.messages.find((m) => m.id === 5);
    expect(response.result.content[0].text).toBe("answer: Ann (accept)");
    // Every event id is of the stream that was resumed.
    const stream = lastId.split("-")[0];
    expect(resumed.events.filter((e) => e.id).every((e) => e.id!.startsWith(`${stream}-`))).toBe(true);
  });

  it.runIf(available)("state follows the session: a log level set on A holds on B; a change announced on A reaches the GET stream open on B", async () => {
    const { sid, ua, ub, h } = await open();
    const before = await raw(ub, { headers: h, body: call(6, "notify") });
    expect(before.messages.some((m) => m.method === "notifications/message")).toBe(true);
    expect((await raw(ua, { headers: h, body: { jsonrpc: "2.0", id: 7, method: "logging/setLevel", params: { level: "error" } } })).status).toBe(200);
    let after = await raw(ub, { headers: h, body: call(8, "notify") });
    for (let i = 0; i < 20 && after.messages.some((m) => m.method === "notifications/message"); i++) after = await raw(ub, { headers: h, body: call(8, "notify") });
    expect(after.messages.some((m) => m.method === "notifications/message")).toBe(false);
    // The GET stream is on B; the tool list changes on A.
    const listening = raw(ub, {
      method: "GET",
      headers: { accept: "text/event-stream", ...sessionHeaders(sid, LEGACY) },
      until: (events) => events.some((e) => e.data.includes("list_changed")),
      timeoutMs: 5000,
    });
    await new Promise((r) => setTimeout(r, 300));
    await raw(ua, { headers: h, body: call(9, "touch") });
    const got = await listening;
    expect(got.messages.filter((m) => m.method === "notifications/tools/list_changed")).toHaveLength(1);
  });

  it.runIf(available)("the GET stream, dropped on A and resumed with Last-Event-ID on B, is the session's GET stream there: later changes reach it", async () => {
    const { sid, ua, ub, h } = await open();
    const get = { accept: "text/event-stream", ...sessionHeaders(sid, LEGACY) };
    const changed = (events: { data: string }[]) => events.some((e) => e.data.includes("list_changed"));
    // The GET stream on A carries a change (an event with an id); then its connection drops.
    const onA = raw(ua, { method: "GET", headers: get, until: changed, timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 300));
    await raw(ub, { headers: h, body: call(12, "touch") });
    const first = await onA;
    const lastId = first.events.filter((e) => e.id).at(-1)!.id!;
    expect(first.messages.filter((m) => m.method === "notifications/tools/list_changed")).toHaveLength(1);
    // Resumed on B: the next change, announced on A, arrives there.
    const onB = raw(ub, { method: "GET", headers: { ...get, "last-event-id": lastId }, until: changed, timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 300));
    await raw(ua, { headers: h, body: call(13, "touch") });
    const resumed = await onB;
    expect(resumed.status).toBe(200);
    expect(resumed.messages.filter((m) => m.method === "notifications/tools/list_changed")).toHaveLength(1);
    // Its events have ids a later resumption can name, and one more resumption (back on A) works too.
    const nextId = resumed.events.filter((e) => e.id).at(-1)?.id;
    expect(nextId).toMatch(/^\d+-\d+$/);
    const onA2 = raw(ua, { method: "GET", headers: { ...get, "last-event-id": nextId! }, until: changed, timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 300));
    await raw(ub, { headers: h, body: call(14, "touch") });
    expect((await onA2).messages.filter((m) => m.method === "notifications/tools/list_changed")).toHaveLength(1);
  });

  it.runIf(available)("DELETE on B ends the session everywhere: A answers 404 afterwards", async () => {
    const { sid, ua, ub, h } = await open();
    expect((await raw(ua, { headers: h, body: call(10, "echo", { text: "alive" }) })).status).toBe(200);
    const del = await raw(ub, { method: "DELETE", headers: sessionHeaders(sid, LEGACY) });
    expect(del.status).toBe(200);
    // Answered once the store forgot it and every process was told: at once 404 on A (and on B).
    expect((await raw(ua, { headers: h, body: call(11, "echo", { text: "gone?" }) })).status).toBe(404);
    expect((await raw(ub, { headers: h, body: call(12, "echo", { text: "gone?" }) })).status).toBe(404);
  });

  it.runIf(available)("a DELETE while a POST stream is still open leaves nothing in Redis without an expiry (the stream's end, written after, included)", async () => {
    const { sid, ua, ub, h } = await open({ elicitation: {} });
    // A POST on A whose handler waits for an elicitation answer: its stream is open (and logged) when the session ends.
    const pending = raw(ua, { headers: h, body: call(20, "ask"), timeoutMs: 5000 });
    const redis = new Redis(REDIS_URL);
    try {
      const keys = () => redis.keys(`${prefix}*${sid}*`);
      for (let i = 0; i < 50 && (await keys()).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect((await raw(ub, { method: "DELETE", headers: sessionHeaders(sid, LEGACY) })).status).toBe(200);
      await pending;
      // The handler ends (its question cancelled) and its stream's end reaches the event log after the DELETE.
      await new Promise((r) => setTimeout(r, 500));
      const forever: string[] = [];
      for (const k of await keys()) if ((await redis.pttl(k)) === -1) forever.push(k);
      expect(forever).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});

/**
 * Races no real pair of processes shows on demand: two servers in this process share one session store (a
 * MemorySessions that says it is shared, whose reads can be held back) and one bus (a LocalBus, delivered to both).
 */
describe("legacy sessions across servers (in-process store and bus)", () => {
  const servers: Server[] = [];
  afterAll(async () => {
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  /** A bus whose messages reach every subscriber `delayMs` later (pub/sub carrying them between processes). */
  class SlowBus extends LocalBus {
    delayMs = 0;
    override publish(channel: string, message: Record<string, unknown>): void {
      if (!this.delayMs) return super.publish(channel, message);
      setTimeout(() => super.publish(channel, message), this.delayMs);
    }
  }
  const harness = async (count = 2) => {
    /**
     * The store's read returns what the store held when it was asked, after `holdMs` (a slow read racing a write);
     * its writes are applied `writeHoldMs` after they are asked, in the order asked (a busy Redis).
     */
    class SlowSharedSessions extends MemorySessions {
      override readonly shared = true as never;
      holdMs = 0;
      writeHoldMs = 0;
      override async get(id: string): Promise<SessionRecord | undefined> {
        const now = await super.get(id);
        if (this.holdMs) await new Promise((r) => setTimeout(r, this.holdMs));
        return now;
      }
      readHoldMs = 0;
      override async read(...args: Parameters<MemorySessions["read"]>): ReturnType<MemorySessions["read"]> {
        const now = await super.read(...args);
        if (this.readHoldMs) await new Promise((r) => setTimeout(r, this.readHoldMs));
        return now;
      }
      override async put(...args: Parameters<MemorySessions["put"]>): Promise<void> {
        if (this.writeHoldMs) await new Promise((r) => setTimeout(r, this.writeHoldMs));
        return super.put(...args);
      }
      override async update(...args: Parameters<MemorySessions["update"]>): Promise<void> {
        if (this.writeHoldMs) await new Promise((r) => setTimeout(r, this.writeHoldMs));
        return super.update(...args);
      }
    }
    const store = new SlowSharedSessions();
    const bus = new SlowBus();
    const start = async () => {
      const mcp = createServer({ name: "race", version: "1.0.0", sessions: store, bus });
      mcp.tool({
        name: "ask",
        description: "Elicits a name",
        inputSchema: { type: "object" },
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit({ message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }, { key: "name" });
          return { content: [{ type: "text" as const, text: `answer: ${(answer.content as { name?: string })?.name}` }] };
        },
      });
      const handler = mcp.nodeHandler({ path: "/mcp" });
      const http = createHttpServer((req, res) => handler(req, res));
      servers.push(http);
      await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
      return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    };
    const [ua, ub, uc] = await Promise.all(Array.from({ length: count }, start));
    return { store, bus, ua, ub, uc };
  };

  it("a session restored while another process marks it initialized is initialized: the state announced during the store read is not lost", async () => {
    const { store, ua, ub } = await harness();
    const init = await raw(ua, { headers: jsonPost(), body: initializeBody(LEGACY, 1, "race", { elicitation: {} }) });
    const sid = String(init.headers["mcp-session-id"]);
    const h = jsonPost(sessionHeaders(sid, LEGACY));
    // B starts restoring the session (its read sees initialized: false), and meanwhile A receives notifications/initialized.
    store.holdMs = 300;
    const asking = raw(ub, { headers: h, body: call(2, "ask"), until: (events) => events.some((e) => e.data.includes("elicitation/create")), timeoutMs: 3000 });
    await new Promise((r) => setTimeout(r, 50));
    store.holdMs = 0;
    expect((await raw(ua, { headers: h, body: { jsonrpc: "2.0", method: "notifications/initialized" } })).status).toBe(202);
    // B's copy is initialized: the handler's question goes out (before the fix it waited for an initialized it had missed).
    const asked = await Promise.race([asking, new Promise<never>((_, reject) => setTimeout(() => reject(new Error("B never asked: its copy of the session is not initialized")), 5000))]);
    expect(asked.messages.some((m) => m.method === "elicitation/create")).toBe(true);
  });

  it("a session ended (DELETE on A) while B reads it from the store is not restored on B: B answers 404", async () => {
    const { store, ua, ub } = await harness();
    const init = await raw(ua, { headers: jsonPost(), body: initializeBody(LEGACY, 1, "race", {}) });
    const sid = String(init.headers["mcp-session-id"]);
    const h = jsonPost(sessionHeaders(sid, LEGACY));
    expect((await raw(ua, { headers: h, body: { jsonrpc: "2.0", method: "notifications/initialized" } })).status).toBe(202);
    // B's read sees the session; A's DELETE lands while B waits for it.
    store.holdMs = 300;
    const onB = raw(ub, { headers: h, body: { jsonrpc: "2.0", id: 2, method: "tools/list" } });
    await new Promise((r) => setTimeout(r, 50));
    store.holdMs = 0;
    expect((await raw(ua, { method: "DELETE", headers: sessionHeaders(sid, LEGACY) })).status).toBe(200);
    expect((await onB).status).toBe(404);
  });

  it("a process whose copy missed notifications/initialized when it saved a change does not make the store forget it: a third process restoring later can ask the client", async () => {
    const { store, bus, ua, ub, uc } = await harness(3);
    const init = await raw(ua, { headers: jsonPost(), body: initializeBody(LEGACY, 1, "race", { elicitation: {} }) });
    const sid = String(init.headers["mcp-session-id"]);
    const h = jsonPost(sessionHeaders(sid, LEGACY));
    // Redis busy: writes land 100 ms after they are asked, announcements 150 ms after they are sent.
    store.writeHoldMs = 100;
    bus.delayMs = 150;
    // notifications/initialized lands on B (202 at once; its write still on its way), then the client's GET on A,
    // whose copy has not heard it yet: opening the GET stream is a change of the session A stores too.
    expect((await raw(ub, { headers: h, body: { jsonrpc: "2.0", method: "notifications/initialized" } })).status).toBe(202);
    await raw(ua, { method: "GET", headers: { accept: "text/event-stream", ...sessionHeaders(sid, LEGACY) }, timeoutMs: 50 });
    await new Promise((r) => setTimeout(r, 500));
    store.writeHoldMs = 0;
    bus.delayMs = 0;
    // C's first request of the session restores it from the store, after every announcement: its copy must be
    // initialized (before, A's write of its stale view had overwritten B's, and C waited forever to ask).
    const asking = raw(uc, { headers: h, body: call(2, "ask"), until: (events) => events.some((e) => e.data.includes("elicitation/create")), timeoutMs: 3000 });
    const asked = await Promise.race([asking, new Promise<never>((_, reject) => setTimeout(() => reject(new Error("C never asked: its copy of the session is not initialized")), 3000))]);
    expect(asked.messages.some((m) => m.method === "elicitation/create")).toBe(true);
  });

  it("a stream of A resumed on B that ends while B reads its log: B sends the rest and the response, then ends (not an empty 200)", async () => {
    const { store, ua, ub } = await harness();
    const init = await raw(ua, { headers: jsonPost(), body: initializeBody(LEGACY, 1, "race", { elicitation: {} }) });
    const sid = String(init.headers["mcp-session-id"]);
    const h = jsonPost(sessionHeaders(sid, LEGACY));
    expect((await raw(ua, { headers: h, body: { jsonrpc: "2.0", method: "notifications/initialized" } })).status).toBe(202);
    const first = await raw(ua, { headers: h, body: call(5, "ask"), until: (events) => events.some((e) => e.data.includes("elicitation/create")) });
    const asked = first.messages.find((m) => m.method === "elicitation/create");
    const lastId = first.events.filter((e) => e.id).at(-1)!.id!;
    // B's read of A's stream is slow; meanwhile the answer lets A's handler finish, and the stream's end reaches B.
    store.readHoldMs = 300;
    const resuming = raw(ub, { method: "GET", headers: { accept: "text/event-stream", ...sessionHeaders(sid, LEGACY), "last-event-id": lastId }, timeoutMs: 3000 });
    await new Promise((r) => setTimeout(r, 50));
    expect((await raw(ub, { headers: h, body: { jsonrpc: "2.0", id: asked.id, result: { action: "accept", content: { name: "Ann" } } } })).status).toBe(202);
    const resumed = await resuming;
    store.readHoldMs = 0;
    expect(resumed.status).toBe(200);
    expect(resumed.messages).toEqual([{ jsonrpc: "2.0", id: 5, result: { content: [{ type: "text", text: "answer: Ann" }] } }]);
  });
});
