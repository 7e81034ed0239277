/**
 * The runtime over real stdio pipes: a child process per case, for each of the
 * five revisions. Every rule checks the exact code or field, and every result
 * is validated against the revision's generated result validator.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ClientError, McpClient, StdioClientTransport } from "../../runtime/dist/index.js";
import * as rules from "../../out/rules.js";
import { OUT, ROOT } from "../helpers.js";

const FIXTURE = join(ROOT, "test", "fixtures", "stdio-fixture.mjs");
const ALL = rules.REVISIONS;
const LEGACY = rules.LEGACY_REVISIONS;
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

async function connect(revision?: rules.Revision, options: { capabilities?: Record<string, unknown>; env?: Record<string, string>; handlers?: McpClient["options"]["handlers"] } = {}) {
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

async function rejects(p: Promise<unknown>): Promise<ClientError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ClientError) return err;
    throw err;
  }
  throw new Error("expected a JSON-RPC error");
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
  const modern = rules.isModern(revision);

  it("settles the era: handshake (legacy) or discovery (modern)", async () => {
    const { client } = await connect(revision);
    expect(client.revision).toBe(revision);
    expect(client.era).toBe(modern ? "modern" : "legacy");
    const d = client.serverDescription!;
    if (modern) {
      expect(Object.keys(d).sort()).toEqual(["_meta", "cacheScope", "capabilities", "instructions", "resultType", "supportedVersions", "ttlMs"]);
      expect(d.supportedVersions).toContain(revision);
      expect((d._meta as any)["io.modelcontextprotocol/serverInfo"]).toMatchObject({ name: "stdio-fixture", version: "1.2.3" });
      expect(d.resultType).toBe("complete");
    } else {
      expect(d.protocolVersion).toBe(revision);
      expect(d.serverInfo).toMatchObject({ name: "stdio-fixture", version: "1.2.3" });
      expect("title" in (d.serverInfo as object)).toBe(rules.hasField(revision, "Implementation", "title"));
      expect(d.instructions).toBe("A fixture for the runtime tests.");
      expect((d.capabilities as any).tools).toEqual({ listChanged: true });
      expect("completions" in (d.capabilities as object)).toBe(rules.hasCapability(revision, "server", "completions"));
    }
  });

  it("lists tools deterministically with only the fields the revision defines", async () => {
    const { client } = await connect(revision);
    const a = await valid(client, "tools/list");
    const b = await valid(client, "tools/list");
    expect(a.tools).toEqual(b.tools);
    const echo = (a.tools as any[])[0];
    expect(echo.name).toBe("echo");
    expect("title" in echo).toBe(rules.hasField(revision, "Tool", "title"));
    expect("annotations" in echo).toBe(rules.hasField(revision, "Tool", "annotations"));
    const add = (a.tools as any[]).find((t) => t.name === "add");
    expect("outputSchema" in add).toBe(rules.hasField(revision, "Tool", "outputSchema"));
    if (modern) {
      expect(a.resultType).toBe("complete");
      expect(typeof a.ttlMs).toBe("number");
      expect(a.cacheScope).toBe("private");
    } else {
      expect("resultType" in a).toBe(false);
      expect("ttlMs" in a).toBe(false);
    }
  });

  it("calls a tool; every modern result carries resultType and serverInfo, tools/call no caching fields", async () => {
    const { client } = await connect(revision);
    const r = await valid(client, "tools/call", { name: "echo", arguments: { text: "héllo\nworld" } });
    expect(r.content).toEqual([{ type: "text", text: "héllo\nworld" }]);
    if (modern) {
      expect(r.resultType).toBe("complete");
      expect((r._meta as any)["io.modelcontextprotocol/serverInfo"].name).toBe("stdio-fixture");
      expect("ttlMs" in r).toBe(false);
    } else {
      expect(r._meta).toBeUndefined();
    }
  });

  it("unknown tool is -32602 (and a tool limited to other revisions is unknown here)", async () => {
    const { client } = await connect(revision);
    const e = await rejects(client.callTool("no_such_tool", {}));
    expect(e.code).toBe(-32602);
    if (modern) expect((await client.callTool("modern_only", {})).content).toEqual([{ type: "text", text: "modern" }]);
    else expect((await rejects(client.callTool("modern_only", {}))).code).toBe(-32602);
  });

  it("invalid tool arguments: protocol error up to 2025-06-18, isError result from 2025-11-25", async () => {
    const { client } = await connect(revision);
    if (rules.toolInputErrorsAsResult(revision)) {
      const r = await valid(client, "tools/call", { name: "echo", arguments: { text: 42 } });
      expect(r.isError).toBe(true);
      expect((r.content as any[])[0].text).toMatch(/Invalid arguments for tool echo/);
    } else {
      const e = await rejects(client.callTool("echo", { text: 42 }));
      expect(e.code).toBe(-32602);
    }
  });

  it("a throwing tool is an isError result and the process lives on", async () => {
    const { client } = await connect(revision);
    const r = await valid(client, "tools/call", { name: "throws", arguments: {} });
    expect(r).toMatchObject({ isError: true, content: [{ type: "text", text: "boom" }] });
    expect((await client.callTool("echo", { text: "still here" })).content).toEqual([{ type: "text", text: "still here" }]);
  });

  it("structuredContent is validated, sent as text too, and only where the revision defines it", async () => {
    const { client } = await connect(revision);
    const r = await valid(client, "tools/call", { name: "add", arguments: { a: 2, b: 3 } });
    expect(r.content).toEqual([{ type: "text", text: '{"sum":5}' }]);
    if (rules.hasField(revision, "CallToolResult", "structuredContent")) expect(r.structuredContent).toEqual({ sum: 5 });
    else expect("structuredContent" in r).toBe(false);
    const e = await rejects(client.callTool("bad_output", {}));
    expect(e.code).toBe(-32603);
  });

  it("reads resources; resource not found is the revision's code with data.uri; empty contents are not-found", async () => {
    const { client } = await connect(revision);
    const r = await valid(client, "resources/read", { uri: "test://static" });
    expect(r.contents).toEqual([{ uri: "test://static", mimeType: "text/plain", text: "static text" }]);
    if (modern) expect(r).toMatchObject({ resultType: "complete", cacheScope: "private" });
    const t = await valid(client, "resources/read", { uri: "test://items/7" });
    expect((t.contents as any[])[0].text).toBe('{"id":"7"}');
    // RFC 6570 operators beyond {var}: query parameters in any order (each optional), exploded path segments.
    const vars = async (uri: string) => JSON.parse(((await valid(client, "resources/read", { uri })).contents as any[])[0].text);
    expect(await vars("test://search?page=2&q=a%20b")).toEqual({ q: "a b", page: "2" });
    expect(await vars("test://search")).toEqual({});
    expect(await vars("test://files/src/main.ts")).toEqual({ path: "src/main.ts" });
    // A resource limited to other revisions is neither listed nor readable here.
    const listed = ((await valid(client, "resources/list")).resources as { uri: string }[]).map((x) => x.uri);
    expect(listed.includes("test://modern-only")).toBe(modern);
    for (const uri of ["test://nope", "test://items/missing", "test://empty", ...(modern ? [] : ["test://modern-only"])]) {
      const e = await rejects(client.readResource(uri));
      expect(e.code).toBe(modern ? -32602 : -32002);
      expect(e.code).toBe(rules.resourceNotFoundCode(revision));
      expect(e.data).toEqual({ uri });
    }
  });

  it("gets prompts; unknown prompt and missing required argument are -32602", async () => {
    const { client } = await connect(revision);
    const p = await valid(client, "prompts/get", { name: "greet", arguments: { name: "Ada" } });
    expect(p.messages).toEqual([{ role: "user", content: { type: "text", text: "Hello, Ada!" } }]);
    expect((await rejects(client.getPrompt("nope"))).code).toBe(-32602);
    expect((await rejects(client.getPrompt("greet", {}))).code).toBe(-32602);
  });

  it("completion: at most 100 values, prefix matches first", async () => {
    const { client } = await connect(revision);
    const all = await valid(client, "completion/complete", { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "" } });
    expect((all.completion as any).values).toHaveLength(100);
    expect(all.completion).toMatchObject({ total: 152, hasMore: true });
    const some = await valid(client, "completion/complete", { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "name-1" } });
    const values = (some.completion as any).values as string[];
    expect(values[0]).toBe("name-100");
    expect(values.at(-1)).toBe("zeta-name-1");
  });

  it("pagination: opaque cursors walk the list; an invalid cursor is -32602", async () => {
    const { client } = await connect(revision, { env: { FIXTURE_PAGE_SIZE: "3" } });
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await valid(client, "tools/list", cursor ? { cursor } : {});
      names.push(...(page.tools as any[]).map((t) => t.name));
      cursor = page.nextCursor as string | undefined;
    } while (cursor);
    expect(names).toEqual(["echo", "length", "noisy", "slow", "throws", "add", "bad_output", "progress", "progress_burst", "logs", "ask", "ask_url", "ask_nested", "meta", "ask_many", "unserializable", "touch", ...(rules.isModern(revision) ? ["modern_only"] : []), "throws_later"]);
    expect((await rejects(client.listTools({ cursor: "not-a-cursor" }))).code).toBe(-32602);
  });

  it("progress only for a client progressToken, strictly increasing", async () => {
    const { client } = await connect(revision);
    await client.callTool("progress", {});
    expect(client.notifications.filter((n) => n.method === "notifications/progress")).toHaveLength(0);
    await client.callTool("progress", {}, { meta: { progressToken: "tok" } });
    const progress = client.notifications.filter((n) => n.method === "notifications/progress").map((n: any) => n.params);
    expect(progress.map((p) => p.progress)).toEqual([0, 50, 100]);
    expect(progress.every((p) => p.progressToken === "tok" && p.total === 100)).toBe(true);
    expect("message" in progress[0]).toBe(rules.hasField(revision, "ProgressNotificationParams", "message") || rules.hasField(revision, "ProgressNotification", "params.message"));
  });

  it("logging follows the revision's rules", async () => {
    const { client } = await connect(revision);
    const levels = () => client.notifications.filter((n) => n.method === "notifications/message").map((n: any) => n.params.level);
    await client.callTool("logs", {});
    if (modern) {
      // No log notification unless the request's _meta sets a level.
      expect(levels()).toEqual([]);
      await client.callTool("logs", {}, { meta: { "io.modelcontextprotocol/logLevel": "info" } });
      expect(levels()).toEqual(["info", "error"]);
      expect((await rejects(client.request("logging/setLevel", { level: "debug" }))).code).toBe(-32601);
    } else {
      expect(levels()).toEqual(["info", "error"]);
      expect(await valid(client, "logging/setLevel", { level: "error" })).toEqual({});
      await client.callTool("logs", {});
      expect(levels()).toEqual(["info", "error", "error"]);
    }
  });

  it("reserved _meta keys only to peers whose revision reserves the io.modelcontextprotocol/ prefix", async () => {
    const { client } = await connect(revision);
    const meta = (await valid(client, "tools/call", { name: "meta", arguments: {} }))._meta as Record<string, unknown>;
    expect(meta["com.example/trace"]).toBe("abc");
    expect("io.modelcontextprotocol/related-task" in meta).toBe(rules.reservesMetaPrefix(revision));
  });

  it("unknown method is -32601", async () => {
    const { client } = await connect(revision);
    expect((await rejects(client.request("tools/unknown", {}))).code).toBe(-32601);
  });
});

describe("legacy lifecycle (handshake)", () => {
  it.each(LEGACY)("echoes a supported version: %s", async (v) => {
    const { got } = await raw([init(v)], 1);
    expect(got[0].result.protocolVersion).toBe(v);
  });

  it("counter-offers the newest legacy revision for an unknown version and for 2026-07-28 (a result, not an error)", async () => {
    const { got } = await raw([init("1999-01-01", 1)], 1);
    expect(got[0].result.protocolVersion).toBe(rules.LATEST_LEGACY);
    const modern = await raw([init(MODERN, 1)], 1);
    expect(modern.got[0].result.protocolVersion).toBe(rules.LATEST_LEGACY);
  });

  it("a missing or non-string protocolVersion is -32602", async () => {
    const { got } = await raw(
      [JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {}, clientInfo: { name: "t", version: "1" } } })],
      1,
    );
    expect(got[0].error.code).toBe(-32602);
    const b = await raw([JSON.stringify({ jsonrpc: "2.0", id: 2, method: "initialize", params: { protocolVersion: 20250618, capabilities: {}, clientInfo: { name: "t", version: "1" } } })], 1);
    expect(b.got[0].error.code).toBe(-32602);
  });

  it("a modern-only server refuses initialize with an error naming its versions", async () => {
    const { got } = await raw([init("2025-11-25")], 1, { FIXTURE_REVISIONS: MODERN });
    expect(got[0].error.code).toBe(-32602);
    expect(got[0].error.data).toEqual({ supported: [MODERN], requested: "2025-11-25" });
  });

  it("a second initialize is -32600; requests before initialize get -32600 except ping", async () => {
    const { got } = await raw([JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }), init("2025-06-18", 1), init("2025-06-18", 2)], 3, { FIXTURE_REVISIONS: "2025-06-18" });
    expect(got.find((m) => m.id === 0).result).toEqual({});
    expect(got.find((m) => m.id === 2).error.code).toBe(-32600);
    const before = await raw([JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/list" })], 1, { FIXTURE_REVISIONS: "2025-06-18" });
    expect(before.got[0].error.code).toBe(-32600);
  });

  it("before notifications/initialized the server sends nothing but responses and logging; held notifications of finished requests are dropped", async () => {
    const t = spawnFixture({ FIXTURE_REVISIONS: "2025-11-25" });
    const got: any[] = [];
    t.onmessage = (m) => got.push(m);
    t.writeRaw(init("2025-11-25") + "\n");
    t.writeRaw(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "progress", arguments: {}, _meta: { progressToken: 7 } } }) + "\n");
    t.writeRaw(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "logs", arguments: {} } }) + "\n");
    await waitFor(() => got.some((m) => m.id === 3));
    t.writeRaw(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
    t.writeRaw(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping" }) + "\n");
    await waitFor(() => got.some((m) => m.id === 4));
    expect(got.filter((m) => m.method === "notifications/progress")).toEqual([]);
    expect(got.map((m) => m.id ?? m.method).sort()).toEqual([1, 2, 3, 4, "notifications/message", "notifications/message"]);
    expect(got.findIndex((m) => m.method === "notifications/message")).toBeLessThan(got.findIndex((m) => m.id === 3));
  });

  it.each(ALL)("capabilities gate inbound methods: a tools-only server answers prompts, resources and completion with -32601 (%s)", async (v) => {
    const { client } = await connect(v, { env: { FIXTURE_TOOLS_ONLY: "1" } });
    const caps = (rules.isModern(v) ? client.serverDescription!.capabilities : client.serverDescription!.capabilities) as Record<string, unknown>;
    expect(Object.keys(caps).sort()).toEqual(["logging", "tools"]);
    for (const [method, params] of [
      ["prompts/list", {}],
      ["resources/read", { uri: "test://static" }],
      ["completion/complete", { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "" } }],
    ] as const) {
      expect((await rejects(client.request(method, params))).code, method).toBe(-32601);
    }
    if (!rules.isModern(v)) expect((await rejects(client.request("resources/subscribe", { uri: "test://static" }))).code).toBe(-32601);
  });

  it("ping is answered promptly in legacy", async () => {
    const { client } = await connect("2025-11-25");
    const t0 = performance.now();
    expect(await client.request("ping")).toEqual({});
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it("elicitation: a server→client request only when the client declared the capability", async () => {
    const { client } = await connect("2025-06-18", { capabilities: { elicitation: {} }, handlers: { elicitation: () => ({ action: "accept", content: { name: "Ada" } }) } });
    const r = await client.callTool("ask", {});
    expect((r.content as any[])[0].text).toBe('answer: {"name":"Ada"} (accept)');
    expect(client.serverRequests.map((q) => q.method)).toEqual(["elicitation/create"]);
    const { client: without } = await connect("2025-06-18");
    const r2 = await without.callTool("ask", {});
    expect(r2.isError).toBe(true);
    expect(without.serverRequests).toEqual([]);
    // 2024-11-05 has no elicitation at all.
    const { client: old } = await connect("2024-11-05", { capabilities: { elicitation: {} }, handlers: { elicitation: () => ({ action: "accept" }) } });
    expect((await old.callTool("ask", {})).isError).toBe(true);
    expect(old.serverRequests).toEqual([]);
  });

  it("elicitation modes: an empty elicitation capability means form only; URL mode only to a client that declared it", async () => {
    const accept = { elicitation: () => ({ action: "accept" }) };
    const { client: formOnly } = await connect("2025-11-25", { capabilities: { elicitation: {} }, handlers: accept });
    const r = await formOnly.callTool("ask_url", {});
    expect(r.isError).toBe(true);
    expect(formOnly.serverRequests).toEqual([]);
    const { client: url } = await connect("2025-11-25", { capabilities: { elicitation: { url: {} } }, handlers: accept });
    expect((await url.callTool("ask_url", {})).content).toEqual([{ type: "text", text: "url answer: accept" }]);
    expect(url.serverRequests.map((q) => q.params?.mode)).toEqual(["url"]);
    // A client that declared only URL mode is not sent a form.
    expect((await url.callTool("ask", {})).isError).toBe(true);
    expect(url.serverRequests).toHaveLength(1);
    // Modern: the missing mode is -32021 naming it.
    const { client: modern } = await connect(MODERN, { capabilities: { elicitation: {} } });
    const err = await rejects(modern.callTool("ask_url", {}));
    expect([err.code, err.data]).toEqual([-32021, { requiredCapabilities: { elicitation: { url: {} } } }]);
  });

  it("with validateResults, a server→client request the revision's schema rejects fails the handler and never reaches the client", async () => {
    const accept = { elicitation: () => ({ action: "accept", content: {} }) };
    const { client } = await connect("2025-11-25", { capabilities: { elicitation: {} }, handlers: accept, env: { MCP_RUNTIME_VALIDATE_RESULTS: "1" } });
    const r = await client.callTool("ask_nested", {});
    expect(r.isError).toBe(true);
    expect((r.content as any[])[0].text).toMatch(/server bug: the elicitation\/create request does not match the 2025-11-25 schema/);
    expect(client.serverRequests).toEqual([]);
    // A valid one still goes through.
    expect((await client.callTool("ask", {})).isError).toBeFalsy();
    // Modern: the ask travels in the input_required result, which is checked against the schema the same way.
    const { client: modern } = await connect(MODERN, { capabilities: { elicitation: {} }, env: { MCP_RUNTIME_VALIDATE_RESULTS: "1" } });
    const err = await rejects(modern.callTool("ask_nested", {}));
    expect(err.message).toMatch(/server bug: tools\/call result does not match the 2026-07-28 schema/);
  });

  it("cancellation: no response after notifications/cancelled, the handler's signal fires; unknown cancellations are ignored", async () => {
    const { client, transport } = await connect("2025-11-25");
    const controller = new AbortController();
    const call = client.callTool("slow", { ms: 3000, tag: "cancel-me" }, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    await expect(call).rejects.toThrow("aborted");
    await client.notify("notifications/cancelled", { requestId: 424242, reason: "unknown" });
    expect((await client.callTool("echo", { text: "after" })).content).toEqual([{ type: "text", text: "after" }]);
    await new Promise((r) => setTimeout(r, 100));
    expect(transport.stderr).toContain("aborted cancel-me");
    expect(transport.nonProtocolLines).toEqual([]);
  });

  it("resources/subscribe and unsubscribe succeed with {} in legacy; both are -32601 to a modern peer", async () => {
    const { client } = await connect("2025-11-25");
    expect(await client.request("resources/subscribe", { uri: "test://static" })).toEqual({});
    expect(await client.request("resources/unsubscribe", { uri: "test://static" })).toEqual({});
    const { client: m } = await connect(MODERN);
    for (const method of ["resources/subscribe", "resources/unsubscribe", "ping", "initialize", "logging/setLevel"]) {
      expect((await rejects(m.request(method, { uri: "test://static", level: "info", protocolVersion: MODERN, capabilities: {}, clientInfo: { name: "x", version: "1" } }))).code, method).toBe(-32601);
    }
  });
});

describe("modern era (stateless)", () => {
  it("a request without the required _meta fields is -32602", async () => {
    const { got } = await raw(
      [
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN } } }),
        JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/clientCapabilities": {} } } }),
      ],
      3,
      { FIXTURE_REVISIONS: MODERN },
    );
    expect(got.map((m) => m.error.code)).toEqual([-32602, -32602, -32602]);
  });

  it("an unsupported version is -32022 with data.supported and data.requested", async () => {
    const { got } = await raw([JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: modernMeta("2099-01-01") } })], 1);
    expect(got[0].error.code).toBe(-32022);
    expect(got[0].error.data.requested).toBe("2099-01-01");
    expect(got[0].error.data.supported).toContain(MODERN);
  });

  it("client capabilities come from this request only, never from earlier ones", async () => {
    const { client } = await connect(MODERN);
    // The first request declares elicitation; the second does not: -32021 names what is missing.
    await client.callTool("echo", { text: "x" }, { capabilities: { elicitation: {} } });
    const e = await rejects(client.callTool("ask", {}, { capabilities: {} }));
    expect(e.code).toBe(-32021);
    expect(e.data).toEqual({ requiredCapabilities: { elicitation: {} } });
  });

  it("the server never sends a request to a modern client", async () => {
    const { client } = await connect(MODERN, { capabilities: { elicitation: {} } });
    await client.callTool("ask", {}).catch(() => undefined);
    expect(client.serverRequests).toEqual([]);
  });

  it("a dual-era process serves a modern request before and without any handshake, and initialize after it", async () => {
    const { got } = await raw(
      [JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: modernMeta() } }), init("2025-11-25", 2), JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" })],
      3,
    );
    expect(got.find((m) => m.id === 1).result.resultType).toBe("complete");
    expect(got.find((m) => m.id === 2).result.protocolVersion).toBe("2025-11-25");
    expect("resultType" in got.find((m) => m.id === 3).result).toBe(false);
  });
});

describe("modern input requests (MRTR): spec/2026-07-28/basic/patterns/mrtr.mdx", () => {
  const caps = { elicitation: {}, sampling: {}, roots: {} };
  const handlers = {
    elicitation: (p: Record<string, unknown>) => ({ action: "accept", content: p.message === "Sure?" ? { ok: true } : p.message === "Context?" ? { context: "ctx" } : { name: "Ada" } }),
    sampling: () => ({ role: "assistant", content: { type: "text", text: "Paris" }, model: "m", stopReason: "endTurn" }),
    roots: () => ({ roots: [{ uri: "file:///r", name: "r" }] }),
  };

  it("asks all parallel inputs in one input_required result, then the next round, then completes", async () => {
    const { client } = await connect(MODERN, { capabilities: caps, handlers });
    const r1 = await client.request("tools/call", { name: "ask_many", arguments: { topic: "France" } }, { rawInputRequired: true });
    expect(r1.resultType).toBe("input_required");
    expect(Object.keys(r1.inputRequests as object).sort()).toEqual(["question", "roots", "user_name"]);
    expect((r1.inputRequests as any).user_name.method).toBe("elicitation/create");
    expect((r1.inputRequests as any).question.method).toBe("sampling/createMessage");
    expect((r1.inputRequests as any).roots).toEqual({ method: "roots/list", params: {} });
    expect(typeof r1.requestState).toBe("string");
    expect("ttlMs" in r1).toBe(false);
    await resultValidator(MODERN, "tools/call");
    const v = (validators.get(MODERN) as unknown as Record<string, (d: unknown) => boolean>).validateInputRequiredResult;
    expect(v(r1)).toBe(true);
    // The client helper answers and retries (two rounds), and the handler sees every answer.
    const done = await client.callTool("ask_many", { topic: "France" });
    expect(done).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "Ada|Paris|1|true" }] });
    expect(client.serverRequests).toEqual([]);
  });

  it("a second round carries a different requestState; earlier answers ride in it", async () => {
    const { client } = await connect(MODERN, { capabilities: caps });
    const params = { name: "ask_many", arguments: { topic: "x" } };
    const r1 = await client.request("tools/call", params, { rawInputRequired: true });
    const answers = { user_name: handlers.elicitation({}), question: handlers.sampling(), roots: handlers.roots() };
    const r2 = await client.request("tools/call", { ...params, inputResponses: answers, requestState: r1.requestState }, { rawInputRequired: true });
    expect(Object.keys(r2.inputRequests as object)).toEqual(["confirm"]);
    expect(r2.requestState).not.toBe(r1.requestState);
    const r3 = await client.request("tools/call", { ...params, inputResponses: { confirm: { action: "accept", content: { ok: true } } }, requestState: r2.requestState }, { rawInputRequired: true });
    expect((r3.content as any[])[0].text).toBe("Ada|Paris|1|true");
  });

  it("a tampered, foreign or malformed requestState is -32602", async () => {
    const { client } = await connect(MODERN, { capabilities: caps });
    const params = { name: "ask_many", arguments: { topic: "x" } };
    const r1 = await client.request("tools/call", params, { rawInputRequired: true });
    const tampered = await rejects(client.request("tools/call", { ...params, requestState: `${r1.requestState}-TAMPERED` }, { rawInputRequired: true }));
    expect(tampered.code).toBe(-32602);
    // Bound to the originating parameters: the same state on other arguments is refused.
    const moved = await rejects(client.request("tools/call", { name: "ask_many", arguments: { topic: "other" }, requestState: r1.requestState }, { rawInputRequired: true }));
    expect(moved.code).toBe(-32602);
    // And to the process's secret: another process refuses it.
    const { client: other } = await connect(MODERN, { capabilities: caps });
    expect((await rejects(other.request("tools/call", { ...params, requestState: r1.requestState }, { rawInputRequired: true }))).code).toBe(-32602);
  });

  it("a missing input response is asked again, an invalid one is -32602; unknown keys are ignored", async () => {
    const { client } = await connect(MODERN, { capabilities: caps });
    const r = await client.request("tools/call", { name: "ask", arguments: {}, inputResponses: { other: { action: "accept" } } }, { rawInputRequired: true });
    expect(r.resultType).toBe("input_required");
    for (const bad of [12345, { nope: true }, { action: "accept", content: { score: 95.5 } }]) {
      const e = await rejects(client.request("tools/call", { name: "ask", arguments: {}, inputResponses: { "elicitation-1": bad } }, { rawInputRequired: true }));
      expect(e.code, JSON.stringify(bad)).toBe(-32602);
    }
    const ok = await client.request("tools/call", { name: "ask", arguments: {}, inputResponses: { "elicitation-1": { action: "decline" }, extra: 1 } }, { rawInputRequired: true });
    expect((ok.content as any[])[0].text).toBe("answer: null (decline)");
    expect((await rejects(client.request("tools/call", { name: "ask", arguments: {}, inputResponses: null }, { rawInputRequired: true }))).code).toBe(-32602);
  });

  it("an input request is never sent for a capability this request did not declare: -32021", async () => {
    const { client } = await connect(MODERN, { capabilities: { sampling: {}, roots: {} } });
    const e = await rejects(client.request("tools/call", { name: "ask_many", arguments: {} }, { rawInputRequired: true }));
    expect(e.code).toBe(-32021);
    expect(e.data).toEqual({ requiredCapabilities: { elicitation: {} } });
  });

  it("prompts/get may answer input_required too; lists never do", async () => {
    const { client } = await connect(MODERN, { capabilities: caps, handlers });
    const r1 = await client.request("prompts/get", { name: "ask_prompt" }, { rawInputRequired: true });
    expect(r1).toMatchObject({ resultType: "input_required", inputRequests: { user_context: { method: "elicitation/create" } } });
    expect((await client.getPrompt("ask_prompt")).messages).toEqual([{ role: "user", content: { type: "text", text: "context: ctx" } }]);
    expect((await client.listTools()).resultType).toBe("complete");
  });
});

describe("change notifications", () => {
  const listen = (id: string, notifications: Record<string, unknown>) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "subscriptions/listen", params: { notifications, _meta: modernMeta() } });
  const touch = (id: number, what: string, uri?: string) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "touch", arguments: uri ? { what, uri } : { what }, _meta: modernMeta() } });

  it("subscriptions/listen: acknowledgement first, only requested types, every message tagged with its subscription id", async () => {
    const t = spawnFixture();
    const got: any[] = [];
    t.onmessage = (m) => got.push(m);
    t.writeRaw(listen("A", { toolsListChanged: true, resourceSubscriptions: ["test://static"], promptsListChanged: true, bogus: true }) + "\n");
    t.writeRaw(listen("B", { resourcesListChanged: true }) + "\n");
    await waitFor(() => got.length >= 2);
    for (const [i, what, uri] of [[1, "tools"], [2, "resource", "test://static"], [3, "resource", "test://other"], [4, "resources"]] as const) t.writeRaw(touch(i, what, uri) + "\n");
    await waitFor(() => got.filter((m) => typeof m.id === "number").length >= 4);
    await new Promise((r) => setTimeout(r, 100));
    const forA = got.filter((m) => m.params?._meta?.["io.modelcontextprotocol/subscriptionId"] === "A");
    const forB = got.filter((m) => m.params?._meta?.["io.modelcontextprotocol/subscriptionId"] === "B");
    expect(forA[0]).toMatchObject({ method: "notifications/subscriptions/acknowledged", params: { notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["test://static"] } } });
    expect("bogus" in forA[0].params.notifications).toBe(false);
    expect(forA.slice(1).map((m) => [m.method, m.params.uri])).toEqual([
      ["notifications/tools/list_changed", undefined],
      ["notifications/resources/updated", "test://static"],
    ]);
    expect(forB.map((m) => m.method)).toEqual(["notifications/subscriptions/acknowledged", "notifications/resources/list_changed"]);
    // The client cancels A: no response for it; B ends gracefully at EOF with a result tagged with its id.
    t.writeRaw(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "A" } }) + "\n");
    await new Promise((r) => setTimeout(r, 100));
    t.child.stdin!.end();
    expect(await t.exited).toBe(0);
    expect(got.filter((m) => m.id === "A")).toEqual([]);
    const endB = got.find((m) => m.id === "B");
    expect(endB.result).toMatchObject({ resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": "B" } });
  });

  it("legacy: list_changed goes to an initialized session that was declared it; resources/updated only after resources/subscribe", async () => {
    const { client } = await connect("2025-11-25");
    await client.callTool("touch", { what: "tools" });
    await client.callTool("touch", { what: "resource", uri: "test://static" });
    await client.request("resources/subscribe", { uri: "test://static" });
    await client.callTool("touch", { what: "resource", uri: "test://static" });
    await client.callTool("touch", { what: "resource", uri: "test://other" });
    await new Promise((r) => setTimeout(r, 50));
    expect(client.notifications.map((n: any) => [n.method, n.params?.uri])).toEqual([
      ["notifications/tools/list_changed", undefined],
      ["notifications/resources/updated", "test://static"],
    ]);
  });
});

describe("robustness", () => {
  it("a malformed response is never answered; float and unsafe-integer ids are -32600", async () => {
    const { got } = await raw(
      [
        JSON.stringify({ jsonrpc: "2.0", id: 3 }),
        JSON.stringify({ jsonrpc: "2.0", id: "s-1", result: [] }),
        JSON.stringify({ jsonrpc: "2.0", id: 1.5, method: "ping" }),
        '{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}',
        JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: { _meta: modernMeta() } }),
      ],
      3,
    );
    expect(got.map((m) => m.error?.code ?? m.id)).toEqual([-32600, -32600, 9]);
    expect(got.slice(0, 2).every((m) => !("id" in m))).toBe(true);
  });

  it("completion ignores inherited names: an argument called toString has no completions", async () => {
    const { client } = await connect(MODERN);
    for (const name of ["toString", "__proto__", "hasOwnProperty"]) {
      const r = await client.complete({ type: "ref/prompt", name: "greet" }, { name, value: "" });
      expect((r.completion as any).values, name).toEqual([]);
    }
  });

  it("a result JSON cannot carry is a -32603 error for its id, not a missing response", async () => {
    const { client } = await connect(MODERN);
    expect((await rejects(client.callTool("unserializable", {}))).code).toBe(-32603);
    expect((await client.callTool("echo", { text: "alive" })).content).toEqual([{ type: "text", text: "alive" }]);
  });

  it("a client's error answer to elicitation is the tool's failure (isError), never forwarded as the server's error", async () => {
    const { client } = await connect("2025-11-25", {
      capabilities: { elicitation: {} },
      handlers: {
        elicitation: () => {
          throw new Error("user went away");
        },
      },
    });
    const r = await client.callTool("ask", {});
    expect(r.isError).toBe(true);
    expect((r.content as any[])[0].text).toMatch(/the client answered with error -32603: user went away/);
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

  it("an invalid answer to a server→client request fails the handler's ask, as an invalid MRTR answer does", async () => {
    const transport = spawnFixture();
    const client = await new McpClient({ transport, revision: "2025-11-25", capabilities: { elicitation: {} }, handlers: { elicitation: async () => ({ action: "bogus" }) as any } }).connect();
    const r = await client.callTool("ask", {});
    expect(r.isError).toBe(true);
    expect((r.content as any[])[0].text).toMatch(/the client's elicitation\/create result is invalid/);
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

  it("a null request id is -32600; notifications never get a response; unknown notifications are ignored", async () => {
    const { got } = await raw(
      [
        init("2025-11-25"),
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/unknown" }),
        JSON.stringify({ jsonrpc: "2.0", id: null, method: "ping" }),
        JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
      ],
      3,
    );
    expect(got).toHaveLength(3);
    expect(got[1].error.code).toBe(-32600);
    expect("id" in got[1]).toBe(false); // 2025-11-25 omits an unreadable id
    expect(got[2]).toEqual({ jsonrpc: "2.0", id: 9, result: {} });
  });

  it.each(ALL)("a parse error on %s: id omitted from 2025-11-25, null before", async (v) => {
    const lines = rules.isModern(v) ? ["{not json"] : [init(v), "{not json"];
    const { got } = await raw(lines, lines.length, { FIXTURE_REVISIONS: v });
    const err = got.at(-1)!;
    expect(err.error.code).toBe(-32700);
    if (rules.parseErrorOmitsId(v)) expect("id" in err).toBe(false);
    else expect(err.id).toBeNull();
  });

  it("batches are answered on 2025-03-26 (one response per request, none for notifications)", async () => {
    const batch = JSON.stringify([
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "a" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 3, method: "ping" },
    ]);
    const { got } = await raw([init("2025-03-26"), batch], 3, { FIXTURE_REVISIONS: "2025-03-26" });
    expect(got[1]).toEqual({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "a" }] } });
    expect(got[2]).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
  });

  it.each(ALL.filter((r) => !rules.supportsBatches(r)))("batches are rejected on %s", async (v) => {
    const batch = JSON.stringify([{ jsonrpc: "2.0", id: 2, method: "ping", ...(rules.isModern(v) ? { params: { _meta: modernMeta(v) } } : {}) }]);
    const lines = rules.isModern(v) ? [batch] : [init(v), batch];
    const { got } = await raw(lines, lines.length, { FIXTURE_REVISIONS: v });
    expect(got.at(-1)!.error.code).toBe(-32600);
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
