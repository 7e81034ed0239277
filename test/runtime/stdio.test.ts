/**
 * The runtime over real stdio pipes, a child process per case: what is about framing and the process (one message
 * per line, UTF-8, size limits, stdout purity, EOF, EPIPE, arrival order within a chunk, asynchronous throws), and
 * McpClient settling each of the five revisions over the pipe. Per-revision protocol behaviour is in the wire corpus
 * (test/corpus), which runs the same rules in process.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpClient, StdioClientTransport } from "../../runtime/dist/index.js";
import type { Revision } from "../../out/rules.js";
import { OUT, ROOT } from "../helpers.js";
import { rejects } from "./http-helpers.js";

const FIXTURE = join(ROOT, "test", "fixtures", "stdio-fixture.mjs");
// Written by hand (never from the rules module): the five revisions and their era, spec/2026-07-28/basic/versioning.mdx.
const ALL: Revision[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];
const MODERN_REVISIONS: readonly string[] = ["2026-07-28"];
const MODERN = "2026-07-28";

type Validators = { resultValidators: Record<string, ((d: unknown) => boolean) & { errors?: unknown }> };
const validators = new Map<string, Validators>();
async function resultValidator(revision: string, method: string) {
  if (!validators.has(revision)) validators.set(revision, (await import(join(OUT, revision, "validators.js"))) as Validators);
  return validators.get(revision)!.resultValidators[method];
}

const open: StdioClientTransport[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

function spawnFixture(env: Record<string, string> = {}): StdioClientTransport {
  const t = new StdioClientTransport(process.execPath, [FIXTURE], { env: { ...process.env, ...env } });
  open.push(t);
  return t;
}

async function connect(revision?: Revision, options: { capabilities?: Record<string, unknown>; env?: Record<string, string>; handlers?: McpClient["options"]["handlers"] } = {}) {
  const transport = spawnFixture(options.env);
  const client = await new McpClient({ transport, revision, capabilities: options.capabilities, handlers: options.handlers }).connect();
  return { client, transport };
}

/** Request and check the result against the revision's schema. */
async function valid(client: McpClient, method: string, params: Record<string, unknown> = {}, options = {}) {
  const result = await client.request(method, params, options);
  const v = await resultValidator(client.revision!, method);
  expect(v(result), `${method} result invalid for ${client.revision}: ${JSON.stringify(v.errors)}`).toBe(true);
  return result;
}

/** Send raw lines and collect `count` messages. */
async function raw(lines: (string | Buffer)[], count: number, env: Record<string, string> = {}) {
  const t = spawnFixture(env);
  const got: unknown[] = [];
  const done = new Promise<void>((resolve) => {
    t.onmessage = (m) => {
      got.push(m);
      if (got.length >= count) resolve();
    };
  });
  for (const l of lines) t.writeRaw(typeof l === "string" ? l + "\n" : l);
  await Promise.race([done, new Promise((r) => setTimeout(r, 5000))]);
  return { got: got as any[], transport: t };
}
async function waitFor(condition: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!condition() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}
const init = (v: string, id = 1) => JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: v, capabilities: {}, clientInfo: { name: "t", version: "1" } } });
const modernMeta = (v = MODERN, extra: Record<string, unknown> = {}) => ({ "io.modelcontextprotocol/protocolVersion": v, "io.modelcontextprotocol/clientCapabilities": {}, ...extra });

describe.each(ALL)("revision %s over stdio", (revision) => {
  it("McpClient settles the revision over the pipe; UTF-8 and an escaped newline round-trip in one line", async () => {
    const { client, transport } = await connect(revision);
    expect(client.revision).toBe(revision);
    expect(client.era).toBe(MODERN_REVISIONS.includes(revision) ? "modern" : "legacy");
    const r = await valid(client, "tools/call", { name: "echo", arguments: { text: "héllo\nworld" } });
    expect(r.content).toEqual([{ type: "text", text: "héllo\nworld" }]);
    expect(transport.nonProtocolLines).toEqual([]);
  });
});

