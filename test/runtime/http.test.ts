/**
 * The runtime over Streamable HTTP (and HTTP+SSE): a real fixture process on 127.0.0.1, real HTTP requests,
 * per revision. Every rule is checked on the status code, the headers and the JSON-RPC body.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpClient, SseClientTransport, StreamableHttpClientTransport, ClientError } from "../../runtime/dist/index.js";
import type { Revision } from "../../out/rules.js";
import { ROOT } from "../helpers.js";
import { MODERN, initializeBody, jsonPost, modernMeta, modernRequest, openSession, raw, sessionHeaders, startFixture, VERSION_HEADER_REVISIONS, waitFor, type Fixture } from "./http-helpers.js";

/*
 * What each revision requires here, written by hand from the spec pages (never from the rules module: a rule broken
 * there must make this file fail, not move its expectations along):
 * - transport: spec/2024-11-05/basic/transports.mdx#http-with-sse; spec/2025-03-26/basic/transports.mdx#streamable-http;
 * - batches: spec/2025-03-26/basic/index.mdx#batching, removed by spec/2025-06-18/changelog.mdx#major-changes;
 * - resumable (event ids, Last-Event-ID): spec/<2025-03-26…2025-11-25>/basic/transports.mdx#resumability-and-redelivery,
 *   none in spec/2026-07-28/basic/transports/streamable-http.mdx#receiving-messages;
 * - primes (an id with empty data first; MAY close before the response): spec/2025-11-25/basic/transports.mdx#sending-messages-to-the-server,
 *   where 2025-03-26 and 2025-06-18 say the server SHOULD NOT close the stream before the response;
 * - elicitation: spec/2025-06-18/client/elicitation.mdx (new in 2025-06-18);
 * - resource not found: spec/<revision>/server/resources.mdx#error-handling.
 */
interface Expect {
  batches: boolean;
  resumable: boolean;
  primes: boolean;
  elicitation: boolean;
  modern: boolean;
  resourceNotFound: number;
}
const EXPECT: Record<string, Expect> = {
  "2024-11-05": { batches: false, resumable: false, primes: false, elicitation: false, modern: false, resourceNotFound: -32002 },
  "2025-03-26": { batches: true, resumable: true, primes: false, elicitation: false, modern: false, resourceNotFound: -32002 },
  "2025-06-18": { batches: false, resumable: true, primes: false, elicitation: true, modern: false, resourceNotFound: -32002 },
  "2025-11-25": { batches: false, resumable: true, primes: true, elicitation: true, modern: false, resourceNotFound: -32002 },
  "2026-07-28": { batches: false, resumable: false, primes: false, elicitation: true, modern: true, resourceNotFound: -32602 },
};
const STREAMABLE_LEGACY = ["2025-03-26", "2025-06-18", "2025-11-25"] as const;
const SSE_ONLY = ["2024-11-05"] as const;
const expects = (revision: string): Expect => EXPECT[revision];

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture({ FIXTURE_KEEPALIVE_MS: "200" });
});
afterAll(async () => {
  if (process.env.HTTP_TEST_DEBUG) console.error(fx?.stderr());
  await fx?.stop();
});

const toolCall = (id: number | string, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: meta ? { name, arguments: args, _meta: meta } : { name, arguments: args },
});

