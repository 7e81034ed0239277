/**
 * Quotas per caller (#20 items 2 and 4): legacy sessions and open SSE streams per principal or client address, batch
 * members and members at once, the size of one response. Each quota: one caller at its limit, and another caller (a
 * second principal, or a second loopback address: the client socket bound to 127.0.0.2) unaffected. Limits are set
 * small here so that the tests are quick; their defaults are pinned by hand at the end.
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createServer, serveStdio, type HttpHandle, type HttpOptions } from "../../runtime/dist/index.js";
import { addressKey } from "../../runtime/src/transport/http/quotas.js";
import { initializeBody, jsonPost, modernRequest, sessionHeaders } from "./http-helpers.js";

const A = "127.0.0.2";
const B = "127.0.0.1";
const LEGACY = "2025-11-25";
const BATCHES = "2025-03-26"; // the only revision with JSON-RPC batches (spec/2025-03-26/basic/index.mdx#batching), by hand

let gate: { open: () => void; wait: Promise<void> } | undefined;
function newGate() {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  gate = { open, wait };
  return gate;
}
let running = 0;
let most = 0;

function quotaServer() {
  const server = createServer({ name: "quotas", version: "1.0.0" });
  server.tool({ name: "echo", inputSchema: { type: "object" }, handler: () => ({ content: [{ type: "text", text: "ok" }] }) });
  server.tool({
    name: "big",
    inputSchema: { type: "object", properties: { n: { type: "number" } } },
    handler: ({ n }) => ({ content: [{ type: "text", text: "x".repeat(Number(n)) }] }),
  });
  // Holds the event loop for `ms` milliseconds: the whole of its time is its caller's (synchronous).
  server.tool({
    name: "spin",
    inputSchema: { type: "object", properties: { ms: { type: "number" } } },
    handler: ({ ms }) => {
      const end = performance.now() + Number(ms);
      while (performance.now() < end);
      return { content: [{ type: "text", text: "spun" }] };
    },
  });
  // Runs until the test opens the gate; counts how many run at once.
  server.tool({
    name: "wait",
    inputSchema: { type: "object" },
    handler: async () => {
      running++;
      most = Math.max(most, running);
      await gate?.wait;
      running--;
      return { content: [{ type: "text", text: "done" }] };
    },
  });
  return server;
}

const handles: HttpHandle[] = [];
afterEach(async () => {
  gate?.open();
  gate = undefined;
  running = most = 0;
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

async function serve(options: HttpOptions): Promise<string> {
  const h = await quotaServer().serveHttp({ port: 0, quiet: true, ...options });
  handles.push(h);
  return h.url;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

interface Call {
  from: string;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  path?: string;
}

/** One exchange from the loopback address `from`, read to its end. */
function call(url: string, c: Call): Promise<Answer> {
  return open(url, c).then(async (o) => {
    await o.ended;
    return o.answer();
  });
}

/** One exchange from `from`, resolved once its headers are in (a stream stays open until `close`). */
function open(url: string, c: Call): Promise<{ status: number; headers: IncomingHttpHeaders; ended: Promise<void>; answer: () => Answer; close: () => void; text: () => string }> {
  const u = new URL(url);
  const body = c.body === undefined ? undefined : JSON.stringify(c.body);
  const headers: Record<string, string> = { ...c.headers };
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path: c.path ?? u.pathname, method: c.method ?? "POST", headers, agent: false, localAddress: c.from }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      // A stream the test cuts ends with "aborted": ended all the same.
      res.on("error", () => {});
      const ended = new Promise<void>((r) => res.once("close", () => r()));
      const answer = (): Answer => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        return { status: res.statusCode ?? 0, headers: res.headers, text, json };
      };
      resolve({ status: res.statusCode ?? 0, headers: res.headers, ended, answer, close: () => req.destroy(), text: () => text });
    });
    req.on("error", reject);
    // A stream that should have been refused would stay open: cut it, so the test fails on its answer, not a timeout.
    setTimeout(() => req.destroy(), 20_000).unref();
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** initialize from `from` (with `token`, if any): the answer, and the session id when one was minted. */
async function initialize(url: string, from: string, version = LEGACY, token?: string): Promise<{ status: number; sid?: string; answer: Answer }> {
  const answer = await call(url, { from, headers: jsonPost(auth(token)), body: initializeBody(version) });
  const sid = answer.headers["mcp-session-id"] as string | undefined;
  if (sid) await call(url, { from, headers: jsonPost({ ...sessionHeaders(sid, version), ...auth(token) }), body: { jsonrpc: "2.0", method: "notifications/initialized" } });
  return { status: answer.status, sid, answer };
}