describe("robustness", () => {
  it("a result JSON cannot carry is a -32603 error for its id, not a missing response", async () => {
    const { client } = await connect(MODERN);
    expect((await rejects(client.callTool("unserializable", {}))).code).toBe(-32603);
    expect((await client.callTool("echo", { text: "alive" })).content).toEqual([{ type: "text", text: "alive" }]);
  });

  it("EOF with a question to the client pending: the question fails and the process exits 0 promptly", async () => {
    const transport = spawnFixture();
    const client = await new McpClient({ transport, revision: "2025-11-25", capabilities: { elicitation: {} }, handlers: { elicitation: () => new Promise(() => {}) } }).connect();
    void client.callTool("ask", {}).catch(() => undefined);
    await waitFor(() => client.serverRequests.length > 0);
    const t0 = performance.now();
    transport.child.stdin!.end();
    expect(await transport.exited).toBe(0);
    expect(performance.now() - t0).toBeLessThan(3000);
  });

  it("EOF while a question waits for notifications/initialized: the question fails, the call is answered, the process exits 0", async () => {
    const transport = spawnFixture();
    const got: any[] = [];
    transport.onmessage = (m) => got.push(m);
    transport.writeRaw(init("2025-11-25", 0).replace('"capabilities":{}', '"capabilities":{"elicitation":{}}') + "\n");
    transport.writeRaw(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ask", arguments: {} } }) + "\n");
    await waitFor(() => got.some((m) => m.id === 0));
    const t0 = performance.now();
    transport.child.stdin!.end();
    expect(await transport.exited).toBe(0);
    expect(performance.now() - t0).toBeLessThan(3000);
    // No request went to the client (it never said initialized); the call failed as a tool error.
    expect(got.filter((m) => m.method === "elicitation/create")).toEqual([]);
    expect(got.find((m) => m.id === 1)?.result?.isError).toBe(true);
  });

  it("a tool name outside the spec's SHOULD (1-128 of A-Za-z0-9_-.) is warned about on stderr, and still served", async () => {
    const script = `import { createServer } from ${JSON.stringify(join(ROOT, "runtime", "dist", "index.js"))};
const server = createServer({ name: "names", version: "1.0.0" });
for (const name of ["get user", "ok_name-1.2"]) server.tool({ name, inputSchema: { type: "object" }, handler: () => ({ content: [{ type: "text", text: name }] }) });
await server.serveStdio();`;
    const t = new StdioClientTransport(process.execPath, ["--input-type=module", "-e", script]);
    open.push(t);
    const client = await new McpClient({ transport: t, revision: "2025-11-25" }).connect();
    expect(((await client.listTools()).tools as { name: string }[]).map((x) => x.name)).toEqual(["get user", "ok_name-1.2"]);
    expect(t.stderr).toContain('warning: tool name "get user" should be 1-128 characters');
    expect(t.stderr).not.toContain("ok_name-1.2");
    expect(t.nonProtocolLines).toEqual([]);
  });

  it("an asynchronous throw in a handler's timer is logged and the server keeps answering", async () => {
    const { client, transport } = await connect(MODERN);
    expect((await client.callTool("throws_later", {})).content).toEqual([{ type: "text", text: "scheduled" }]);
    await waitFor(() => transport.stderr.includes("late boom"));
    expect(transport.stderr).toMatch(/uncaught exception: Error: late boom/);
    expect((await client.callTool("echo", { text: "alive" })).content).toEqual([{ type: "text", text: "alive" }]);
    expect(transport.nonProtocolLines).toEqual([]);
  });

  it("stdout closed by the client (EPIPE): the server stops quietly instead of crashing", async () => {
    const transport = spawnFixture();
    await new McpClient({ transport, revision: MODERN }).connect();
    transport.child.stdout!.destroy();
    for (let i = 0; i < 50; i++) transport.writeRaw(JSON.stringify({ jsonrpc: "2.0", id: 100 + i, method: "tools/list", params: { _meta: modernMeta() } }) + "\n");
    expect(await transport.exited).toBe(0);
    expect(transport.stderr).not.toMatch(/Unhandled 'error' event/);
  });
});

describe("JSON-RPC", () => {
  it("a line of only whitespace is not a message (no answer); a malformed response is never answered, whatever its jsonrpc", async () => {
    const { got } = await raw(
      [
        init("2025-11-25"),
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
        "   ",
        "\t \r",
        JSON.stringify({ jsonrpc: "1.0", id: 77, result: {} }),
        JSON.stringify({ id: 78, error: { code: 1, message: "x" } }),
        JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
      ],
      2,
    );
    // Only the initialize result and the ping's (answers arrive in order: one for a blank line would come first): nothing for the blank lines or the responses.
    expect(got.map((m) => m.id)).toEqual([1, 2]);
  });

  it("a cold modern pipe starts handlers in arrival order: a listen pipelined before a change sees it", async () => {
    const listen = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: modernMeta() } });
    const touch = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "touch", arguments: { what: "tools" }, _meta: modernMeta() } });
    const { got } = await raw([Buffer.from(listen + "\n" + touch + "\n")], 3);
    expect(got.map((m) => m.method ?? `response ${m.id}`)).toEqual(["notifications/subscriptions/acknowledged", "notifications/tools/list_changed", "response 2"]);
  });
});