describe("secure defaults (every era)", () => {
  it("an absolute-form request target (POST http://host/mcp) reaches the endpoint; its authority, not Host, is checked", async () => {
    const ok = await raw(fx.url, { path: `http://127.0.0.1:${fx.port}/mcp`, headers: { ...jsonPost(), host: "ignored.example" }, body: initializeBody("2025-11-25") });
    expect(ok.status).toBe(200);
    expect(ok.json.result.protocolVersion).toBe("2025-11-25");
    const rebinding = await raw(fx.url, { path: "http://evil.example/mcp", headers: jsonPost(), body: initializeBody("2025-11-25") });
    expect(rebinding.status).toBe(403);
    const scheme = await raw(fx.url, { path: `ftp://127.0.0.1:${fx.port}/mcp`, headers: jsonPost(), body: initializeBody("2025-11-25") });
    expect(scheme.status).toBe(400);
  });

  it("refuses a foreign Origin with 403 and a JSON-RPC error body without id", async () => {
    for (const body of [initializeBody("2025-11-25"), modernRequest(1, "server/discover").body]) {
      const r = await raw(fx.url, { headers: { ...jsonPost({ "mcp-protocol-version": MODERN, "mcp-method": "server/discover" }), origin: "http://evil.example.com" }, body });
      expect(r.status).toBe(403);
      expect(r.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
      expect(r.json).not.toHaveProperty("id");
      expect(r.headers["access-control-allow-origin"]).toBeUndefined();
    }
  });

  it("serves loopback origins (with CORS headers) and requests without an Origin", async () => {
    const { body, headers } = modernRequest(2, "server/discover");
    const ok = await raw(fx.url, { headers: { ...headers, origin: "http://localhost:5173" }, body });
    expect(ok.status).toBe(200);
    expect(ok.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
    expect(ok.headers["access-control-expose-headers"]).toContain("mcp-session-id");
    expect((await raw(fx.url, { headers, body })).status).toBe(200);
    const pre = await raw(fx.url, { method: "OPTIONS", headers: { origin: "http://127.0.0.1:3000", "access-control-request-headers": "content-type, mcp-method" } });
    expect(pre.status).toBe(204);
    expect(pre.headers["access-control-allow-methods"]).toContain("POST");
  });

  it("refuses a rebinding Host with 403 (DNS rebinding), serves the loopback names with the bound port", async () => {
    const { body, headers } = modernRequest(3, "server/discover");
    for (const host of ["evil.example.com", `evil.example.com:${fx.port}`, `127.0.0.1:${fx.port + 1}`, "localhost.evil.example.com"]) {
      const r = await raw(fx.url, { headers: { ...headers, host }, body });
      expect(r.status, host).toBe(403);
      expect(r.json.error.code).toBe(-32600);
    }
    for (const host of [`localhost:${fx.port}`, `127.0.0.1:${fx.port}`, `LOCALHOST:${fx.port}`]) {
      expect((await raw(fx.url, { headers: { ...headers, host }, body })).status, host).toBe(200);
    }
    // The conformance probe: evil Host and Origin together on initialize.
    const init = await raw(fx.url, { headers: { ...jsonPost(), host: "evil.example.com", origin: "http://evil.example.com" }, body: initializeBody("2025-11-25") });
    expect(init.status).toBe(403);
  });

  it("415 for a non-JSON Content-Type, 406 for an Accept that allows neither JSON nor SSE, both with JSON-RPC bodies", async () => {
    const { body, headers } = modernRequest(4, "server/discover");
    const r415 = await raw(fx.url, { headers: { ...headers, "content-type": "text/plain" }, body });
    expect(r415.status).toBe(415);
    expect(r415.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
    const r406 = await raw(fx.url, { headers: { ...headers, accept: "text/html" }, body });
    expect(r406.status).toBe(406);
    expect(r406.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
    // A charset parameter is fine; so are JSON-only and SSE-only clients.
    expect((await raw(fx.url, { headers: { ...headers, "content-type": "application/json; charset=utf-8" }, body })).status).toBe(200);
  });

  it("413 with a JSON-RPC body for a body over 4 MiB, and the connection is closed, not left hanging", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "echo", arguments: { text: "x".repeat(4 * 1024 * 1024 + 10) } } });
    const t0 = Date.now();
    const r = await raw(fx.url, { headers: jsonPost(), body: big });
    expect(r.status).toBe(413);
    expect(r.headers.connection).toBe("close");
    expect(r.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
    expect(Date.now() - t0).toBeLessThan(5000);
    // Chunked (no Content-Length) too.
    const chunked = await raw(fx.url, { headers: { ...jsonPost(), "transfer-encoding": "chunked" }, body: big });
    expect(chunked.status).toBe(413);
    // The server is fine afterwards.
    const { body, headers } = modernRequest(6, "server/discover");
    expect((await raw(fx.url, { headers, body })).status).toBe(200);
  });

  it("never crashes on bad input: malformed JSON is 400/-32700, a non-object is 400/-32600, unknown paths 404, other methods 405", async () => {
    const bad = await raw(fx.url, { headers: jsonPost(), body: "{not json" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe(-32700);
    const empty = await raw(fx.url, { headers: jsonPost(), body: "" });
    expect(empty.status).toBe(400);
    const scalar = await raw(fx.url, { headers: jsonPost(), body: "42" });
    expect(scalar.status).toBe(400);
    expect(scalar.json.error.code).toBe(-32600);
    const elsewhere = await raw(fx.url, { path: "/other", headers: jsonPost(), body: "{}" });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.json.jsonrpc).toBe("2.0");
    const put = await raw(fx.url, { method: "PUT", headers: jsonPost(), body: "{}" });
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBeDefined();
    const sse = await raw(fx.url, { path: "/sse", method: "GET", headers: { accept: "text/event-stream" } });
    expect(sse.status, "HTTP+SSE is off unless legacySse").toBe(404);
    expect(fx.child.exitCode).toBeNull();
  });

  it("binds loopback by default; 0.0.0.0 needs allowRemote and prints a warning naming the risk", async () => {
    const script = `
      import { createServer } from ${JSON.stringify(ROOT + "/runtime/dist/index.js")};
      const s = createServer({ name: "b", version: "1" });
      try { await s.serveHttp({ host: "0.0.0.0", port: 0, quiet: true }); console.error("BOUND"); } catch (e) { console.error("REFUSED " + e.message); }
      const h = await s.serveHttp({ host: "0.0.0.0", port: 0, allowRemote: true });
      await h.close();
      const d = await s.serveHttp({ port: 0 });
      console.error("DEFAULT " + d.url);
      await d.close();`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (c) => (err += c));
    await new Promise((r) => child.once("exit", r));
    expect(err).toContain("REFUSED serveHttp: refusing to bind 0.0.0.0");
    expect(err).not.toContain("BOUND");
    expect(err).toMatch(/WARNING: listening on 0\.0\.0\.0 exposes this MCP server, which has no authentication/);
    expect(err).toMatch(/listening http:\/\/0\.0\.0\.0:\d+\/mcp/);
    expect(err).toMatch(/DEFAULT http:\/\/127\.0\.0\.1:\d+\/mcp/);
  });
});

describe.each(STREAMABLE_LEGACY)("legacy Streamable HTTP, revision %s", (revision) => {
  const hasVersionHeader = VERSION_HEADER_REVISIONS.includes(revision);
  const want = expects(revision);

  it("mints a cryptographically random visible-ASCII Mcp-Session-Id at initialize; 202 for notifications", async () => {
    const init = await raw(fx.url, { headers: jsonPost(), body: initializeBody(revision) });
    expect(init.status).toBe(200);
    expect(init.json).toMatchObject({ jsonrpc: "2.0", id: 1, result: { protocolVersion: revision } });
    const sid = String(init.headers["mcp-session-id"]);
    expect(sid).toMatch(/^[\x21-\x7E]{32,}$/);
    const again = await raw(fx.url, { headers: jsonPost(), body: initializeBody(revision) });
    expect(again.headers["mcp-session-id"]).not.toBe(sid);
    const ack = await raw(fx.url, { headers: jsonPost(sessionHeaders(sid, revision)), body: { jsonrpc: "2.0", method: "notifications/initialized" } });
    expect(ack.status).toBe(202);
    expect(ack.text).toBe("");
    const call = await raw(fx.url, { headers: jsonPost(sessionHeaders(sid, revision)), body: toolCall(2, "echo", { text: "hi" }) });
    expect(call.status).toBe(200);
    expect(call.messages.at(-1)).toEqual({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "hi" }] } });
  });

  it("a failed initialize mints no session", async () => {
    const r = await raw(fx.url, { headers: jsonPost(), body: { jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } } });
    expect(r.json.error.code).toBe(-32602);
    expect(r.headers["mcp-session-id"]).toBeUndefined();
  });

  it("400 without Mcp-Session-Id, 404 for an unknown one, DELETE terminates (then 404)", async () => {
    const sid = await openSession(fx.url, revision);
    const none = await raw(fx.url, { headers: jsonPost(hasVersionHeader ? { "mcp-protocol-version": revision } : {}), body: toolCall(3, "echo", { text: "x" }) });
    expect(none.status).toBe(400);
    expect(none.json).toMatchObject({ jsonrpc: "2.0", id: 3, error: { code: -32600 } });
    const unknown = await raw(fx.url, { headers: jsonPost(sessionHeaders("no-such-session", revision)), body: toolCall(4, "echo", { text: "x" }) });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ jsonrpc: "2.0", id: 4, error: { code: -32600 } });
    const del = await raw(fx.url, { method: "DELETE", headers: sessionHeaders(sid, revision) });
    expect(del.status).toBe(200);
    const after = await raw(fx.url, { headers: jsonPost(sessionHeaders(sid, revision)), body: toolCall(5, "echo", { text: "x" }) });
    expect(after.status).toBe(404);
    expect((await raw(fx.url, { method: "DELETE", headers: sessionHeaders(sid, revision) })).status).toBe(404);
  });

  it("MCP-Protocol-Version: an unsupported value is 400; absent, the session's negotiated version holds", async () => {
    const sid = await openSession(fx.url, revision);
    for (const bad of ["1999-01-01", MODERN]) {
      const r = await raw(fx.url, { headers: jsonPost({ "mcp-session-id": sid, "mcp-protocol-version": bad }), body: toolCall(6, "echo", { text: "x" }) });
      expect(r.status, bad).toBe(400);
      expect(r.json).toMatchObject({ jsonrpc: "2.0", id: 6, error: { code: -32600 } });
    }
    const absent = await raw(fx.url, { headers: jsonPost({ "mcp-session-id": sid }), body: toolCall(7, "whoami") });
    expect(absent.status).toBe(200);
    expect(JSON.parse(absent.messages.at(-1).result.content[0].text).revision).toBe(revision);
  });

  it("answers application/json or text/event-stream as Accept allows; notifications ride the POST's own SSE stream", async () => {
    const sid = await openSession(fx.url, revision);
    const h = sessionHeaders(sid, revision);
    const sse = await raw(fx.url, { headers: jsonPost(h), body: toolCall(8, "notify", {}, { progressToken: "tok" }) });
    expect(sse.status).toBe(200);
    expect(sse.headers["content-type"]).toBe("text/event-stream");
    expect(sse.headers["mcp-session-id"]).toBe(sid);
    expect(sse.messages.map((m) => m.method ?? `response ${m.id}`)).toEqual(["notifications/progress", "notifications/message", "notifications/progress", "response 8"]);
    expect(sse.messages[0].params).toMatchObject({ progressToken: "tok", progress: 1, total: 2 });
    const json = await raw(fx.url, { headers: { ...jsonPost(h), accept: "application/json" }, body: toolCall(9, "notify", {}, { progressToken: "tok" }) });
    expect(json.headers["content-type"]).toBe("application/json");
    expect(json.json).toMatchObject({ jsonrpc: "2.0", id: 9, result: { content: [{ text: "notified" }] } });
    const sseOnly = await raw(fx.url, { headers: { ...jsonPost(h), accept: "text/event-stream" }, body: toolCall(10, "echo", { text: "s" }) });
    expect(sseOnly.headers["content-type"]).toBe("text/event-stream");
    expect(sseOnly.messages).toEqual([{ jsonrpc: "2.0", id: 10, result: { content: [{ type: "text", text: "s" }] } }]);
  });

  it("a message the server cannot accept (invalid notification, rejected batch) is 400 with an id-less JSON-RPC error", async () => {
    const sid = await openSession(fx.url, revision);
    const h = sessionHeaders(sid, revision);
    for (const body of [{ jsonrpc: "2.0", method: "notifications/foo", params: [] }, { jsonrpc: "1.0", method: "notifications/x" }, want.batches ? [] : [{ jsonrpc: "2.0", id: 3, method: "ping" }]]) {
      const r = await raw(fx.url, { headers: jsonPost(h), body });
      expect([r.status, r.json?.error?.code, r.json?.id ?? null], JSON.stringify(body)).toEqual([400, -32600, null]);
    }
  });

  it("a request the client cancels gets an event stream that ends without a response (never a bare 202)", async () => {
    const sid = await openSession(fx.url, revision);
    const h = sessionHeaders(sid, revision);
    const call = raw(fx.url, { headers: jsonPost(h), body: toolCall(70, "slow", { ms: 3000, tag: "c70" }), timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 200));
    const cancel = await raw(fx.url, { headers: jsonPost(h), body: { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 70 } } });
    expect(cancel.status).toBe(202);
    const r = await call;
    expect([r.status, r.headers["content-type"]]).toEqual([200, "text/event-stream"]);
    expect(r.messages).toEqual([]);
    if (!want.batches) return;
    // A batch whose requests are all cancelled: the same.
    const batch = raw(fx.url, { headers: jsonPost(h), body: [toolCall(71, "slow", { ms: 3000, tag: "c71" }), toolCall(72, "slow", { ms: 3000, tag: "c72" })], timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 200));
    for (const requestId of [71, 72]) await raw(fx.url, { headers: jsonPost(h), body: { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } } });
    const b = await batch;
    expect([b.status, b.headers["content-type"], b.messages]).toEqual([200, "text/event-stream", []]);
  });

  it("an initialize answered over SSE follows the negotiated revision: ids only where streams are resumable, priming only where 2025-11-25 asks", async () => {
    const r = await raw(fx.url, { headers: { ...jsonPost(), accept: "text/event-stream" }, body: initializeBody(revision) });
    expect(r.messages[0].result.protocolVersion).toBe(revision);
    expect(r.events.every((e) => (e.id !== undefined) === want.resumable)).toBe(true);
    expect(r.events[0].data === "").toBe(want.primes);
  });

  it("SSE events carry ids unique across the session's streams; 2025-11-25 primes each POST stream (id, retry, empty data)", async () => {
    const sid = await openSession(fx.url, revision);
    const h = sessionHeaders(sid, revision);
    const ids: string[] = [];
    for (const id of [60, 61]) {
      const r = await raw(fx.url, { headers: jsonPost(h), body: toolCall(id, "notify") });
      expect(r.headers["content-type"]).toBe("text/event-stream");
      const resumable = want.resumable;
      expect(r.events.every((e) => (e.id !== undefined) === resumable)).toBe(true);
      ids.push(...r.events.map((e) => e.id!).filter((x) => x !== undefined));
      const primed = want.primes;
      expect(r.events[0].data === "").toBe(primed);
      if (primed) expect(r.text.startsWith(`id: ${r.events[0].id}\nretry: `)).toBe(true);
      expect(r.messages.at(-1)).toMatchObject({ id, result: { content: [{ text: "notified" }] } });
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.runIf(want.resumable)("a dropped POST stream is resumed by GET with Last-Event-ID: the rest of that stream, response included, and nothing on other streams", async () => {
    const sid = await openSession(fx.url, revision);
    const h = sessionHeaders(sid, revision);
    // The client drops the connection once it has seen "part 1"; the handler runs on (a legacy disconnect is not cancellation).
    const first = await raw(fx.url, {
      headers: jsonPost(h),
      body: toolCall(62, "two_parts", { ms: 300 }),
      until: (events) => events.some((e) => e.data.includes("part 1")),
    });
    expect(first.messages.map((m) => m.params?.data)).toEqual(["part 1"]);
    const lastId = first.events.at(-1)!.id!;
    // A standalone GET stream opened meanwhile must not receive that stream's messages.
    const standalone = raw(fx.url, { method: "GET", headers: { accept: "text/event-stream", ...h }, timeoutMs: 1200 });
    const resumed = await raw(fx.url, { method: "GET", headers: { accept: "text/event-stream", "last-event-id": lastId, ...h }, timeoutMs: 5000 });
    expect(resumed.status).toBe(200);
    expect(resumed.messages.map((m) => m.params?.data ?? `response ${m.id}`)).toEqual(["part 2", "response 62"]);
    expect(resumed.messages.at(-1)).toMatchObject({ result: { content: [{ text: "both parts" }] } });
    // The resumed stream ended with the response (it did not wait for the timeout), and continues the ids.
    expect(resumed.events.every((e) => e.id !== undefined && e.id !== lastId && e.id.split("-")[0] === lastId.split("-")[0])).toBe(true);
    expect((await standalone).messages).toEqual([]);
    // The ended stream's log is kept (bounded) for a client that lost the end: the same id again replays the same.
    const again = await raw(fx.url, { method: "GET", headers: { accept: "text/event-stream", "last-event-id": lastId, ...h }, timeoutMs: 2000 });
    expect(again.messages.map((m) => m.params?.data ?? `response ${m.id}`)).toEqual(["part 2", "response 62"]);
  });

  it("SSE polling: a handler closes its connection (2025-11-25 only); the response comes on the GET that resumes the stream", async () => {
    const sid = await openSession(fx.url, revision);
    const h = sessionHeaders(sid, revision);
    const post = await raw(fx.url, { headers: jsonPost(h), body: toolCall(64, "test_reconnection"), timeoutMs: 5000 });
    if (!want.primes) {
      // Earlier revisions: the server SHOULD NOT close the stream before the response; closeStream() declines.
      expect(post.messages.at(-1)).toMatchObject({ id: 64, result: { content: [{ text: "closed: false" }] } });
      return;
    }
    // The connection ended before the response (the handler still sleeps), after an event with an id and a retry delay.
    expect(post.status).toBe(200);
    expect(post.messages).toEqual([]);
    expect(post.text).toMatch(/retry: \d+/);
    const lastId = post.events.at(-1)!.id!;
    const resumed = await raw(fx.url, { method: "GET", headers: { accept: "text/event-stream", "last-event-id": lastId, ...h }, timeoutMs: 5000 });
    expect(resumed.messages).toEqual([{ jsonrpc: "2.0", id: 64, result: { content: [{ type: "text", text: "closed: true" }] } }]);
  });

  it.runIf(want.resumable)("a Last-Event-ID of another session, or unknown, does not replay anything", async () => {
    const a = await openSession(fx.url, revision);
    const b = await openSession(fx.url, revision);
    const first = await raw(fx.url, {
      headers: jsonPost(sessionHeaders(a, revision)),
      body: toolCall(63, "two_parts", { ms: 200 }),
      until: (events) => events.some((e) => e.data.includes("part 1")),
    });
    const lastId = first.events.at(-1)!.id!;
    await new Promise((r) => setTimeout(r, 300));
    const foreign = await raw(fx.url, { method: "GET", headers: { accept: "text/event-stream", "last-event-id": lastId, ...sessionHeaders(b, revision) }, timeoutMs: 800 });
    expect(foreign.status).toBe(200);
    expect(foreign.messages).toEqual([]);
    const t0 = Date.now();
    const unknown = await raw(fx.url, { method: "GET", headers: { accept: "text/event-stream", "last-event-id": "999-1", ...sessionHeaders(a, revision) }, timeoutMs: 3000 });
    expect(unknown.status).toBe(200);
    expect(unknown.messages).toEqual([]);
    // It ends at once: it is not the session's GET stream (which a waiting client would read until its timeout).
    expect(Date.now() - t0).toBeLessThan(2500);
    const standalone = raw(fx.url, { method: "GET", headers: { accept: "text/event-stream", ...sessionHeaders(a, revision) }, timeoutMs: 500 });
    expect((await standalone).status).toBe(200);
  });

  it.runIf(want.primes)("more than 16 polled streams in one session: every one is resumed with its response", async () => {
    const sid = await openSession(fx.url, revision);
    const h = sessionHeaders(sid, revision);
    const ids = Array.from({ length: 20 }, (_, i) => 100 + i);
    const posts = await Promise.all(ids.map((id) => raw(fx.url, { headers: jsonPost(h), body: toolCall(id, "test_reconnection"), timeoutMs: 5000 })));
    const resumed = await Promise.all(posts.map((p) => raw(fx.url, { method: "GET", headers: { accept: "text/event-stream", "last-event-id": p.events.at(-1)!.id!, ...h }, timeoutMs: 5000 })));
    expect(resumed.map((r) => r.messages.map((m) => m.id))).toEqual(ids.map((id) => [id]));
  });

  it("a server→client request travels on the POST's SSE stream; the client's answer is a 202 POST", async () => {
    const sid = await openSession(fx.url, revision, "asker", { elicitation: {} });
    const h = sessionHeaders(sid, revision);
    let answered: Promise<unknown> | undefined;
    const r = await raw(fx.url, {
      headers: jsonPost(h),
      body: toolCall(11, "ask"),
      until: (events) => {
        const asked = events
          .filter((e) => e.data)
          .map((e) => JSON.parse(e.data))
          .find((m) => m.method === "elicitation/create");
        if (asked && !answered) {
          answered = raw(fx.url, { headers: jsonPost(h), body: { jsonrpc: "2.0", id: asked.id, result: { action: "accept", content: { name: "Ada" } } } });
        }
        return events.some((e) => e.data && JSON.parse(e.data).id === 11);
      },
    });
    const elicit = want.elicitation;
    if (elicit) {
      expect(((await answered) as { status: number }).status).toBe(202);
      expect(r.messages.at(-1).result.content[0].text).toBe("answer: Ada (accept)");
    } else {
      expect(r.messages.at(-1).result.isError).toBe(true);
    }
  });

  it("GET opens the session's stream: unsolicited messages go there only (never on two streams); a second GET is 409", async () => {
    const sid = await openSession(fx.url, revision);
    const h = sessionHeaders(sid, revision);
    const events: string[] = [];
    const stream = raw(fx.url, {
      method: "GET",
      headers: { accept: "text/event-stream", ...h },
      until: (ev) => {
        for (const e of ev.slice(events.length)) events.push(e.data);
        return ev.some((e) => e.data.includes("list_changed"));
      },
      timeoutMs: 5000,
    });
    await new Promise((r) => setTimeout(r, 100));
    const second = await raw(fx.url, { method: "GET", headers: { accept: "text/event-stream", ...h } });
    expect(second.status).toBe(409);
    const touch = await raw(fx.url, { headers: jsonPost(h), body: toolCall(12, "touch") });
    const got = await stream;
    expect(got.status).toBe(200);
    expect(got.headers["content-type"]).toBe("text/event-stream");
    expect(got.messages.map((m) => m.method)).toContain("notifications/tools/list_changed");
    expect(touch.messages.map((m) => m.method ?? "response")).toEqual(["response"]);
    const noAccept = await raw(fx.url, { method: "GET", headers: { accept: "application/json", ...h } });
    expect(noAccept.status).toBe(406);
  });

  it.runIf(want.resumable)("the GET stream resumes too: replay after Last-Event-ID, then what waited while it was closed", async () => {
    const sid = await openSession(fx.url, revision);
    const h = sessionHeaders(sid, revision);
    const changes = (ev: { data: string }[]) => ev.filter((e) => e.data.includes("list_changed")).length;
    const first = raw(fx.url, { method: "GET", headers: { accept: "text/event-stream", ...h }, until: (ev) => changes(ev) >= 2, timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 100));
    await raw(fx.url, { headers: jsonPost(h), body: toolCall(80, "touch") });
    await raw(fx.url, { headers: jsonPost(h), body: toolCall(81, "touch") });
    const got = await first;
    const [e1, e2] = got.events.filter((e) => e.data.includes("list_changed"));
    expect([e1.id, e2.id].every((id) => /^\d+-\d+$/.test(id!))).toBe(true);
    await new Promise((r) => setTimeout(r, 100)); // the server sees the GET stream closed
    await raw(fx.url, { headers: jsonPost(h), body: toolCall(82, "touch") }); // waits for the next GET stream
    const resumed = await raw(fx.url, { method: "GET", headers: { accept: "text/event-stream", "last-event-id": e1.id!, ...h }, until: (ev) => changes(ev) >= 2, timeoutMs: 5000 });
    const ids = resumed.events.filter((e) => e.data.includes("list_changed")).map((e) => e.id!);
    // e2 again (replayed: the client says it saw only e1), then the one that waited; same stream, ids increasing.
    expect(ids[0]).toBe(e2.id);
    expect(ids).toHaveLength(2);
    expect(ids[1].split("-")[0]).toBe(e1.id!.split("-")[0]);
    expect(Number(ids[1].split("-")[1])).toBeGreaterThan(Number(e2.id!.split("-")[1]));
  });

  it(`JSON-RPC batches ${want.batches ? "are answered with an array" : "are refused with -32600"}`, async () => {
    const sid = await openSession(fx.url, revision);
    const r = await raw(fx.url, {
      headers: jsonPost(sessionHeaders(sid, revision)),
      body: [toolCall(13, "echo", { text: "a" }), { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } }, toolCall(14, "echo", { text: "b" })],
    });
    if (want.batches) {
      expect(r.status).toBe(200);
      const arr = r.messages.length === 1 && Array.isArray(r.messages[0]) ? r.messages[0] : r.messages;
      expect(arr.map((m: { id: number }) => m.id).sort()).toEqual([13, 14]);
    } else {
      expect(r.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
    }
    const noSession = await raw(fx.url, { headers: jsonPost(), body: [toolCall(15, "echo", { text: "a" })] });
    expect(noSession.status).toBe(400);
  });

  it("a client disconnect is not cancellation: the handler runs to the end", async () => {
    const sid = await openSession(fx.url, revision);
    const tag = `legacy-${revision}`;
    await raw(fx.url, { headers: jsonPost(sessionHeaders(sid, revision)), body: toolCall(16, "slow", { ms: 200, tag }), abortAfterMs: 50 });
    expect(await waitFor(() => fx.stderr().includes(`finished ${tag}`), 3000)).toBe(true);
    expect(fx.stderr()).not.toContain(`aborted ${tag}`);
  });

  it("each session keeps its own client identity and capabilities; nothing leaks into other sessions or modern requests", async () => {
    const a = await openSession(fx.url, revision, "client-a", { roots: {} });
    const b = await openSession(fx.url, revision, "client-b", {});
    const who = async (sid: string) => JSON.parse((await raw(fx.url, { headers: jsonPost(sessionHeaders(sid, revision)), body: toolCall(17, "whoami") })).messages.at(-1).result.content[0].text);
    expect(await who(a)).toEqual({ client: "client-a", revision, era: "legacy", capabilities: ["roots"] });
    expect(await who(b)).toEqual({ client: "client-b", revision, era: "legacy", capabilities: [] });
    // A modern request carrying a legacy session id is served statelessly, and never gets the id back.
    const { body, headers } = modernRequest(18, "tools/call", { name: "whoami", arguments: {} });
    const m = await raw(fx.url, { headers: { ...headers, "mcp-session-id": a }, body });
    expect(m.status).toBe(200);
    expect(m.headers["mcp-session-id"]).toBeUndefined();
    expect(JSON.parse(m.messages.at(-1).result.content[0].text)).toEqual({ client: "raw-test", revision: MODERN, era: "modern", capabilities: [] });
  });
});

describe(`modern Streamable HTTP, revision ${MODERN}`, () => {
  const post = (body: object, headers: Record<string, string>) => raw(fx.url, { headers, body });

  it("no sessions: never mints or echoes Mcp-Session-Id; GET and DELETE are 405", async () => {
    const { body, headers } = modernRequest(20, "server/discover");
    const r = await post(body, { ...headers, "mcp-session-id": "whatever" });
    expect(r.status).toBe(200);
    expect(r.headers["mcp-session-id"]).toBeUndefined();
    expect(r.json.result).toMatchObject({ resultType: "complete", supportedVersions: expect.arrayContaining([MODERN]) });
    for (const method of ["GET", "DELETE"]) {
      const g = await raw(fx.url, { method, headers: { accept: "text/event-stream", "mcp-protocol-version": MODERN } });
      expect(g.status, method).toBe(405);
      expect(g.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
    }
  });

  it("rejects in the spec's order: header missing -32020, _meta missing -32602, header≠_meta -32020, unsupported -32022, unknown method 404/-32601", async () => {
    const { body, headers } = modernRequest(21, "server/discover");
    const noHeader = { ...headers };
    delete noHeader["mcp-protocol-version"];
    let r = await post(body, noHeader);
    expect([r.status, r.json]).toEqual([400, { jsonrpc: "2.0", id: 21, error: { code: -32020, message: expect.stringContaining("MCP-Protocol-Version") } }]);

    r = await post({ jsonrpc: "2.0", id: 22, method: "server/discover", params: {} }, headers);
    expect([r.status, r.json.id, r.json.error.code]).toEqual([400, 22, -32602]);
    r = await post({ jsonrpc: "2.0", id: 23, method: "server/discover", params: { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN } } }, headers);
    expect([r.status, r.json.error.code]).toEqual([400, -32602]);
    // A missing _meta wins over a header that disagrees with nothing.
    r = await post({ jsonrpc: "2.0", id: 24, method: "server/discover", params: {} }, { ...headers, "mcp-protocol-version": "v999" });
    expect([r.status, r.json.error.code]).toEqual([400, -32602]);

    r = await post(modernRequest(25, "server/discover", {}, modernMeta("v999.0.0")).body, headers);
    expect([r.status, r.json.id, r.json.error.code]).toEqual([400, 25, -32020]);

    const unsupported = modernRequest(26, "server/discover", {}, modernMeta("v999.0.0"));
    r = await post(unsupported.body, unsupported.headers);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ id: 26, error: { code: -32022, data: { supported: expect.arrayContaining([MODERN]), requested: "v999.0.0" } } });
    const legacyVersion = modernRequest(27, "server/discover", {}, modernMeta("2025-11-25"));
    r = await post(legacyVersion.body, legacyVersion.headers);
    expect([r.status, r.json.error.code]).toEqual([400, -32022]);

    for (const method of ["unknown/method", "initialize", "ping", "logging/setLevel", "resources/subscribe"]) {
      const u = modernRequest(28, method);
      r = await post(u.body, u.headers);
      expect([r.status, r.json.id, r.json.error.code], method).toEqual([404, 28, -32601]);
    }
  });

  it("Mcp-Method and Mcp-Name mirror the body (case-sensitive values, Base64 sentinel decoded, whitespace trimmed); a mismatch is 400/-32020", async () => {
    const call = modernRequest(30, "tools/call", { name: "echo", arguments: { text: "t" } });
    const cases: [string, Record<string, string | undefined>, number][] = [
      ["ok", {}, 200],
      ["lower-case header names", { "mcp-method": "tools/call" }, 200],
      ["missing Mcp-Method", { "mcp-method": undefined }, 400],
      ["Mcp-Method mismatch", { "mcp-method": "tools/list" }, 400],
      ["Mcp-Method case", { "mcp-method": "TOOLS/CALL" }, 400],
      ["missing Mcp-Name", { "mcp-name": undefined }, 400],
      ["Mcp-Name mismatch", { "mcp-name": "other" }, 400],
      ["Mcp-Name padded", { "mcp-name": "  echo  " }, 200],
      ["Mcp-Name in Base64", { "mcp-name": `=?base64?${Buffer.from("echo").toString("base64")}?=` }, 200],
      ["Mcp-Name bad Base64", { "mcp-name": "=?base64?ZWNob!!?=" }, 400],
    ];
    for (const [what, change, status] of cases) {
      const headers = { ...call.headers } as Record<string, string>;
      for (const [k, v] of Object.entries(change)) {
        if (v === undefined) delete headers[k];
        else headers[k] = v;
      }
      const r = await post(call.body, headers);
      expect(r.status, what).toBe(status);
      if (status === 400) expect(r.json, what).toMatchObject({ jsonrpc: "2.0", id: 30, error: { code: -32020 } });
      else expect(r.json.result, what).toBeDefined();
    }
    const read = modernRequest(31, "resources/read", { uri: "test://static-text" });
    expect((await post(read.body, { ...read.headers, "mcp-name": "test://other" })).json.error.code).toBe(-32020);
    expect((await post(read.body, read.headers)).status).toBe(200);
  });

  it("Mcp-Param-* headers of x-mcp-header parameters are validated after decoding (numbers numerically)", async () => {
    const args = { region: "us-west1", count: 42, flag: true, nested: { zone: "Zürich" }, query: "SELECT 1" };
    const call = modernRequest(32, "tools/call", { name: "headers", arguments: args });
    const good = { ...call.headers, "mcp-param-region": "us-west1", "mcp-param-count": "42", "mcp-param-flag": "true", "mcp-param-zone": `=?base64?${Buffer.from("Zürich").toString("base64")}?=` };
    expect((await post(call.body, good)).status).toBe(200);
    expect((await post(call.body, { ...good, "mcp-param-count": "42.0" })).status).toBe(200);
    const bad: [string, Record<string, string | undefined>][] = [
      ["missing", { "mcp-param-region": undefined }],
      ["mismatch", { "mcp-param-region": "eu-west1" }],
      ["integer mismatch", { "mcp-param-count": "43" }],
      ["boolean mismatch", { "mcp-param-flag": "false" }],
      ["bad padding", { "mcp-param-zone": "=?base64?WsO8cmljaA?=" }],
      ["nested missing", { "mcp-param-zone": undefined }],
    ];
    for (const [what, change] of bad) {
      const h = { ...good } as Record<string, string>;
      for (const [k, v] of Object.entries(change)) {
        if (v === undefined) delete h[k];
        else h[k] = v;
      }
      const r = await post(call.body, h);
      expect([r.status, r.json?.error?.code], what).toEqual([400, -32020]);
    }
    // A value without the sentinel's markers is literal; an absent argument needs no header.
    const literal = modernRequest(33, "tools/call", { name: "headers", arguments: { region: "=?base64?abc" } });
    expect((await post(literal.body, { ...literal.headers, "mcp-param-region": "=?base64?abc" })).status).toBe(200);
    const none = modernRequest(34, "tools/call", { name: "headers", arguments: {} });
    expect((await post(none.body, none.headers)).status).toBe(200);
    // A header for a value the body does not carry (absent or null) matches nothing: -32020.
    for (const args of [{}, { region: null }]) {
      const absent = modernRequest(34, "tools/call", { name: "headers", arguments: args });
      const r = await post(absent.body, { ...absent.headers, "mcp-param-region": "us-west1" });
      expect([r.status, r.json?.error?.code], JSON.stringify(args)).toEqual([400, -32020]);
    }
  });

  it("an envelope whose id cannot be read is 400 with an id-less -32600 (whatever check rejects it)", async () => {
    for (const [what, change] of [
      ["id null", { id: null }],
      ["id true", { id: true }],
      ["id 1.5", { id: 1.5 }],
      ["jsonrpc 1.0", { jsonrpc: "1.0", id: true }],
    ] as const) {
      const call = modernRequest(0, "server/discover");
      const r = await post({ ...call.body, ...change }, call.headers);
      expect([r.status, r.json?.error?.code, r.json?.id ?? null], what).toEqual([400, -32600, null]);
    }
  });

  it("subscriptions/listen from a client that accepts only JSON is 406 (its answer is an event stream), not a hang", async () => {
    const listen = modernRequest(71, "subscriptions/listen", { notifications: { toolsListChanged: true } });
    const r = await raw(fx.url, { headers: { ...listen.headers, accept: "application/json" }, body: listen.body, timeoutMs: 3000 });
    expect([r.status, r.json?.error?.code, r.json?.id]).toEqual([406, -32600, 71]);
  });

  it("JSON or SSE as Accept allows; progress precedes the result on the same SSE response; notification POSTs get 202", async () => {
    const call = modernRequest(35, "tools/call", { name: "notify", arguments: {}, _meta: { progressToken: 7, "io.modelcontextprotocol/logLevel": "info" } });
    const sse = await post(call.body, call.headers);
    expect(sse.headers["content-type"]).toBe("text/event-stream");
    expect(sse.headers["x-accel-buffering"]).toBe("no");
    expect(sse.messages.map((m) => m.method ?? `response ${m.id}`)).toEqual(["notifications/progress", "notifications/message", "notifications/progress", "response 35"]);
    expect(sse.messages.at(-1).result.resultType).toBe("complete");
    // Streams are not resumable in this revision: no event ids, no priming event.
    expect(sse.events.every((e) => e.id === undefined && e.data !== "")).toBe(true);
    const json = await post(call.body, { ...call.headers, accept: "application/json" });
    expect(json.headers["content-type"]).toBe("application/json");
    expect(json.json).toMatchObject({ id: 35, result: { resultType: "complete" } });
    const note = await post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, _meta: modernMeta() } }, call.headers);
    expect([note.status, note.text]).toEqual([202, ""]);
  });

  it("a missing client capability is 400/-32021 with data.requiredCapabilities", async () => {
    const call = modernRequest(36, "tools/call", { name: "test_missing_capability", arguments: {} });
    const r = await post(call.body, call.headers);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ id: 36, error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } } });
  });

  it("a client disconnect is cancellation: the handler's signal fires and nothing more is sent", async () => {
    const tag = "modern-disconnect";
    const call = modernRequest(37, "tools/call", { name: "slow", arguments: { ms: 2000, tag } });
    await raw(fx.url, { headers: call.headers, body: call.body, abortAfterMs: 100 });
    expect(await waitFor(() => fx.stderr().includes(`aborted ${tag}`), 3000)).toBe(true);
    expect(fx.stderr()).not.toContain(`finished ${tag}`);
  });

  it("subscriptions/listen is an SSE response: acknowledged first, tagged notifications, keep-alive comments; closing it ends it", async () => {
    const listen = modernRequest(39, "subscriptions/listen", { notifications: { toolsListChanged: true } });
    let touched: Promise<unknown> | undefined;
    const r = await raw(fx.url, {
      headers: listen.headers,
      body: listen.body,
      until: (events) => {
        if (events.length && !touched) {
          // After the acknowledgement and a keep-alive interval, change the tool list from another request.
          touched = new Promise((res) => setTimeout(res, 300)).then(() => {
            const t = modernRequest(40, "tools/call", { name: "touch", arguments: {} });
            return raw(fx.url, { headers: t.headers, body: t.body });
          });
        }
        return events.some((e) => e.data.includes("tools/list_changed"));
      },
    });
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("text/event-stream");
    expect(r.headers["mcp-session-id"]).toBeUndefined();
    expect(r.messages[0]).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { toolsListChanged: true }, _meta: { "io.modelcontextprotocol/subscriptionId": 39 } },
    });
    expect(r.messages.at(-1)).toMatchObject({ method: "notifications/tools/list_changed", params: { _meta: { "io.modelcontextprotocol/subscriptionId": 39 } } });
    expect(r.text).toMatch(/^:\n\n/m);
    expect(((await touched) as { status: number }).status).toBe(200);
  });

  it("an error the schema gives no HTTP status is a 200 JSON-RPC error (never a bare {error})", async () => {
    const read = modernRequest(38, "resources/read", { uri: "test://template/missing/data" });
    const r = await post(read.body, read.headers);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ jsonrpc: "2.0", id: 38, error: { code: -32602, data: { uri: "test://template/missing/data" } } });
  });
});