const auth = (token?: string): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});

/** A 429 naming `limit` (message and data), with Retry-After, and -32600 (the HTTP layer's refusal code). */
function expectQuota(a: Answer, limit: string, max: number, status = 429) {
  expect(a.status).toBe(status);
  expect(Number(a.headers["retry-after"])).toBeGreaterThan(0);
  expect(a.json.error.code).toBe(-32600);
  expect(a.json.error.message).toContain(`limit ${limit}: ${max}`);
  expect(a.json.error.data).toEqual({ limit, max });
}

const PRINCIPALS: Record<string, { subject: string; clientId?: string; scopes: string[]; claims: Record<string, unknown> }> = {
  alice: { subject: "alice", clientId: "app", scopes: [], claims: {} },
  bob: { subject: "bob", clientId: "app", scopes: [], claims: {} },
};
const verified = { authorization: { issuer: "https://issuer.invalid", verify: (token: string) => PRINCIPALS[token] } };

describe("legacy sessions per caller (HttpLimits.sessionsPerCaller)", () => {
  it("two client addresses: one at its limit gets 429 for initialize, the other address is served; a DELETE gives the place back", async () => {
    const url = await serve({ limits: { sessionsPerCaller: 2 } });
    const a1 = await initialize(url, A);
    const a2 = await initialize(url, A);
    expect([a1.status, a2.status]).toEqual([200, 200]);
    const a3 = await initialize(url, A);
    expectQuota(a3.answer, "sessionsPerCaller", 2);
    expect(a3.sid).toBeUndefined();
    expect(a3.answer.json.id).toBe(1);
    const b = await initialize(url, B);
    expect([b.status, typeof b.sid]).toEqual([200, "string"]);
    const del = await call(url, { from: A, method: "DELETE", headers: sessionHeaders(a1.sid!, LEGACY) });
    expect(del.status).toBe(200);
    expect((await initialize(url, A)).status).toBe(200);
  });

  it("two principals from one address: alice at her limit gets 429, bob is served", async () => {
    const url = await serve({ ...verified, limits: { sessionsPerCaller: 2 } });
    for (let i = 0; i < 2; i++) expect((await initialize(url, A, LEGACY, "alice")).status).toBe(200);
    expectQuota((await initialize(url, A, LEGACY, "alice")).answer, "sessionsPerCaller", 2);
    expect((await initialize(url, A, LEGACY, "bob")).status).toBe(200);
  });

  it("a failed handshake gives its place back (an unsupported revision makes no session)", async () => {
    const url = await serve({ limits: { sessionsPerCaller: 1 } });
    const bad = await call(url, { from: A, headers: jsonPost(), body: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 7 } } });
    expect(bad.headers["mcp-session-id"]).toBeUndefined();
    expect((await initialize(url, A)).status).toBe(200);
  });

  it("2024-11-05 HTTP+SSE sessions count in the caller's quota and the process-wide maxSessions", async () => {
    const url = await serve({ legacySse: true, limits: { sessionsPerCaller: 1 }, maxSessions: 2 });
    const sse = await open(url, { from: A, method: "GET", path: "/sse", headers: { accept: "text/event-stream" } });
    expect(sse.status).toBe(200);
    // A's one session is the HTTP+SSE one: neither another HTTP+SSE stream nor a Streamable HTTP session.
    const again = await open(url, { from: A, method: "GET", path: "/sse", headers: { accept: "text/event-stream" } });
    await again.ended;
    expectQuota(again.answer(), "sessionsPerCaller", 1);
    expectQuota((await initialize(url, A)).answer, "sessionsPerCaller", 1);
    // B's session fills the process: 2 in all (one of each transport), then 503 for everyone.
    expect((await initialize(url, B)).status).toBe(200);
    expectQuota(await call(url, { from: "127.0.0.3", headers: jsonPost(), body: initializeBody(LEGACY) }), "maxSessions", 2, 503);
    sse.close();
    await sse.ended;
    await new Promise((r) => setTimeout(r, 50));
    // A's HTTP+SSE session ended: A may open one again, and then the process is full again.
    expect((await initialize(url, A)).status).toBe(200);
    expectQuota(await call(url, { from: "127.0.0.3", headers: jsonPost(), body: initializeBody(LEGACY) }), "maxSessions", 2, 503);
  });
});