describe("stdio transport", () => {
  it("stdout carries only protocol messages, even when a handler prints", async () => {
    const { client, transport } = await connect("2025-11-25");
    await client.callTool("noisy", {});
    await client.callTool("echo", { text: "after noise" });
    expect(transport.nonProtocolLines).toEqual([]);
    expect(transport.stderr).toContain("console.log noise");
    expect(transport.stderr).toContain("raw stdout noise");
  });

  it("takes a 1 MiB argument", async () => {
    const { client } = await connect(MODERN);
    const text = "x".repeat(1024 * 1024);
    const r = await client.callTool("length", { text });
    expect((r.content as any[])[0].text).toBe(String(text.length));
  });

  it("invalid UTF-8 and malformed lines are parse errors, and the next request is answered", async () => {
    const bad = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}\n')]);
    const { got } = await raw([bad, "[[[", "{}", JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list", params: { _meta: modernMeta() } })], 4);
    expect(got.slice(0, 3).map((m) => m.error.code)).toEqual([-32700, -32700, -32600]);
    expect(got[3].id).toBe(4);
  });

  it("an oversized line is refused and the next request is answered", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "length", arguments: { text: "y".repeat(200_000) }, _meta: modernMeta() } });
    const { got } = await raw([big, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: modernMeta() } })], 2, { FIXTURE_MAX_LINE: "100000" });
    expect(got[0].error.code).toBe(-32600);
    expect(got[1].id).toBe(2);
  });

  it("1,000 interleaved requests finishing out of order are answered with the right ids", async () => {
    const { client } = await connect(MODERN);
    const calls = Array.from({ length: 1000 }, (_, i) => client.callTool("slow", { ms: (i * 7919) % 50, tag: `t${i}` }).then((r) => (r.content as any[])[0].text));
    const texts = await Promise.all(calls);
    expect(texts).toEqual(Array.from({ length: 1000 }, (_, i) => `t${i}`));
  });

  it("EOF on stdin: in-flight work finishes, then the process exits 0", async () => {
    const transport = spawnFixture();
    const client = await new McpClient({ transport, revision: "2025-11-25" }).connect();
    const call = client.callTool("slow", { ms: 300, tag: "finished" });
    await new Promise((r) => setTimeout(r, 50));
    transport.child.stdin!.end();
    expect(((await call).content as any[])[0].text).toBe("finished");
    expect(await transport.exited).toBe(0);
  });
});
