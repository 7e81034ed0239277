/**
 * Large work in turns of its own (runtime/src/protocol/turns.ts, #20): a POST body over 64 KiB is run in a later turn
 * of the event loop than the one that parsed it, so that requests that arrived meanwhile are served between, and a
 * small one is run at once; a JSON answer over 64 KiB is written in a later turn than the one that encoded it, and
 * arrives whole. In-process (JsonBodies with a body read that completes at once), and over a real HTTP server.
 */
import { afterEach, expect, it } from "vitest";
import { JsonBodies } from "../../runtime/src/transport/http/read-json.js";
import { Responder } from "../../runtime/src/transport/http/respond.js";
import type { Incoming, Reply } from "../../runtime/src/transport/http/io.js";

/** A POST whose body (`bytes` of JSON) is read at once, as the last chunk's callback would hand it over. */
function post(bytes: number): Incoming {
  const text = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "x".repeat(bytes - 80) } } });
  return {
    method: "POST",
    url: "/mcp",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    readBody: (_limit, done) => done(new TextEncoder().encode(text)),
  };
}

const reply = { destroyed: false } as unknown as Reply;
const accept = { json: true, sse: true } as never;

it("a body of 64 KiB or less is run in the turn that parsed it; one over it after the next poll, with what parsing it cost", async () => {
  const bodies = new JsonBodies(new Responder("2025-11-25" as never), 4 * 1024 * 1024);
  const order: string[] = [];
  bodies.read(post(60 * 1024), reply, accept, () => order.push("small"));
  expect(order).toEqual(["small"]);
  let spent = -1;
  bodies.read(post(200 * 1024), reply, accept, (_value, ms) => {
    order.push("large");
    spent = ms;
  });
  setImmediate(() => order.push("I/O of this turn"));
  expect(order).toEqual(["small"]);
  // Wait for it, however busy the machine: a fixed delay could end before the second check phase on a loaded one.
  for (const until = Date.now() + 5000; order.length < 3 && Date.now() < until;) await new Promise((r) => setTimeout(r, 5));
  expect(order).toEqual(["small", "I/O of this turn", "large"]);
  expect(spent).toBeGreaterThan(0);
});

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

it("over HTTP, a 1 MiB answer written in a turn of its own arrives whole, with its session id, next to small ones", async () => {
  const { createServer } = await import("../../runtime/src/index.js");
  const server = createServer({ name: "turns", version: "1.0.0" });
  server.tool({ name: "big", inputSchema: { type: "object" }, handler: () => ({ content: [{ type: "text", text: "y".repeat(1024 * 1024) }] }) });
  server.tool({ name: "small", inputSchema: { type: "object" }, handler: () => ({ content: [{ type: "text", text: "s" }] }) });
  const http = await server.serveHttp({ host: "127.0.0.1", port: 0, quiet: true });
  close = () => http.close();
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };
  const init = await fetch(http.url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
  });
  const sid = init.headers.get("mcp-session-id")!;
  await init.text();
  const call = (id: number, name: string) =>
    fetch(http.url, { method: "POST", headers: { ...headers, "mcp-session-id": sid }, body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } }) });
  const [big, small] = await Promise.all([call(1, "big"), call(2, "small")]);
  expect(big.status).toBe(200);
  expect(big.headers.get("mcp-session-id")).toBe(sid);
  const body = await big.json();
  expect(body.id).toBe(1);
  expect(body.result.content[0].text).toHaveLength(1024 * 1024);
  expect((await small.json()).result.content[0].text).toBe("s");
});

it("over HTTP, an answer over 64 KiB, or any answer to a body over 64 KiB, is written in a later turn than the handler's run; a small one in it", async () => {
  const { createServer } = await import("../../runtime/src/index.js");
  const { createServer: createHttpServer } = await import("node:http");
  const marks: string[] = [];
  // Each handler queues a callback for the turn after its run: the answer is written before it (same turn) or after.
  const after = () => setImmediate(() => marks.push("turn after run"));
  const server = createServer({ name: "turns", version: "1.0.0" });
  server.tool({ name: "big", inputSchema: { type: "object" }, handler: () => (after(), { content: [{ type: "text", text: "y".repeat(1024 * 1024) }] }) });
  server.tool({
    name: "size",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    handler: ({ text }) => (after(), { content: [{ type: "text", text: String(String(text ?? "").length) }] }),
  });
  const handler = server.nodeHandler();
  const http = createHttpServer((req, res) => {
    const end = res.end.bind(res);
    res.end = ((...a: Parameters<typeof res.end>) => (marks.push("answer written"), end(...a))) as typeof res.end;
    void handler(req, res);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  close = () => new Promise<void>((r) => http.close(() => r()));
  const url = `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`;
  const call = async (name: string, args: Record<string, unknown>) => {
    marks.length = 0;
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: args, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
      }),
    });
    const body = await res.json();
    await new Promise((r) => setTimeout(r, 10));
    return { text: body.result.content[0].text as string, marks: [...marks] };
  };
  // Small body, small answer: written in the handler's turn.
  expect(await call("size", { text: "abc" })).toEqual({ text: "3", marks: ["answer written", "turn after run"] });
  // Small body, 1 MiB answer: written in a later turn.
  const big = await call("big", {});
  expect(big.text).toHaveLength(1024 * 1024);
  expect(big.marks).toEqual(["turn after run", "answer written"]);
  // 200 KiB body, small answer: encoded and written in a later turn.
  expect(await call("size", { text: "x".repeat(200 * 1024) })).toEqual({ text: String(200 * 1024), marks: ["turn after run", "answer written"] });
});