describe("open SSE streams per session and per caller (HttpLimits.streamsPerSession, streamsPerCaller)", () => {
  it("per session: a session's POSTs that may stream and its GET stream are bounded; its JSON-only POSTs and the caller's other session are not", async () => {
    const url = await serve({ limits: { streamsPerSession: 2 } });
    newGate();
    const s1 = (await initialize(url, A)).sid!;
    const s2 = (await initialize(url, A)).sid!;
    const h1 = jsonPost(sessionHeaders(s1, LEGACY));
    const waiting = (id: number, headers = h1) => open(url, { from: A, headers, body: { jsonrpc: "2.0", id, method: "tools/call", params: { name: "wait", arguments: {} } } });
    const get = await open(url, { from: A, method: "GET", headers: { accept: "text/event-stream", ...sessionHeaders(s1, LEGACY) } });
    expect(get.status).toBe(200);
    const first = waiting(2);
    // Wait until the first call runs (its POST holds its place from its arrival).
    await expect.poll(() => running).toBe(1);
    const refused = await call(url, { from: A, headers: h1, body: { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: {} } } });
    expectQuota(refused, "streamsPerSession", 2);
    expect(refused.json.id).toBe(3);
    // A client that accepts only JSON is not answered by a stream: served.
    const json = await call(url, { from: A, headers: { ...h1, accept: "application/json" }, body: { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "echo", arguments: {} } } });
    expect([json.status, json.json.result.content[0].text]).toEqual([200, "ok"]);
    const other = await call(url, { from: A, headers: jsonPost(sessionHeaders(s2, LEGACY)), body: { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "echo", arguments: {} } } });
    expect(other.status).toBe(200);
    // The GET stream closed: its place is free again.
    get.close();
    await get.ended;
    await new Promise((r) => setTimeout(r, 50));
    const freed = await call(url, { from: A, headers: h1, body: { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "echo", arguments: {} } } });
    expect(freed.status).toBe(200);
    gate!.open();
    await (
      await first
    ).ended;
  });

  it("per caller, two client addresses: listen streams of one address are bounded, the other address is served", async () => {
    const url = await serve({ limits: { streamsPerCaller: 2 } });
    const listen = (from: string, id: number) => {
      const l = modernRequest(id, "subscriptions/listen", { notifications: { toolsListChanged: true } });
      return open(url, { from, headers: l.headers, body: l.body });
    };
    const a = [await listen(A, 1), await listen(A, 2)];
    expect(a.map((s) => s.status)).toEqual([200, 200]);
    const third = await listen(A, 3);
    await third.ended;
    expectQuota(third.answer(), "streamsPerCaller", 2);
    expect(third.answer().json.id).toBe(3);
    // A modern request of A that may stream is refused too; B's listen is served.
    const call3 = modernRequest(4, "tools/call", { name: "echo", arguments: {} });
    expectQuota(await call(url, { from: A, headers: call3.headers, body: call3.body }), "streamsPerCaller", 2);
    const b = await listen(B, 5);
    expect(b.status).toBe(200);
    for (const s of [...a, b]) s.close();
  });

  it("per caller, two principals: alice's GET streams over her sessions are bounded, bob's are not", async () => {
    const url = await serve({ ...verified, limits: { streamsPerCaller: 2 } });
    const sessions = async (token: string, n: number) => Promise.all(Array.from({ length: n }, async () => (await initialize(url, A, LEGACY, token)).sid!));
    const getStream = (token: string, sid: string) => open(url, { from: A, method: "GET", headers: { accept: "text/event-stream", ...sessionHeaders(sid, LEGACY), ...auth(token) } });
    const [s1, s2, s3] = await sessions("alice", 3);
    const [b1] = await sessions("bob", 1);
    const held = [await getStream("alice", s1), await getStream("alice", s2)];
    expect(held.map((s) => s.status)).toEqual([200, 200]);
    const third = await getStream("alice", s3);
    await third.ended;
    expectQuota(third.answer(), "streamsPerCaller", 2);
    const bob = await getStream("bob", b1);
    expect(bob.status).toBe(200);
    for (const s of [...held, bob]) s.close();
  });
});