describe("McpClient over HTTP (StreamableHttpClientTransport, SseClientTransport)", () => {
  it.each([...STREAMABLE_LEGACY, MODERN])("revision %s: lists and calls tools, reads a resource, gets a prompt; status and headers are delivered", async (revision) => {
    const transport = new StreamableHttpClientTransport(fx.url);
    const client = await new McpClient({ transport, revision: revision as Revision, clientInfo: { name: "mcp-client", version: "1" } }).connect();
    try {
      expect(client.era).toBe(expects(revision).modern ? "modern" : "legacy");
      const tools = (await client.listTools()).tools as { name: string }[];
      expect(tools.map((t) => t.name)).toContain("headers");
      const { result, delivery } = await client.requestWithDelivery("tools/call", { name: "echo", arguments: { text: "hello" } });
      expect(result.content).toEqual([{ type: "text", text: "hello" }]);
      expect(delivery?.status).toBe(200);
      if (client.era === "legacy") expect(delivery?.headers?.["mcp-session-id"]).toBe(transport.sessionId);
      else expect(delivery?.headers?.["mcp-session-id"]).toBeUndefined();
      // x-mcp-header parameters are mirrored by the client (the server would refuse otherwise).
      expect((await client.callTool("headers", { region: " padded ", count: 5, flag: false, nested: { zone: "Zürich" } })).content).toBeDefined();
      expect((await client.readResource("test://static-text")).contents).toEqual([{ uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." }]);
      const p = await client.getPrompt("test_prompt_with_arguments", { arg1: "a", arg2: "b" });
      expect((p.messages as { content: { text: string } }[])[0].content.text).toBe("Prompt with arguments: arg1='a', arg2='b'");
      const err = await client.readResource("test://template/missing/data").catch((e) => e);
      expect(err).toBeInstanceOf(ClientError);
      expect(err.code).toBe(expects(revision).resourceNotFound);
    } finally {
      await client.close();
    }
    if (!expects(revision).modern) expect(transport.sessionId).toBeUndefined();
  });

  it.each(STREAMABLE_LEGACY)("revision %s: a stream the server closes before the response (SSE polling) is resumed with Last-Event-ID", async (revision) => {
    const client = await new McpClient({ transport: new StreamableHttpClientTransport(fx.url), revision: revision as Revision }).connect();
    try {
      const polled = expects(revision).primes;
      expect((await client.callTool("test_reconnection", {})).content).toEqual([{ type: "text", text: `closed: ${polled}` }]);
    } finally {
      await client.close();
    }
  });

  it("probes server/discover and settles on the modern era when not pinned", async () => {
    const client = await new McpClient({ transport: new StreamableHttpClientTransport(fx.url) }).connect();
    expect([client.era, client.revision]).toEqual(["modern", MODERN]);
    await client.close();
  });
});

describe.each(SSE_ONLY)("a %s client on the Streamable HTTP endpoint", (revision) => {
  // The revision predates Streamable HTTP (rules: transports) and so defines no sessions (rules: hasSessions), but a
  // client that negotiates it there still needs its state kept: it gets a session like any legacy client.
  it("gets its version echoed and a session", async () => {
    const r = await raw(fx.url, { headers: jsonPost(), body: initializeBody(revision) });
    expect(r.status).toBe(200);
    expect(r.messages.at(-1).result.protocolVersion).toBe(revision);
    const sid = r.headers["mcp-session-id"] as string;
    expect(sid).toMatch(/^[\x21-\x7e]+$/);
    const list = await raw(fx.url, { headers: jsonPost({ "mcp-session-id": sid }), body: { jsonrpc: "2.0", id: 2, method: "tools/list" } });
    expect(list.messages.at(-1).result.tools.length).toBeGreaterThan(0);
  });
});

describe("a modern-only server over HTTP (revisions: [2026-07-28])", () => {
  let mfx: Fixture;
  beforeAll(async () => {
    mfx = await startFixture({ FIXTURE_REVISIONS: MODERN });
  });
  afterAll(async () => {
    await mfx?.stop();
  });

  // The same answer as over stdio: a legacy client has no fall-forward, so the error names the supported versions with a
  // code its revision defines (-32602), not -32020. spec/2026-07-28/basic/versioning.mdx#compatibility-matrix
  it("answers a legacy initialize with 400 and -32602 naming its supported versions", async () => {
    const r = await raw(mfx.url, { headers: jsonPost(), body: initializeBody("2025-11-25") });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32602, data: { supported: [MODERN], requested: "2025-11-25" } } });
    expect(r.headers["mcp-session-id"]).toBeUndefined();
  });

  it("ignores Mcp-Session-Id on a modern request (no session is minted or echoed)", async () => {
    const { body, headers } = modernRequest(2, "tools/list");
    const r = await raw(mfx.url, { headers: { ...headers, "mcp-session-id": "stale" }, body });
    expect(r.status).toBe(200);
    expect(r.json.result.tools.length).toBeGreaterThan(0);
    expect(r.headers["mcp-session-id"]).toBeUndefined();
  });
});

