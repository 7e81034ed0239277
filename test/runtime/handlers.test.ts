// server.fetchHandler() called in process with web-standard Requests, and server.nodeHandler() mounted at a custom
// path in a real node:http server on 127.0.0.1: both eras, the security defaults, and SSE through a ReadableStream.
// (Express, Fastify, Hono, workerd, Bun and Deno: test/hosts/.)
import { createServer as createHttpServer, type Server } from "node:http";
import { gunzipSync, gzipSync } from "node:zlib";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createParser } from "eventsource-parser";
import { createServer, type FetchHandler, type McpServer } from "../../runtime/dist/index.js";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";

function fixture(): McpServer {
  const server = createServer({ name: "handlers-fixture", version: "1.0.0" });
  server.tool({
    name: "echo",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    handler: ({ text }) => ({ content: [{ type: "text", text: String(text) }] }),
  });
  server.tool({
    name: "count",
    inputSchema: { type: "object" },
    handler: async (_args, ctx) => {
      for (const p of [0, 50, 100]) ctx.progress(p, 100);
      return { content: [{ type: "text", text: "done" }] };
    },
  });
  return server;
}

const meta = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} };
function modern(id: number, method: string, params: Record<string, unknown> = {}, name?: string): { headers: Record<string, string>; body: Record<string, unknown> } {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN, "mcp-method": method };
  if (name !== undefined) headers["mcp-name"] = name;
  return { headers, body: { jsonrpc: "2.0", id, method, params: { ...params, _meta: { ...meta, ...(params._meta as object) } } } };
}
const legacyHeaders = (sid?: string): Record<string, string> => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...(sid ? { "mcp-session-id": sid, "mcp-protocol-version": LEGACY } : {}),
});

/** What a response carried: status, headers, and its JSON-RPC messages (JSON or SSE). */
async function read(res: Response): Promise<{ status: number; headers: Headers; messages: any[] }> {
  const text = await res.text();
  const messages: any[] = [];
  if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
    const parser = createParser({ onEvent: (e) => e.data && messages.push(JSON.parse(e.data)) });
    parser.feed(text);
  } else if (text) messages.push(JSON.parse(text));
  return { status: res.status, headers: res.headers, messages };
}