describe("2025-03-26 batches (MessageLimits.batchMembers, batchConcurrency)", () => {
  const batchOf = (n: number, name = "echo", from = 10) => Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", id: from + i, method: "tools/call", params: { name, arguments: {} } }));

  it("a batch over batchMembers is refused whole (-32600 naming the limit) and none of it runs; one at the limit is answered", async () => {
    const url = await serve({ limits: { batchMembers: 3 } });
    const sid = (await initialize(url, A, BATCHES)).sid!;
    const h = jsonPost(sessionHeaders(sid, BATCHES));
    const over = await call(url, { from: A, headers: h, body: batchOf(4, "wait") });
    expect(over.status).toBe(400);
    expect(over.json.error.code).toBe(-32600);
    expect(over.json.error.message).toContain("batchMembers (3)");
    expect(over.json.error.data).toEqual({ limit: "batchMembers", max: 3 });
    expect(most).toBe(0);
    const at = await call(url, { from: A, headers: h, body: batchOf(3) });
    expect(at.json.map((r: any) => r.id).sort()).toEqual([10, 11, 12]);
  });

  it("at most batchConcurrency members run at once, the rest wait; the answer is one array; another caller is answered meanwhile", async () => {
    const url = await serve({ limits: { batchConcurrency: 2 } });
    newGate();
    const sid = (await initialize(url, A, BATCHES)).sid!;
    const batch = call(url, { from: A, headers: jsonPost(sessionHeaders(sid, BATCHES)), body: batchOf(5, "wait") });
    await expect.poll(() => running).toBe(2);
    // The same session's next POST is not held behind the batch's waiting members, nor is another caller.
    const next = await call(url, { from: A, headers: jsonPost(sessionHeaders(sid, BATCHES)), body: batchOf(1, "echo", 50)[0] });
    expect(next.json.result.content[0].text).toBe("ok");
    const sidB = (await initialize(url, B, BATCHES)).sid!;
    const b = await call(url, { from: B, headers: jsonPost(sessionHeaders(sidB, BATCHES)), body: batchOf(1, "echo", 60) });
    expect(b.json.map((r: any) => r.id)).toEqual([60]);
    expect(running).toBe(2);
    gate!.open();
    const answer = await batch;
    expect(Array.isArray(answer.json)).toBe(true);
    expect(answer.json.map((r: any) => r.id).sort()).toEqual([10, 11, 12, 13, 14]);
    expect(most).toBe(2);
  });
});