describe("replay buffer bound (replayBufferBytes)", () => {
  it("a session keeps at most 4 MiB of events: an ended stream's events go before those of streams still running", async () => {
    const revision = "2025-11-25";
    const sid = await openSession(fx.url, revision);
    const h = sessionHeaders(sid, revision);
    const dropAfterPart1 = (id: string) => raw(fx.url, { headers: jsonPost(h), body: toolCall(id, "two_parts", { ms: 300 }), until: (events) => events.some((e) => e.data.includes("part 1")) });
    const resume = (lastId: string) => raw(fx.url, { method: "GET", headers: { accept: "text/event-stream", "last-event-id": lastId, ...h }, timeoutMs: 5000 });
    // A: its 2.5 M-character response is kept once it ends. B: its own 2.5 M-character response needs the room, and A's
    // (ended) events are the ones that go. (The shared fixture has the default 64 MiB global bound.)
    const a = await dropAfterPart1("a".repeat(2_500_000));
    await new Promise((r) => setTimeout(r, 500));
    const b = await dropAfterPart1("b".repeat(2_500_000));
    await new Promise((r) => setTimeout(r, 500));
    expect((await resume(b.events.at(-1)!.id!)).messages.map((m) => m.params?.data ?? "response")).toEqual(["part 2", "response"]);
    expect((await resume(a.events.at(-1)!.id!)).messages.map((m) => m.params?.data ?? "response")).toEqual([]);
  });

  let rfx: Fixture;
  beforeAll(async () => {
    rfx = await startFixture({ FIXTURE_REPLAY_BYTES: "20000" });
  });
  afterAll(async () => {
    await rfx?.stop();
  });

  it("events past the bound are sent but not kept: a resumption replays what was kept, and the process lives on", async () => {
    const revision = "2025-11-25";
    const sid = await openSession(rfx.url, revision);
    const h = sessionHeaders(sid, revision);
    const dropAfterPart1 = (id: number | string) =>
      raw(rfx.url, { headers: jsonPost(h), body: toolCall(id, "two_parts", { ms: 200 }), until: (events) => events.some((e) => e.data.includes("part 1")) });
    const resume = (lastId: string) => raw(rfx.url, { method: "GET", headers: { accept: "text/event-stream", "last-event-id": lastId, ...h }, timeoutMs: 5000 });
    // A response larger than the whole buffer (its 30 000-character id) is not kept; the small "part 2" before it is.
    const big = "x".repeat(30_000);
    const first = await dropAfterPart1(big);
    await new Promise((r) => setTimeout(r, 400));
    expect((await resume(first.events.at(-1)!.id!)).messages.map((m) => m.params?.data ?? "response")).toEqual(["part 2"]);
    // A small one is kept whole.
    const second = await dropAfterPart1(5);
    expect((await resume(second.events.at(-1)!.id!)).messages.map((m) => m.params?.data ?? `response ${m.id}`)).toEqual(["part 2", "response 5"]);
  });
});