describe("fetchHandler (web-standard Request → Response)", () => {
  let handler: FetchHandler;
  const call = (init: { method?: string; headers?: Record<string, string>; body?: unknown }, url = "http://127.0.0.1:8787/anything") =>
    handler(
      new Request(url, { method: init.method ?? "POST", headers: init.headers, body: init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body) }),
    ).then(read);

  beforeAll(() => {
    handler = fixture().fetchHandler();
  });
  afterAll(() => handler.close());

  it("answers server/discover and a modern tools/call at any path", async () => {
    const discover = await call(modern(1, "server/discover"));
    expect(discover.status).toBe(200);
    expect(discover.messages[0].result).toMatchObject({ supportedVersions: expect.arrayContaining([MODERN, LEGACY]), resultType: "complete" });
    const echo = await call(modern(2, "tools/call", { name: "echo", arguments: { text: "hi" } }, "echo"));
    expect(echo.messages[0].result.content).toEqual([{ type: "text", text: "hi" }]);
  });

  it("streams a request's notifications before its response as SSE", async () => {
    const r = await call(modern(3, "tools/call", { name: "count", arguments: {}, _meta: { progressToken: "t" } }, "count"));
    expect(r.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(r.messages.map((m) => m.params?.progress ?? "response")).toEqual([0, 50, 100, "response"]);
  });

  it("serves a legacy session: initialize → tools/call → DELETE, then 404", async () => {
    const init = await call({
      headers: legacyHeaders(),
      body: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "t", version: "1" } } },
    });
    const sid = init.headers.get("mcp-session-id")!;
    expect(init.status).toBe(200);
    expect(sid).toMatch(/^[\x21-\x7e]{32}$/);
    expect((await call({ headers: legacyHeaders(sid), body: { jsonrpc: "2.0", method: "notifications/initialized" } })).status).toBe(202);
    const echo = await call({ headers: legacyHeaders(sid), body: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "legacy" } } } });
    expect(echo.messages.at(-1).result.content).toEqual([{ type: "text", text: "legacy" }]);
    expect((await call({ method: "DELETE", headers: legacyHeaders(sid) })).status).toBe(200);
    expect((await call({ headers: legacyHeaders(sid), body: { jsonrpc: "2.0", id: 3, method: "tools/list" } })).status).toBe(404);
  });

  it("keeps the secure defaults: foreign Origin 403, non-loopback Host 403, oversized body 413", async () => {
    const { headers, body } = modern(4, "tools/list");
    expect((await call({ headers: { ...headers, origin: "http://evil.example" }, body })).status).toBe(403);
    expect((await call({ headers: { ...headers, origin: "http://localhost:5173" }, body })).status).toBe(200);
    expect((await call({ headers, body }, "http://evil.example/mcp")).status).toBe(403);
    const big = await call({ headers, body: JSON.stringify({ ...body, pad: "x".repeat(5 * 1024 * 1024) }) });
    expect(big.status).toBe(413);
  });

  // Holds the exact match of loopback Origins (transport/http/security.ts, default originAllowed): the Origin's host
  // must BE a loopback name, not start with one. spec/2025-11-25/basic/transports.mdx#security-warning
  it("Origin: a loopback origin is matched exactly; look-alikes that start with a loopback name are 403", async () => {
    const { headers, body } = modern(8, "tools/list");
    const status = async (origin: string) => (await call({ headers: { ...headers, origin }, body })).status;
    for (const origin of ["http://localhost", "https://localhost:8443", "http://127.0.0.1:3000", "http://[::1]:5173", "http://LOCALHOST:5173"]) expect(await status(origin), origin).toBe(200);
    for (const origin of [
      "http://localhost.evil.example",
      "http://localhost.evil.example:5173",
      "http://127.0.0.1.nip.io",
      "http://127.0.0.1.nip.io:3000",
      "http://localhost:3000@evil.example",
      "http://localhostevil.example",
      "http://[::1].evil.example",
      "ftp://localhost",
      "null",
    ]) {
      expect(await status(origin), origin).toBe(403);
    }
  });

  // Holds `allowedOrigins` (transport/http/security.ts): a configured list replaces the loopback default, and its
  // entries match exactly; a predicate decides alone.
  it("allowedOrigins: a configured origin is served, any other (a loopback one and a prefix look-alike included) is 403", async () => {
    const listed = fixture().fetchHandler({ allowedOrigins: ["https://app.example", "http://localhost:5173"] });
    const predicate = fixture().fetchHandler({ allowedOrigins: (origin) => origin === "https://trusted.example" });
    try {
      const { headers, body } = modern(9, "tools/list");
      const status = (h: FetchHandler, origin: string) =>
        h(new Request("http://127.0.0.1:8787/mcp", { method: "POST", headers: { ...headers, origin }, body: JSON.stringify(body) })).then((r) => r.status);
      expect(await status(listed, "https://app.example")).toBe(200);
      expect(await status(listed, "http://localhost:5173")).toBe(200);
      for (const origin of ["https://evil.example", "https://app.example.evil.example", "https://app.example:8443", "http://app.example", "http://localhost:5174", "http://127.0.0.1:5173"]) {
        expect(await status(listed, origin), origin).toBe(403);
      }
      expect(await status(predicate, "https://trusted.example")).toBe(200);
      for (const origin of ["https://evil.example", "http://localhost:5173"]) expect(await status(predicate, origin), origin).toBe(403);
      // Without an Origin (a non-browser client): served.
      expect((await listed(new Request("http://127.0.0.1:8787/mcp", { method: "POST", headers, body: JSON.stringify(body) }))).status).toBe(200);
    } finally {
      await Promise.all([listed.close(), predicate.close()]);
    }
  });

  it("refuses Host values whose port is not a port", async () => {
    const { headers, body } = modern(6, "tools/list");
    const status = (host: string) => handler(new Request("http://127.0.0.1/mcp", { method: "POST", headers: { ...headers, host }, body: JSON.stringify(body) })).then((r) => r.status);
    expect(await status("localhost:8787")).toBe(200);
    expect(await status("[::1]:8787")).toBe(200);
    for (const bad of ["localhost:abc", "[::1]evil.com", "localhost:"]) expect(await status(bad), bad).toBe(403);
  });

  it("a client gone before its request runs leaves nothing behind: a slow handler is cancelled, a listen ends", async () => {
    const server = fixture();
    let cancelled = false;
    server.tool({
      name: "slow",
      inputSchema: { type: "object" },
      handler: (_args, ctx) =>
        new Promise((resolve) => {
          const t = setTimeout(() => resolve({ content: [] }), 5000);
          ctx.signal.addEventListener("abort", () => ((cancelled = true), clearTimeout(t), resolve({ content: [] })));
        }),
    });
    const h = server.fetchHandler();
    const listeners = () => (server as unknown as { listeners: Set<unknown> }).listeners.size;
    const before = listeners();
    // tools/call's validator loaded first, so that the slow handler starts before the disconnect is seen (one that has
    // not started by then never does: cancelled-before-run.test.ts).
    const warm = modern(6, "tools/call", { name: "echo", arguments: { text: "x" } }, "echo");
    expect((await h(new Request("http://127.0.0.1/mcp", { method: "POST", headers: warm.headers, body: JSON.stringify(warm.body) }))).status).toBe(200);
    const gone = AbortSignal.abort();
    const call = modern(7, "tools/call", { name: "slow", arguments: {} }, "slow");
    const slow = await h(new Request("http://127.0.0.1/mcp", { method: "POST", headers: call.headers, body: JSON.stringify(call.body), signal: gone }));
    expect(slow.status).toBe(499);
    expect(cancelled).toBe(true);
    const listen = modern(8, "subscriptions/listen", { notifications: { toolsListChanged: true } });
    for (let i = 0; i < 20; i++) await h(new Request("http://127.0.0.1/mcp", { method: "POST", headers: listen.headers, body: JSON.stringify(listen.body), signal: gone }));
    await new Promise((r) => setTimeout(r, 20));
    expect(listeners()).toBe(before);
    await h.close();
  });

  it("a client that goes away while its request runs cancels it: the handler's signal aborts, the Response is 499", async () => {
    const server = fixture();
    let cancelledAfter: number | undefined;
    const started = Date.now();
    server.tool({
      name: "slow",
      inputSchema: { type: "object" },
      handler: (_args, ctx) =>
        new Promise((resolve) => {
          const t = setTimeout(() => resolve({ content: [{ type: "text", text: "finished" }] }), 5000);
          ctx.signal.addEventListener("abort", () => ((cancelledAfter = Date.now() - started), clearTimeout(t), resolve({ content: [] })));
        }),
    });
    const h = server.fetchHandler();
    const client = new AbortController();
    const call = modern(11, "tools/call", { name: "slow", arguments: {} }, "slow");
    const answer = h(new Request("http://127.0.0.1/mcp", { method: "POST", headers: call.headers, body: JSON.stringify(call.body), signal: client.signal }));
    setTimeout(() => client.abort(), 150);
    expect((await answer).status).toBe(499);
    expect(cancelledAfter).toBeGreaterThanOrEqual(140);
    expect(cancelledAfter).toBeLessThan(2000);
    await h.close();
  });

  it("clientKey sees every header of the Request, as on Node; the URL's authority stands in for a missing Host", async () => {
    const seen: Record<string, unknown>[] = [];
    const byName: unknown[] = [];
    const h = fixture().fetchHandler({
      clientKey: ({ headers }) => {
        // A plain object, as Node's: a header named constructor is the header, the rest is Object's.
        byName.push([headers["constructor"], headers["toString"], "hasOwnProperty" in headers]);
        seen.push({ ...headers });
        return String(headers["x-caller"]);
      },
    });
    const call = modern(12, "tools/call", { name: "echo", arguments: { text: "hi" } }, "echo");
    const r = await h(new Request("http://127.0.0.1:8787/mcp?x=1", { method: "POST", headers: { ...call.headers, "x-caller": "c1", constructor: "c2" }, body: JSON.stringify(call.body) }));
    expect(r.status).toBe(200);
    for (const b of byName) expect(b).toEqual(["c2", Object.prototype.toString, true]);
    // Asked once per quota that keys by caller; each time the same headers.
    expect(seen.length).toBeGreaterThan(0);
    for (const headers of seen) expect(headers).toEqual({ ...call.headers, "x-caller": "c1", constructor: "c2", host: "127.0.0.1:8787" });
    await h.close();
  });

  it("refuses a Request whose URL is not http(s) with 400, whatever its Host header", async () => {
    const call = modern(13, "tools/call", { name: "echo", arguments: { text: "hi" } }, "echo");
    for (const url of ["blob:http://localhost/mcp", "foo://localhost/mcp", "about:blank"]) {
      for (const host of [undefined, "localhost"]) {
        const headers = host ? { ...call.headers, host } : call.headers;
        const r = await handler(new Request(url, { method: "POST", headers, body: JSON.stringify(call.body) }));
        expect([url, host, r.status]).toEqual([url, host, 400]);
      }
    }
  });

  it("answers 400 when the body stream fails", async () => {
    const { headers } = modern(9, "tools/list");
    const broken = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode("{"));
        c.error(new Error("the connection broke"));
      },
    });
    const r = await handler(new Request("http://127.0.0.1/mcp", { method: "POST", headers, body: broken, duplex: "half" } as RequestInit));
    expect(r.status).toBe(400);
    expect((await r.json()).error.code).toBe(-32600);
  });

  it("ends an open subscriptions/listen gracefully when the handler closes: the listen's result is sent", async () => {
    const h = fixture().fetchHandler();
    const listen = modern(10, "subscriptions/listen", { notifications: { toolsListChanged: true } });
    const res = await h(new Request("http://127.0.0.1/mcp", { method: "POST", headers: listen.headers, body: JSON.stringify(listen.body) }));
    const text = res.text();
    await new Promise((r) => setTimeout(r, 50));
    await h.close();
    const messages = (await read(new Response(await text, { headers: res.headers }))).messages;
    expect(messages[0].method).toBe("notifications/subscriptions/acknowledged");
    expect(messages.at(-1)).toMatchObject({ id: 10, result: { _meta: { "io.modelcontextprotocol/subscriptionId": 10 } } });
  });

  it("close({ drainMs }) lets a request being answered finish (modern and in a legacy session), ends a listen, and refuses new requests with 503", async () => {
    const server = fixture();
    server.tool({ name: "slow", inputSchema: { type: "object" }, handler: () => new Promise((r) => setTimeout(() => r({ content: [{ type: "text", text: "slept" }] }), 300)) });
    const h = server.fetchHandler();
    const post = (m: { headers: Record<string, string>; body: unknown }) => h(new Request("http://127.0.0.1/mcp", { method: "POST", headers: m.headers, body: JSON.stringify(m.body) })).then(read);
    const init = await post({
      headers: legacyHeaders(),
      body: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "t", version: "1" } } },
    });
    const sid = init.headers.get("mcp-session-id")!;
    await post({ headers: legacyHeaders(sid), body: { jsonrpc: "2.0", method: "notifications/initialized" } });
    const slowModern = post(modern(2, "tools/call", { name: "slow", arguments: {} }, "slow"));
    const slowLegacy = post({ headers: legacyHeaders(sid), body: { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "slow", arguments: {} } } });
    const listen = post(modern(4, "subscriptions/listen", { notifications: { toolsListChanged: true } }));
    await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    const closed = h.close({ drainMs: 5000 });
    await new Promise((r) => setTimeout(r, 0)); // the lazily loaded handler's close starts a promise turn later
    expect((await post(modern(5, "tools/list"))).status).toBe(503);
    expect((await listen).messages.at(-1)).toMatchObject({ id: 4, result: {} });
    expect((await slowModern).messages.at(-1)).toMatchObject({ id: 2, result: { content: [{ text: "slept" }] } });
    expect((await slowLegacy).messages.at(-1)).toMatchObject({ id: 3, result: { content: [{ text: "slept" }] } });
    await closed;
    // It waited for the slow calls, not for the whole drain period.
    expect(performance.now() - t0).toBeLessThan(2000);

    // Without drainMs, a legacy request still running is aborted at once: no response follows.
    const h2 = server.fetchHandler();
    const init2 = await h2(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: legacyHeaders(),
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
      }),
    );
    const sid2 = init2.headers.get("mcp-session-id")!;
    await h2(new Request("http://127.0.0.1/mcp", { method: "POST", headers: legacyHeaders(sid2), body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) }));
    const aborted = h2(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: legacyHeaders(sid2),
        body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "slow", arguments: {} } }),
      }),
    ).then(read);
    await new Promise((r) => setTimeout(r, 50));
    await h2.close();
    expect((await aborted).messages.find((m) => m.id === 3 && m.result)).toBeUndefined();
  });

  it("with allowedHosts serves the named host only", async () => {
    const open = fixture().fetchHandler({ allowedHosts: ["mcp.example.com"] });
    const { headers, body } = modern(5, "tools/list");
    const ask = (url: string) => open(new Request(url, { method: "POST", headers, body: JSON.stringify(body) })).then((r) => r.status);
    expect(await ask("https://mcp.example.com/mcp")).toBe(200);
    expect(await ask("http://127.0.0.1/mcp")).toBe(403);
    open.close();
  });
});