describe("the size of one response (MessageLimits.responseBytes)", () => {
  const bigCall = (id: number, n: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "big", arguments: { n } } });
  /** The last message of an SSE body (a priming event has empty data). */
  const lastEvent = (text: string) => JSON.parse([...text.matchAll(/^data: (.+)$/gm)].at(-1)![1]);
  const expectTooLarge = (r: any, id: number) => {
    expect(r.id).toBe(id);
    expect(r.error.code).toBe(-32603);
    expect(r.error.message).toContain("responseBytes (2000 bytes)");
    expect(r.error.data).toEqual({ limit: "responseBytes", max: 2000 });
  };

  it("a modern result over the limit is a -32603 naming it, as JSON and on SSE; a result within it is answered", async () => {
    const url = await serve({ limits: { responseBytes: 2000 } });
    const over = modernRequest(1, "tools/call", { name: "big", arguments: { n: 3000 } });
    const json = await call(url, { from: A, headers: { ...over.headers, accept: "application/json" }, body: over.body });
    expectTooLarge(json.json, 1);
    const sse = await call(url, { from: A, headers: { ...over.headers, accept: "text/event-stream" }, body: over.body });
    expectTooLarge(lastEvent(sse.text), 1);
    const within = modernRequest(2, "tools/call", { name: "big", arguments: { n: 1000 } });
    const ok = await call(url, { from: A, headers: within.headers, body: within.body });
    expect(ok.json.result.content[0].text).toHaveLength(1000);
  });

  it("multi-byte text counts in bytes of UTF-8, not characters", async () => {
    const server = createServer({ name: "utf8", version: "1" });
    server.tool({ name: "wide", inputSchema: { type: "object" }, handler: () => ({ content: [{ type: "text", text: "é".repeat(990) }] }) });
    const h = await server.serveHttp({ port: 0, quiet: true, limits: { responseBytes: 2000 } });
    handles.push(h);
    // About 1 150 characters of JSON, but 990 of them 2 bytes each: over 2 000 bytes.
    const r = modernRequest(1, "tools/call", { name: "wide", arguments: {} });
    expectTooLarge((await call(h.url, { from: A, headers: r.headers, body: r.body })).json, 1);
  });

  it("a 2025-03-26 batch's answer is bounded as a whole: the member that would pass the limit is a -32603, the others are answered", async () => {
    const url = await serve({ limits: { responseBytes: 2000, batchConcurrency: 1 } });
    const sid = (await initialize(url, A, BATCHES)).sid!;
    const r = await call(url, { from: A, headers: jsonPost(sessionHeaders(sid, BATCHES)), body: [bigCall(1, 800), bigCall(2, 800), bigCall(3, 800)] });
    const byId = Object.fromEntries(r.json.map((m: any) => [m.id, m]));
    expect(byId[1].result.content[0].text).toHaveLength(800);
    expect(byId[2].result.content[0].text).toHaveLength(800);
    expectTooLarge(byId[3], 3);
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(2000);
  });

  it("a legacy session's result over the limit, on its POST's SSE stream", async () => {
    const url = await serve({ limits: { responseBytes: 2000 } });
    const sid = (await initialize(url, A)).sid!;
    const r = await call(url, { from: A, headers: { ...jsonPost(sessionHeaders(sid, LEGACY)), accept: "text/event-stream" }, body: bigCall(7, 5000) });
    expectTooLarge(lastEvent(r.text), 7);
  });
});

describe("the event loop's fair share (limits.cpuShareFactor, opt-in, here 4; cpuLagMs, default 10)", () => {
  const spin = (id: number, ms: number) => modernRequest(id, "tools/call", { name: "spin", arguments: { ms } });
  /** `loops` loops of `from` (headers `extra`) each calling spin(ms) until `until()`: the statuses it got, and a 429. */
  async function flood(url: string, from: string, extra: Record<string, string>, loops: number, ms: number, until: (refused: boolean) => boolean) {
    const statuses: number[] = [];
    let refusal: Answer | undefined;
    await Promise.all(
      Array.from({ length: loops }, async (_, loop) => {
        for (let i = 0; !until(refusal !== undefined); i++) {
          const r = spin(1000 * loop + i, ms);
          const a = await call(url, { from, headers: { ...r.headers, ...extra }, body: r.body });
          statuses.push(a.status);
          if (a.status === 429) refusal ??= a;
        }
      }),
    );
    return { statuses, refusal };
  }

  it("process.cpuUsage (a system call: 22 % of the soak server's time when read per request) is never read per request: off, never; on, at most once per 20 ms tick", async () => {
    const cpuUsage = vi.spyOn(process, "cpuUsage");
    try {
      for (const limits of [{}, { cpuShareFactor: 4 }]) {
        const url = await serve({ limits });
        cpuUsage.mockClear();
        const began = performance.now();
        for (let i = 0; i < 20; i++) {
          const r = modernRequest(i + 1, "tools/call", { name: "echo", arguments: {} });
          expect((await call(url, { from: B, headers: r.headers, body: r.body })).status).toBe(200);
        }
        const ticks = Math.floor((performance.now() - began) / 20) + 2;
        if (!("cpuShareFactor" in limits)) expect(cpuUsage).not.toHaveBeenCalled();
        else expect(cpuUsage.mock.calls.length).toBeLessThanOrEqual(ticks);
      }
    } finally {
      cpuUsage.mockRestore();
    }
  });

  it("a caller that holds a saturated event loop waits for its turn, never refused while its line is short; another caller's calls are all served", async () => {
    const url = await serve({ limits: { cpuShareFactor: 4 } });
    let stop = false;
    // B: a light client, a short call at a time; A: four loops of calls that each hold the loop for 50 ms, for 6 s
    // (over its share after a few: then each of its calls waits for A's charge to decay, its body unread).
    const light = (async () => {
      const statuses: number[] = [];
      for (let i = 0; !stop; i++) {
        const r = modernRequest(i + 1, "tools/call", { name: "echo", arguments: {} });
        statuses.push((await call(url, { from: B, headers: r.headers, body: r.body })).status);
        await new Promise((res) => setTimeout(res, 10));
      }
      return statuses;
    })();
    const deadline = Date.now() + 6000;
    const heavy = await flood(url, A, {}, 4, 50, () => Date.now() > deadline);
    stop = true;
    const b = await light;
    expect(heavy.statuses.length).toBeGreaterThan(4);
    expect(new Set(heavy.statuses)).toEqual(new Set([200]));
    expect(b.length).toBeGreaterThan(0);
    expect(new Set(b)).toEqual(new Set([200]));
  }, 60_000);

  it("many callers of the same weight at full load are never refused", async () => {
    // Eight callers (clientKey from a header), each two loops of 30 ms calls, for 40 calls each: the loop is saturated
    // throughout, and no caller is over 4 times the others' average.
    const url = await serve({ limits: { cpuShareFactor: 4 }, clientKey: ({ headers }) => String(headers["x-caller"]) });
    const counts = new Map<string, number>();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, c) => {
        const who = `caller-${c}`;
        return flood(url, B, { "x-caller": who }, 2, 30, () => {
          counts.set(who, (counts.get(who) ?? 0) + 1);
          return counts.get(who)! > 40;
        });
      }),
    );
    for (const r of results) expect(new Set(r.statuses)).toEqual(new Set([200]));
  }, 60_000);
});