describe.each(SSE_ONLY)("HTTP+SSE (deprecated), revision %s, with legacySse: true", (revision) => {
  let sfx: Fixture;
  beforeAll(async () => {
    sfx = await startFixture({ FIXTURE_LEGACY_SSE: "1" });
  });
  afterAll(async () => {
    await sfx?.stop();
  });

  it("GET /sse sends an endpoint event with the POST URL and session id; every server message is an SSE message event", async () => {
    const base = new URL(sfx.url).origin;
    let endpoint: string | undefined;
    let posted: Promise<unknown> | undefined;
    const stream = raw(`${base}/sse`, {
      method: "GET",
      headers: { accept: "text/event-stream" },
      until: (events) => {
        const ep = events.find((e) => e.event === "endpoint");
        if (ep && !posted) {
          endpoint = ep.data;
          posted = raw(`${base}${ep.data}`, { headers: { "content-type": "application/json" }, body: initializeBody(revision, 40) });
        }
        return events.some((e) => e.event === "message" && JSON.parse(e.data).id === 40);
      },
    });
    const got = await stream;
    expect(got.headers["content-type"]).toBe("text/event-stream");
    expect(got.events[0].event).toBe("endpoint");
    expect(endpoint).toMatch(/^\/messages\?sessionId=[\x21-\x7E]{32,}$/);
    expect(((await posted) as { status: number }).status).toBe(202);
    const msg = got.events.find((e) => e.event === "message")!;
    expect(JSON.parse(msg.data)).toMatchObject({ jsonrpc: "2.0", id: 40, result: { protocolVersion: revision } });
    const unknown = await raw(`${base}/messages?sessionId=nope`, { headers: { "content-type": "application/json" }, body: initializeBody(revision) });
    expect(unknown.status).toBe(404);
  });

  it("McpClient over SseClientTransport: lists and calls tools, reads a resource, gets a prompt", async () => {
    const transport = new SseClientTransport(new URL("/sse", sfx.url));
    const client = await new McpClient({ transport, revision }).connect();
    try {
      expect(client.revision).toBe(revision);
      expect(((await client.listTools()).tools as unknown[]).length).toBeGreaterThan(3);
      expect((await client.callTool("echo", { text: "over sse" })).content).toEqual([{ type: "text", text: "over sse" }]);
      expect(((await client.readResource("test://static-text")).contents as unknown[]).length).toBe(1);
      expect(((await client.getPrompt("test_simple_prompt")).messages as unknown[]).length).toBe(1);
    } finally {
      await client.close();
    }
  });
});
