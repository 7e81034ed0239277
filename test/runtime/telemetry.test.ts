/**
 * OpenTelemetry by the MCP semantic conventions (protocol/telemetry.ts; OpenTelemetry GenAI semantic conventions
 * v0.1.0, docs/gen-ai/mcp.md): the runtime run as a real child process with the Node SDK registered from the standard
 * OTEL_* variables, exporting OTLP/HTTP (JSON) to a receiver on 127.0.0.1 in this test. Every expectation is written
 * by hand from the conventions: span names, kinds, parents (from `_meta.traceparent`, SEP-414; from the HTTP
 * `traceparent` header), attributes one by one, and the two duration histograms.
 */
import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { McpClient, StdioClientTransport, StreamableHttpClientTransport } from "../../runtime/dist/index.js";
import { ROOT } from "../helpers.js";
import { startFixture } from "./http-helpers.js";
import { startReceiver, type Receiver, type ReceivedSpan } from "./otlp-receiver.js";

const FIXTURE = join(ROOT, "test", "fixtures", "otel-fixture.mjs");
const LEGACY = "2025-11-25";
const MODERN = "2026-07-28";
// W3C trace context, as a client instrumented by the conventions sends it (the conventions' own example ids).
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE}-${PARENT}-01`;
const TRACE2 = "0af7651916cd43dd8448eb211c80319c";
const PARENT2 = "b7ad6b7169203331";
const TRACEPARENT2 = `00-${TRACE2}-${PARENT2}-01`;
// OTLP enums: SpanKind 1 internal, 2 server, 3 client; status code 2 error.
const INTERNAL = 1;
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;
const BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!().catch(() => {});
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  closers.push(() => r.close());
  return r;
}

const otelEnv = (r: Receiver): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: r.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  OTEL_BSP_SCHEDULE_DELAY: "20",
  OTEL_METRIC_EXPORT_INTERVAL: "200",
  OTEL_LOGS_EXPORTER: "none",
  OTEL_NODE_RESOURCE_DETECTORS: "env",
  OTEL_SERVICE_NAME: "otel-fixture",
});

type Handlers = ConstructorParameters<typeof McpClient>[0]["handlers"];

async function stdioClient(r: Receiver, revision: string, options: { capabilities?: Record<string, unknown>; handlers?: Handlers } = {}) {
  const transport = new StdioClientTransport(process.execPath, [FIXTURE], { env: { ...process.env, ...otelEnv(r) } });
  const client = await new McpClient({ transport, revision: revision as never, ...options }).connect();
  return { client, transport, done: () => transport.close() };
}

const named = (r: Receiver, name: string) => r.spans.filter((s) => s.name === name);
const one = (r: Receiver, name: string): ReceivedSpan => {
  const all = named(r, name);
  expect(all, `one span named ${name}`).toHaveLength(1);
  return all[0];
};
const elicit: Handlers = { elicitation: () => ({ action: "accept", content: { name: "Ada" } }) };

describe("spans over stdio (a real child process, the SDK registered), the parent from the client's _meta", () => {
  it("legacy 2025-11-25: initialize, a tool call under the client's span, a handler's own span under it, an isError result, a JSON-RPC error, an elicitation as a CLIENT child", async () => {
    const r = await receiver();
    const { client, done } = await stdioClient(r, LEGACY, { capabilities: { elicitation: {} }, handlers: elicit });
    await client.callTool("echo", { text: "hi" }, { meta: { traceparent: TRACEPARENT, tracestate: "rojo=00f067aa0ba902b7" } });
    await client.callTool("fails", {});
    await expect(client.request("tools/call", { arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await client.callTool("ask", {}, { meta: { traceparent: TRACEPARENT2 } });
    await done();
    await r.until(() => r.spans.length >= 7);

    const init = one(r, "initialize");
    expect(init).toMatchObject({ kind: SERVER, parentSpanId: undefined, scope: "@create-mcp-server/runtime" });
    expect(init.attributes).toEqual({ "mcp.method.name": "initialize", "mcp.protocol.version": LEGACY, "jsonrpc.request.id": "1", "network.transport": "pipe" });

    const echo = one(r, "tools/call echo");
    expect(echo).toMatchObject({ kind: SERVER, traceId: TRACE, parentSpanId: PARENT, traceState: "rojo=00f067aa0ba902b7", links: [] });
    expect(echo.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "mcp.protocol.version": LEGACY,
      "jsonrpc.request.id": "2",
      "gen_ai.tool.name": "echo",
      "gen_ai.operation.name": "execute_tool",
      "network.transport": "pipe",
    });
    expect(echo.status.code ?? 0).not.toBe(ERROR);
    // The handler runs inside the request's context: its own span is the request span's child.
    expect(one(r, "echo work")).toMatchObject({ traceId: TRACE, parentSpanId: echo.spanId, scope: "otel-fixture" });

    const fails = one(r, "tools/call fails");
    expect(fails.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "mcp.protocol.version": LEGACY,
      "jsonrpc.request.id": "3",
      "gen_ai.tool.name": "fails",
      "gen_ai.operation.name": "execute_tool",
      "network.transport": "pipe",
      "error.type": "tool_error",
    });
    expect(fails.status.code).toBe(ERROR);
    // No traceparent sent: a root span of its own trace.
    expect(fails.parentSpanId).toBeUndefined();

    const invalid = one(r, "tools/call");
    expect(invalid.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "mcp.protocol.version": LEGACY,
      "jsonrpc.request.id": "4",
      "network.transport": "pipe",
      "error.type": "-32602",
      "rpc.response.status_code": "-32602",
    });
    expect(invalid.status.code).toBe(ERROR);
    expect(invalid.status.message).toMatch(/^Invalid params/);

    const ask = one(r, "tools/call ask");
    expect(ask).toMatchObject({ traceId: TRACE2, parentSpanId: PARENT2 });
    const asked = one(r, "elicitation/create");
    expect(asked).toMatchObject({ kind: CLIENT, traceId: TRACE2, parentSpanId: ask.spanId });
    expect(asked.attributes).toEqual({ "mcp.method.name": "elicitation/create" });
    // The server→client request carries its span's context in _meta (SEP-414), so the client's span nests under it.
    const sent = client.serverRequests.find((q) => q.method === "elicitation/create")!;
    expect((sent.params!._meta as Record<string, unknown>).traceparent).toBe(`00-${TRACE2}-${asked.spanId}-01`);
  });

  it("modern 2026-07-28: the same attributes under the revision in force; an elicitation is an input_required round, then answered", async () => {
    const r = await receiver();
    const { client, done } = await stdioClient(r, MODERN, { capabilities: { elicitation: {} }, handlers: elicit });
    // connect() sends server/discover (id 1) first.
    await client.callTool("echo", { text: "hi" }, { meta: { traceparent: TRACEPARENT } });
    expect(await client.callTool("ask", {}, { meta: { traceparent: TRACEPARENT2 } })).toMatchObject({ content: [{ text: "hello Ada" }] });
    await done();
    await r.until(() => named(r, "elicitation/create").length >= 2 && named(r, "tools/call ask").length >= 2);

    const echo = one(r, "tools/call echo");
    expect(echo).toMatchObject({ kind: SERVER, traceId: TRACE, parentSpanId: PARENT });
    expect(echo.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "mcp.protocol.version": MODERN,
      "jsonrpc.request.id": "2",
      "gen_ai.tool.name": "echo",
      "gen_ai.operation.name": "execute_tool",
      "network.transport": "pipe",
    });
    // The round: the first call answers input_required (not an error), its ask a CLIENT child marked so; the retry
    // (same trace, the client sends the same _meta) finds the answer.
    const asks = named(r, "tools/call ask");
    expect(asks.map((s) => [s.traceId, s.parentSpanId, s.status.code ?? 0])).toEqual([
      [TRACE2, PARENT2, 0],
      [TRACE2, PARENT2, 0],
    ]);
    const rounds = named(r, "elicitation/create");
    expect(rounds.map((s) => [s.kind, s.parentSpanId, s.attributes["mcp.input_required"] ?? false])).toEqual([
      [CLIENT, asks[0].spanId, true],
      [CLIENT, asks[1].spanId, false],
    ]);
  });

  it("a 2025-11-25 task's run is an INTERNAL span under the call that created it, and the handler's spans under the run", async () => {
    const r = await receiver();
    const { client, done } = await stdioClient(r, LEGACY);
    const created = (await client.request("tools/call", { name: "work", arguments: {}, task: { ttl: 60_000 } }, { meta: { traceparent: TRACEPARENT } })) as { task: { taskId: string } };
    const taskId = created.task.taskId;
    await r.until(() => named(r, "task work").length === 1);
    await done();
    const call = one(r, "tools/call work");
    expect(call).toMatchObject({ kind: SERVER, traceId: TRACE, parentSpanId: PARENT });
    const run = one(r, "task work");
    expect(run).toMatchObject({ kind: INTERNAL, traceId: TRACE, parentSpanId: call.spanId });
    expect(run.attributes).toEqual({ "mcp.task.id": taskId, "gen_ai.tool.name": "work", "gen_ai.operation.name": "execute_tool", "mcp.task.status": "completed" });
    expect(one(r, "work itself")).toMatchObject({ traceId: TRACE, parentSpanId: run.spanId });
  });

  it("a handler's failure is logged on stderr with the trace id of its request's span (the client's trace)", async () => {
    const r = await receiver();
    const { client, transport, done } = await stdioClient(r, LEGACY);
    const result = await client.callTool("throws", {}, { meta: { traceparent: TRACEPARENT } });
    expect(result.isError).toBe(true);
    await done();
    const records = transport.stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((record) => record.tool === "throws");
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ level: "error", method: "tools/call", traceId: TRACE, error: { message: "the weather API key is missing" } });
  });
});

describe("spans over Streamable HTTP, the parent from the traceparent header", () => {
  async function httpFixture(r: Receiver) {
    const f = await startFixture({ ...otelEnv(r), FIXTURE_TRANSPORT: "http" }, [], FIXTURE);
    closers.push(() => f.stop());
    return f;
  }

  it("modern 2026-07-28: network.transport tcp, the header's trace as parent; _meta wins over the header", async () => {
    const r = await receiver();
    const f = await httpFixture(r);
    const transport = new StreamableHttpClientTransport(f.url, { headers: { traceparent: TRACEPARENT, tracestate: "congo=t61rcWkgMzE" } });
    const client = await new McpClient({ transport, revision: MODERN as never }).connect();
    // connect() sends server/discover (id 1) first.
    await client.callTool("echo", { text: "hi" });
    await client.request("prompts/get", { name: "greet" }, { meta: { traceparent: TRACEPARENT2 } });
    await client.request("resources/read", { uri: "file:///notes.txt" });
    await r.until(() => r.spans.some((s) => s.name === "resources/read"));

    const echo = one(r, "tools/call echo");
    expect(echo).toMatchObject({ kind: SERVER, traceId: TRACE, parentSpanId: PARENT, traceState: "congo=t61rcWkgMzE" });
    expect(echo.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "mcp.protocol.version": MODERN,
      "jsonrpc.request.id": "2",
      "gen_ai.tool.name": "echo",
      "gen_ai.operation.name": "execute_tool",
      "network.transport": "tcp",
      "network.protocol.name": "http",
    });
    const prompt = one(r, "prompts/get greet");
    expect(prompt).toMatchObject({ traceId: TRACE2, parentSpanId: PARENT2 });
    expect(prompt.attributes).toEqual({
      "mcp.method.name": "prompts/get",
      "mcp.protocol.version": MODERN,
      "jsonrpc.request.id": "3",
      "gen_ai.prompt.name": "greet",
      "network.transport": "tcp",
      "network.protocol.name": "http",
    });
    const read = one(r, "resources/read");
    expect(read.attributes).toEqual({
      "mcp.method.name": "resources/read",
      "mcp.protocol.version": MODERN,
      "jsonrpc.request.id": "4",
      "mcp.resource.uri": "file:///notes.txt",
      "network.transport": "tcp",
      "network.protocol.name": "http",
    });
  });

  it("legacy 2025-11-25: mcp.session.id is the Mcp-Session-Id of the session", async () => {
    const r = await receiver();
    const f = await httpFixture(r);
    const transport = new StreamableHttpClientTransport(f.url, { headers: { traceparent: TRACEPARENT } });
    const client = await new McpClient({ transport, revision: LEGACY as never }).connect();
    await client.callTool("echo", { text: "hi" });
    await r.until(() => r.spans.some((s) => s.name === "tools/call echo"));
    const echo = one(r, "tools/call echo");
    expect(echo).toMatchObject({ kind: SERVER, traceId: TRACE, parentSpanId: PARENT });
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);
    expect(echo.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "mcp.protocol.version": LEGACY,
      "jsonrpc.request.id": "2",
      "mcp.session.id": transport.sessionId,
      "gen_ai.tool.name": "echo",
      "gen_ai.operation.name": "execute_tool",
      "network.transport": "tcp",
      "network.protocol.name": "http",
    });
  });
});

describe("metrics: mcp.server.operation.duration and mcp.server.session.duration", () => {
  it("histograms in seconds with the conventions' buckets and attributes; a tool the server does not have names no series", async () => {
    const r = await receiver();
    const { client, done } = await stdioClient(r, LEGACY);
    await client.callTool("echo", { text: "a" });
    await client.callTool("echo", { text: "b" });
    await client.callTool("fails", {});
    await expect(client.callTool("no_such_tool", {})).rejects.toBeDefined();
    // EOF ends the legacy session; the SDK's shutdown exports the last collection.
    await done();
    await r.until(() => r.metrics.has("mcp.server.session.duration"));

    const op = r.metrics.get("mcp.server.operation.duration")!;
    expect(op.unit).toBe("s");
    const point = (attributes: Record<string, string>) => op.points.find((p) => JSON.stringify(Object.entries(p.attributes).sort()) === JSON.stringify(Object.entries(attributes).sort()));
    const base = { "mcp.protocol.version": LEGACY, "network.transport": "pipe" };
    expect(point({ ...base, "mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool" })).toMatchObject({ count: 2, explicitBounds: BUCKETS });
    expect(point({ ...base, "mcp.method.name": "tools/call", "gen_ai.tool.name": "fails", "gen_ai.operation.name": "execute_tool", "error.type": "tool_error" })).toMatchObject({ count: 1 });
    expect(point({ ...base, "mcp.method.name": "initialize" })).toMatchObject({ count: 1 });
    // The unknown tool's call is counted, its made-up name is not a label (a client could mint series without end).
    const unknown = op.points.filter((p) => p.attributes["mcp.method.name"] === "tools/call" && p.attributes["gen_ai.tool.name"] === undefined);
    expect(unknown.map((p) => p.count)).toEqual([1]);
    expect(JSON.stringify(op.points)).not.toContain("no_such_tool");

    const session = r.metrics.get("mcp.server.session.duration")!;
    expect(session.unit).toBe("s");
    expect(session.points).toEqual([{ attributes: base, count: 1, sum: expect.any(Number), explicitBounds: BUCKETS }]);
  });
});