it("the defaults, by hand (docs/hosting.md#limits): a caller holds at most 1 000 sessions; a batch of 101 members is refused", async () => {
  const url = await serve({});
  const sid = (await initialize(url, A, BATCHES)).sid!;
  const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
  const h = jsonPost(sessionHeaders(sid, BATCHES));
  const over = await call(url, { from: A, headers: h, body: Array.from({ length: 101 }, (_, i) => ping(i + 1)) });
  expect(over.json.error.data).toEqual({ limit: "batchMembers", max: 100 });
  const at = await call(url, { from: A, headers: h, body: Array.from({ length: 100 }, (_, i) => ping(i + 1)) });
  expect(at.json).toHaveLength(100);
  // 999 more sessions of A (one is open), 20 at a time; the next is refused.
  for (let i = 0; i < 999; i += 20) {
    const n = Math.min(20, 999 - i);
    const statuses = await Promise.all(Array.from({ length: n }, () => call(url, { from: A, headers: jsonPost(), body: initializeBody(LEGACY) }).then((r) => r.status)));
    expect(statuses).toEqual(Array(n).fill(200));
  }
  expectQuota(await call(url, { from: A, headers: jsonPost(), body: initializeBody(LEGACY) }), "sessionsPerCaller", 1000);
}, 60_000);

it("stdio: a result over responseBytes is a -32603 naming it; a batch over batchMembers is refused whole (spec/2025-03-26/basic/index.mdx#batching)", async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  let out = "";
  output.setEncoding("utf8");
  output.on("data", (c: string) => (out += c));
  const served = serveStdio(quotaServer(), { input, output, exitOnEof: false, limits: { responseBytes: 2000, batchMembers: 2 } });
  const send = (m: unknown) => input.write(JSON.stringify(m) + "\n");
  send(initializeBody(BATCHES));
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "big", arguments: { n: 3000 } } });
  send([1, 2, 3].map((i) => ({ jsonrpc: "2.0", id: 10 + i, method: "ping" })));
  input.end();
  await served;
  const lines = out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const big = lines.find((l) => l.id === 2);
  expect([big.error.code, big.error.data]).toEqual([-32603, { limit: "responseBytes", max: 2000 }]);
  const batch = lines.find((l) => !Array.isArray(l) && l.id === null);
  expect([batch.error.code, batch.error.data]).toEqual([-32600, { limit: "batchMembers", max: 2 }]);
});

it("a client address as its quota key: IPv4 whole (IPv4-mapped too), IPv6 by its /64 (one host usually has a whole /64)", () => {
  expect(addressKey("127.0.0.2")).toBe("127.0.0.2");
  expect(addressKey("::ffff:127.0.0.2")).toBe("127.0.0.2");
  expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
  expect(addressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
  expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
  expect(addressKey("::1")).toBe("0:0:0:0::/64");
  expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
});