describe("nodeHandler mounted at /api/mcp in a node:http server", () => {
  let http: Server;
  let base: string;
  beforeAll(async () => {
    const handler = fixture().nodeHandler();
    http = createHttpServer((req, res) => {
      if (req.url?.split("?")[0] === "/api/mcp") return handler(req, res);
      res.writeHead(404).end("not mine");
    });
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => http.close(() => r())));

  const call = (init: { method?: string; headers?: Record<string, string>; body?: unknown }, path = "/api/mcp") =>
    fetch(base + path, { method: init.method ?? "POST", headers: init.headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) }).then(read);

  it("answers both eras at the mounted path and leaves other paths to the app", async () => {
    expect((await call(modern(1, "server/discover"))).messages[0].result.resultType).toBe("complete");
    const init = await call({
      headers: legacyHeaders(),
      body: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "t", version: "1" } } },
    });
    expect(init.messages[0].result.protocolVersion).toBe(LEGACY);
    const sid = init.headers.get("mcp-session-id")!;
    expect((await call({ method: "DELETE", headers: legacyHeaders(sid) })).status).toBe(200);
    const other = await fetch(base + "/elsewhere");
    expect(other.status).toBe(404);
    expect(await other.text()).toBe("not mine");
  });

  it("takes a body a middleware already read as text or bytes (express.text(), express.raw())", async () => {
    const handler = fixture().nodeHandler();
    const text = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        // As express.text() and express.raw() do, a gzip body is inflated (inflate: true is their default).
        const raw = req.headers["content-encoding"] === "gzip" ? gunzipSync(Buffer.concat(chunks)) : Buffer.concat(chunks);
        (req as typeof req & { body?: unknown }).body = req.headers["x-as"] === "string" ? raw.toString("utf8") : raw;
        handler(req, res);
      });
    });
    await new Promise<void>((r) => text.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(text.address() as AddressInfo).port}/mcp`;
      for (const as of ["string", "buffer"]) {
        const { headers, body } = modern(3, "server/discover");
        const r = await fetch(url, { method: "POST", headers: { ...headers, "x-as": as }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
        expect(r.status, as).toBe(200);
        expect((await r.json()).result.resultType).toBe("complete");
        // The middleware inflated a gzip body: its text is the body, whatever Content-Encoding said (no 415).
        const gzipped = await fetch(url, { method: "POST", headers: { ...headers, "x-as": as, "content-encoding": "gzip" }, body: gzipSync(JSON.stringify(body)), signal: AbortSignal.timeout(5000) });
        expect(gzipped.status, `gzip ${as}`).toBe(200);
      }
    } finally {
      await new Promise<void>((r) => text.close(() => r()));
    }
  });

  it("refuses a foreign Origin with 403", async () => {
    const { headers, body } = modern(2, "tools/list");
    expect((await call({ headers: { ...headers, origin: "http://evil.example" }, body })).status).toBe(403);
  });
});
