/**
 * SSE back-pressure (HttpLimits.streamBufferBytes, docs/hosting.md#limits): a client that opens a stream and never
 * reads it must not make the server queue without bound. Over node:http the client is a real socket that never reads
 * (paused: the kernel's buffers fill, then the server's); over fetchHandler a Response whose body is never read. The
 * server sends 64 KiB progress notifications on the POST's SSE stream until the stream is closed; another client is
 * served meanwhile. The bound is set to 1 MiB here (its default, 4 MiB, is pinned by hand at the end).
 */
import { createServer as createHttpServer, type Server } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { createServer } from "../../runtime/dist/index.js";
import { httpLimits } from "../../runtime/src/transport/http/quotas.js";
import { modernMeta, modernRequest, raw } from "./http-helpers.js";

const BOUND = 1024 * 1024;
const EVENT = 64 * 1024;
const EVENTS = 1000; // 64 MiB in all, were none of it dropped

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c().catch(() => {});
});

/** A server whose `flood` tool sends EVENTS progress notifications of EVENT bytes (yielding every 8) until cancelled; `echo` answers at once. */
function floodServer(seen: { sent: number; aborted: boolean; sample?: () => void }) {
  const server = createServer({ name: "backpressure", version: "1" });
  server.tool({
    name: "flood",
    inputSchema: { type: "object" },
    handler: async (_a, ctx) => {
      const message = "x".repeat(EVENT);
      for (let i = 1; i <= EVENTS && !ctx.signal.aborted; i++) {
        ctx.progress(i, EVENTS, message);
        seen.sent = i;
        seen.sample?.();
        if (i % 8 === 0) await new Promise((r) => setImmediate(r));
      }
      seen.aborted = ctx.signal.aborted;
      return { content: [{ type: "text", text: "flooded" }] };
    },
  });
  server.tool({ name: "echo", inputSchema: { type: "object" }, handler: () => ({ content: [{ type: "text", text: "ok" }] }) });
  return server;
}

const meta = () => ({ ...modernMeta(), progressToken: "p" });
const floodCall = () => modernRequest(1, "tools/call", { name: "flood", arguments: {}, _meta: meta() });
const until = async (cond: () => boolean, ms = 20_000) => {
  for (const end = Date.now() + ms; !cond() && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
  return cond();
};

describe("an SSE stream whose client does not read", () => {
  it("node:http: a socket that never reads has its stream closed once the server holds streamBufferBytes for it; the server's queue for it stays bounded; another client is served", async () => {
    const seen = { sent: 0, aborted: false, sample: undefined as undefined | (() => void) };
    const handler = floodServer(seen).nodeHandler({ limits: { streamBufferBytes: BOUND } });
    const sockets = new Map<number, Socket>();
    const http: Server = createHttpServer(handler);
    http.on("connection", (s) => sockets.set(s.remotePort!, s));
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    closers.push(() => new Promise((r) => (http.closeAllConnections(), http.close(r))));
    closers.push(() => handler.close());
    const port = (http.address() as AddressInfo).port;
    const url = `http://127.0.0.1:${port}/mcp`;

    // The client that never reads: it sends its POST, then its socket is paused (nothing is read from the kernel).
    const stalled = connect(port, "127.0.0.1");
    await new Promise<void>((r) => stalled.once("connect", () => r()));
    stalled.pause();
    closers.push(async () => stalled.destroy());
    const { body, headers } = floodCall();
    const text = JSON.stringify(body);
    const head = Object.entries({ ...headers, host: `127.0.0.1:${port}`, "content-length": String(Buffer.byteLength(text)) })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("");
    stalled.write(`POST /mcp HTTP/1.1\r\n${head}\r\n${text}`);

    await until(() => sockets.has(stalled.localPort!));
    const serverSide = sockets.get(stalled.localPort!)!;
    let most = 0;
    seen.sample = () => (most = Math.max(most, serverSide.writableLength));
    let closed = false;
    serverSide.once("close", () => (closed = true));

    // Another client, while the flood runs.
    await until(() => seen.sent > 0);
    const echo = modernRequest(2, "tools/call", { name: "echo", arguments: {} });
    const other = await raw(url, { headers: echo.headers, body: echo.body });
    expect([other.status, other.messages[0]?.result?.content]).toEqual([200, [{ type: "text", text: "ok" }]]);

    expect(await until(() => closed), `stream closed (sent ${seen.sent}, most queued ${most})`).toBe(true);
    // Dropped at the first write past the bound: at most the bound, one event and its framing queued in the server.
    expect(most).toBeLessThanOrEqual(BOUND + EVENT + 1024);
    // The stream's close is the client going away: a modern request is cancelled by it, so the flood stops.
    expect(await until(() => seen.aborted)).toBe(true);
    expect(seen.sent).toBeLessThan(EVENTS);
  });

  it("fetchHandler: a Response body never read is dropped once it holds streamBufferBytes, and its request cancelled", async () => {
    const seen = { sent: 0, aborted: false };
    const handler = floodServer(seen).fetchHandler({ limits: { streamBufferBytes: BOUND } });
    closers.push(() => handler.close());
    const { body, headers } = floodCall();
    const res = await handler(new Request("http://127.0.0.1:8787/mcp", { method: "POST", headers, body: JSON.stringify(body) }));
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
    expect(await until(() => seen.aborted), `aborted (sent ${seen.sent})`).toBe(true);
    // Nothing reads the body, so the queue is exactly what was written: the bound is 16 events of 64 KiB; dropped at
    // the 18th write (each event is a little over 64 KiB with its framing, so the 17th passes the bound).
    expect(seen.sent).toBeLessThanOrEqual(18);
    await expect(res.text()).rejects.toThrow();
    const echo = modernRequest(2, "tools/call", { name: "echo", arguments: {} });
    const other = await handler(new Request("http://127.0.0.1:8787/mcp", { method: "POST", headers: echo.headers, body: JSON.stringify(echo.body) }));
    expect(other.status).toBe(200);
  });

  it("the default bound is 4 MiB", () => {
    expect(httpLimits(undefined).streamBufferBytes).toBe(4_194_304);
  });
});
