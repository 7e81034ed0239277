/**
 * Tasks over real transports, a child process per server (test/fixtures/tasks-fixture.mjs): the 2025-11-25 core
 * form over stdio and legacy Streamable HTTP sessions, the 2026-07-28 extension over HTTP, and a restart with the
 * SQLite store. Expectations are written from spec/2025-11-25/basic/utilities/tasks.mdx and the extension's spec
 * (spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md); the official clients'
 * runs are in tasks-clients.test.ts, the conformance suite's in test/scaffold/everything.test.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { McpClient, StdioClientTransport, StreamableHttpClientTransport } from "../../runtime/dist/index.js";
import { ROOT } from "../helpers.js";
import { type Fixture, jsonPost, modernMeta, raw, rejects, startFixture } from "./http-helpers.js";

const FIXTURE = join(ROOT, "test", "fixtures", "tasks-fixture.mjs");
const CORE = "2025-11-25";
const MODERN = "2026-07-28";
const EXT = "io.modelcontextprotocol/tasks";
const RELATED = "io.modelcontextprotocol/related-task";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c().catch(() => {})));
});

/** Poll tasks/get until `done` holds (10 s at most). */
async function until(client: McpClient, taskId: string, done: (t: Record<string, any>) => boolean, options = {}): Promise<Record<string, any>> {
  for (let i = 0; i < 200; i++) {
    const t = await client.request("tasks/get", { taskId }, options);
    if (done(t)) return t;
    await sleep(50);
  }
  throw new Error(`task ${taskId} never reached the state`);
}
const terminal = (t: Record<string, any>) => ["completed", "failed", "cancelled"].includes(t.status);

type Handlers = ConstructorParameters<typeof McpClient>[0]["handlers"];

async function stdioClient(revision = CORE, options: { capabilities?: Record<string, unknown>; handlers?: Handlers; env?: Record<string, string> } = {}) {
  const transport = new StdioClientTransport(process.execPath, [FIXTURE], { env: { ...process.env, ...options.env } });
  closers.push(() => transport.close());
  return new McpClient({ transport, revision: revision as never, capabilities: options.capabilities, handlers: options.handlers }).connect();
}

describe("2025-11-25 core tasks over stdio", () => {
  it("declares tasks only as the spec shapes them, and each tool's execution.taskSupport", async () => {
    const client = await stdioClient();
    expect((client.serverDescription!.capabilities as any).tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = (await client.listTools()) as { tools: any[] };
    expect(Object.fromEntries(tools.map((t) => [t.name, t.execution]))).toEqual({ work: { taskSupport: "optional" }, confirm: { taskSupport: "required" }, plain: undefined });
  });

  it("a task-augmented call answers CreateTaskResult at once; tasks/result waits and carries the related-task _meta", async () => {
    const client = await stdioClient();
    const created = (await client.callTool("work", { ms: 300, text: "hello" }, { meta: {} } as never)) as any;
    // callTool without params.task is an ordinary call; a task needs params.task:
    expect(created.content[0].text).toBe("hello (task no)");
    const { task } = (await client.request("tools/call", { name: "work", arguments: { ms: 300, text: "hello" }, task: { ttl: 60_000 } })) as any;
    expect(task).toMatchObject({ status: "working", ttl: 60_000, pollInterval: 200 });
    expect(task.taskId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Date.parse(task.createdAt)).not.toBeNaN();
    const started = Date.now();
    const result = (await client.request("tasks/result", { taskId: task.taskId })) as any;
    expect(Date.now() - started).toBeGreaterThan(100);
    expect(result.content).toEqual([{ type: "text", text: "hello (task yes)" }]);
    expect(result._meta[RELATED]).toEqual({ taskId: task.taskId });
    const got = (await client.request("tasks/get", { taskId: task.taskId })) as any;
    expect(got).toMatchObject({ taskId: task.taskId, status: "completed", ttl: 60_000 });
    expect(got.result).toBeUndefined();
    const listed = (await client.request("tasks/list", {})) as any;
    expect(listed.tasks.map((t: any) => t.taskId)).toContain(task.taskId);
    // notifications/tasks/status (MAY) on each change, without related-task _meta.
    const statuses = client.notifications.filter((n) => n.method === "notifications/tasks/status" && n.params?.taskId === task.taskId).map((n) => n.params!.status);
    expect(statuses).toContain("completed");
  });

  it("tasks/cancel cancels a working task before answering; a cancelled task stays cancelled; cancelling a terminal task is -32602", async () => {
    const client = await stdioClient();
    const { task } = (await client.request("tools/call", { name: "work", arguments: { ms: 10_000 }, task: {} })) as any;
    const cancelled = (await client.request("tasks/cancel", { taskId: task.taskId })) as any;
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: "cancelled" });
    await sleep(100);
    expect(((await client.request("tasks/get", { taskId: task.taskId })) as any).status).toBe("cancelled");
    const again = await rejects(client.request("tasks/cancel", { taskId: task.taskId }));
    expect(again.code).toBe(-32602);
    // tasks/result of a cancelled task is an error (there is no result), not a wait.
    expect((await rejects(client.request("tasks/result", { taskId: task.taskId }))).code).toBe(-32603);
    const done = (await client.request("tools/call", { name: "work", arguments: { ms: 1 }, task: {} })) as any;
    await until(client, done.task.taskId, terminal);
    expect((await rejects(client.request("tasks/cancel", { taskId: done.task.taskId }))).code).toBe(-32602);
  });

  it("refuses a task for a forbidden tool and a plain call of a required one (-32601); unknown task ids are -32602", async () => {
    const client = await stdioClient();
    expect((await rejects(client.request("tools/call", { name: "plain", arguments: {}, task: {} }))).code).toBe(-32601);
    expect((await rejects(client.request("tools/call", { name: "confirm", arguments: {} }))).code).toBe(-32601);
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) expect((await rejects(client.request(method, { taskId: "nope" }))).code).toBe(-32602);
    expect((await rejects(client.request("tasks/list", { cursor: "nope" }))).code).toBe(-32602);
  });

  it("a tool error fails the task (2025-11-25) and tasks/result returns that very result; a JSON-RPC error is the result's error", async () => {
    const client = await stdioClient();
    const tool = (await client.request("tools/call", { name: "work", arguments: { ms: 10, fail: "tool" }, task: {} })) as any;
    expect((await until(client, tool.task.taskId, terminal)).status).toBe("failed");
    expect(await client.request("tasks/result", { taskId: tool.task.taskId })).toMatchObject({ isError: true, content: [{ type: "text", text: "the work failed" }] });
    const proto = (await client.request("tools/call", { name: "work", arguments: { ms: 10, fail: "protocol" }, task: {} })) as any;
    expect((await until(client, proto.task.taskId, terminal)).status).toBe("failed");
    const err = await rejects(client.request("tasks/result", { taskId: proto.task.taskId }));
    expect([err.code, err.message]).toEqual([-32603, "the work broke"]);
  });

  it("a question asked during a task goes to the client as a request carrying the related-task _meta; the task is input_required meanwhile", async () => {
    let release!: () => void;
    const answered = new Promise<void>((r) => (release = r));
    const asked: Record<string, any>[] = [];
    const client = await stdioClient(CORE, {
      capabilities: { elicitation: {} },
      handlers: {
        elicitation: async (params) => {
          asked.push(params);
          await answered;
          return { action: "accept", content: { ok: true } };
        },
      },
    });
    const { task } = (await client.request("tools/call", { name: "confirm", arguments: {}, task: {} })) as any;
    expect((await until(client, task.taskId, (t) => t.status === "input_required")).status).toBe("input_required");
    expect(asked[0]._meta[RELATED]).toEqual({ taskId: task.taskId });
    release();
    const result = (await client.request("tasks/result", { taskId: task.taskId })) as any;
    expect(JSON.parse(result.content[0].text).first).toEqual({ action: "accept", content: { ok: true } });
  });

  it("tasks/list pages through the caller's tasks with nextCursor; a caller may not run more than maxRunningPerOwner tasks at once", async () => {
    const client = await stdioClient(CORE, { env: { FIXTURE_PAGE_SIZE: "2", FIXTURE_MAX_RUNNING: "3" } });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(((await client.request("tools/call", { name: "work", arguments: { ms: 10_000 }, task: {} })) as any).task.taskId);
    const busy = await rejects(client.request("tools/call", { name: "work", arguments: { ms: 1 }, task: {} }));
    // stdio has no HTTP status: the JSON-RPC error names the limit (over HTTP it is 429, tasks-refusals-http.test.ts).
    expect([busy.code, busy.message]).toEqual([-32600, "Too Many Requests: 3 tasks running for this caller already (limit tasks.maxRunningPerOwner: 3); try again once one has finished"]);
    const first = (await client.request("tasks/list", {})) as any;
    expect(first.tasks.map((t: any) => t.taskId)).toEqual(ids.slice(0, 2));
    const second = (await client.request("tasks/list", { cursor: first.nextCursor })) as any;
    expect([second.tasks.map((t: any) => t.taskId), second.nextCursor]).toEqual([ids.slice(2), undefined]);
    // A cancelled task no longer counts.
    await client.request("tasks/cancel", { taskId: ids[0] });
    expect(((await client.request("tools/call", { name: "work", arguments: { ms: 1 }, task: {} })) as any).task.status).toBe("working");
  });

  it("a tasks/result waiting on a task whose TTL elapses is answered -32602 (an unknown task), never left waiting", async () => {
    const client = await stdioClient();
    const { task } = (await client.request("tools/call", { name: "work", arguments: { ms: 10_000 }, task: { ttl: 300 } })) as any;
    const err = await rejects(client.request("tasks/result", { taskId: task.taskId }));
    expect(err.code).toBe(-32602);
    expect(err.message).toMatch(/TTL elapsed/);
  });

  it("an unauthenticated 2026-07-28 caller is nobody in particular: only the server's maxRunning bounds it, not one shared per-caller quota", async () => {
    const f = await startFixture({ FIXTURE_TRANSPORT: "http", FIXTURE_MAX_RUNNING: "2", FIXTURE_MAX_RUNNING_TOTAL: "4" }, [], FIXTURE);
    closers.push(() => f.stop());
    const client = await new McpClient({ transport: new StreamableHttpClientTransport(f.url), revision: MODERN as never, capabilities: { extensions: { [EXT]: {} } } }).connect();
    closers.push(() => client.close());
    for (let i = 0; i < 4; i++) expect(((await client.callTool("work", { ms: 10_000 })) as any).resultType).toBe("task");
    const busy = await rejects(client.callTool("work", { ms: 10_000 }));
    expect([busy.code, busy.message]).toEqual([-32600, expect.stringContaining("4 tasks running in this server")]);
  });

  it("a task store that cannot be made stops the server at start, naming the setting (not at the first task call)", async () => {
    const { spawnSync } = await import("node:child_process");
    for (const [env, said] of [
      [{ MCP_TASK_STORE: "bogus" }, "MCP_TASK_STORE=bogus: expected memory, sqlite:<path>, postgres or redis"],
      [{ MCP_TASK_STORE: "postgres", MCP_DATABASE_URL: "" }, "MCP_TASK_STORE: the postgres task store needs a URL"],
    ] as const) {
      const r = spawnSync(process.execPath, [FIXTURE], { env: { ...process.env, ...env }, input: "", encoding: "utf8", timeout: 10_000 });
      expect([r.status, r.stderr.includes(said), r.stdout]).toEqual([1, true, ""]);
    }
  });

  it("a task store that cannot be reached: -32603 saying so, its address and the driver's words only on stderr", async () => {
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, [FIXTURE], { env: { ...process.env, MCP_TASK_STORE: "postgres", MCP_DATABASE_URL: "postgres://mcp@127.0.0.1:1/test" }, stdio: ["pipe", "pipe", "pipe"] });
    closers.push(async () => child.kill());
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    const answer = async (id: number) => {
      for (let i = 0; i < 200; i++) {
        const line = stdout.split("\n").find((l) => l.includes(`"id":${id},`));
        if (line) return JSON.parse(line);
        await sleep(25);
      }
      throw new Error(`no answer to ${id}: ${stdout} ${stderr}`);
    };
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: CORE, capabilities: {}, clientInfo: { name: "t", version: "1" } } });
    await answer(1);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "work", arguments: { ms: 1 }, task: {} } });
    expect(await answer(2)).toEqual({ jsonrpc: "2.0", id: 2, error: { code: -32603, message: "Internal error: the task store could not be reached; try again" } });
    send({ jsonrpc: "2.0", id: 3, method: "tasks/get", params: { taskId: "x" } });
    expect((await answer(3)).error).toEqual({ code: -32603, message: "Internal error: the task store could not be reached; try again" });
    expect(stdout).not.toContain("127.0.0.1:1");
    expect(stderr).toMatch(/^mcp runtime: task store: create: .*ECONNREFUSED 127\.0\.0\.1:1$/m);
  });

  it("a task past its TTL is gone (-32602), its handler aborted", async () => {
    const client = await stdioClient();
    const { task } = (await client.request("tools/call", { name: "work", arguments: { ms: 10_000 }, task: { ttl: 300 } })) as any;
    expect(task.ttl).toBe(300);
    await sleep(500);
    expect((await rejects(client.request("tasks/get", { taskId: task.taskId }))).code).toBe(-32602);
    expect(((await client.request("tasks/list", {})) as any).tasks).toEqual([]);
  });

  it("revisions before 2025-11-25 have no tasks: a task param is ignored and a required tool does not exist", async () => {
    const client = await stdioClient("2025-06-18");
    expect((client.serverDescription!.capabilities as any).tasks).toBeUndefined();
    const { tools } = (await client.listTools()) as { tools: any[] };
    expect(tools.map((t) => t.name)).toEqual(["work", "plain"]);
    expect(tools[0].execution).toBeUndefined();
    expect(((await client.request("tools/call", { name: "work", arguments: { ms: 1 }, task: {} })) as any).content[0].text).toBe("done (task no)");
    expect((await rejects(client.request("tasks/get", { taskId: "x" }))).code).toBe(-32601);
  });
});

describe("tasks over Streamable HTTP", () => {
  let fx: Fixture;
  const fixtures: Fixture[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const f = await startFixture({ FIXTURE_TRANSPORT: "http", ...env }, [], FIXTURE);
    fixtures.push(f);
    return f;
  };
  afterAll(async () => {
    await Promise.all(fixtures.map((f) => f.stop()));
  });
  const http = async (revision: string, capabilities: Record<string, unknown> = { extensions: { [EXT]: {} } }, handlers?: Handlers) => {
    fx ??= await start();
    const transport = new StreamableHttpClientTransport(fx.url);
    const client = await new McpClient({ transport, revision: revision as never, capabilities, handlers }).connect();
    closers.push(() => client.close());
    return client;
  };

  it("2026-07-28: the extension in server/discover (never the core capability); a flat CreateTaskResult only to a request that declares it", async () => {
    const client = await http(MODERN);
    const caps = client.serverDescription!.capabilities as any;
    expect(caps.extensions).toEqual({ [EXT]: {} });
    expect(caps.tasks).toBeUndefined();
    const created = (await client.callTool("work", { ms: 200 })) as any;
    expect(created).toMatchObject({ resultType: "task", status: "working", ttlMs: 3_600_000, pollIntervalMs: 200, statusMessage: "working for 200 ms" });
    expect(created.task).toBeUndefined();
    expect(created.ttl).toBeUndefined();
    // Durable before the response: tasks/get resolves at once.
    expect(((await client.request("tasks/get", { taskId: created.taskId })) as any).taskId).toBe(created.taskId);
    const done = await until(client, created.taskId, terminal);
    expect(done).toMatchObject({ status: "completed", resultType: "complete", result: { content: [{ type: "text", text: "done (task yes)" }], resultType: "complete" } });
    expect(done.result._meta?.[RELATED]).toBeUndefined();
    // The same call without the extension is an ordinary result; a required tool is -32021 naming the extension.
    expect(((await client.callTool("work", { ms: 1 }, { capabilities: {} })) as any).content[0].text).toBe("done (task no)");
    const missing = await rejects(client.callTool("confirm", {}, { capabilities: {} }));
    expect(missing.code).toBe(-32021);
    expect(missing.data).toEqual({ requiredCapabilities: { extensions: { [EXT]: {} } } });
    // A legacy `task` param is no opt-in here.
    expect(((await client.request("tools/call", { name: "plain", arguments: {}, task: { ttl: 1000 } })) as any).content[0].text).toBe("plain");
  });

  it("2026-07-28: extension methods from a non-declaring request are -32021 before any lookup; tasks/result and tasks/list are -32601", async () => {
    const client = await http(MODERN);
    for (const [method, params] of [
      ["tasks/get", { taskId: "gate-test" }],
      ["tasks/update", { taskId: "gate-test", inputResponses: {} }],
      ["tasks/cancel", { taskId: "gate-test" }],
    ] as const) {
      const err = await rejects(client.request(method, params, { capabilities: {} }));
      expect([method, err.code]).toEqual([method, -32021]);
    }
    for (const method of ["tasks/result", "tasks/list"]) expect((await rejects(client.request(method, { taskId: "x" }))).code).toBe(-32601);
    expect((await rejects(client.request("tasks/get", { taskId: "unknown" }))).code).toBe(-32602);
  });

  it("2026-07-28: isError is completed, a JSON-RPC error is failed with the error inlined", async () => {
    const client = await http(MODERN);
    const tool = (await client.callTool("work", { ms: 20, fail: "tool" })) as any;
    expect(await until(client, tool.taskId, terminal)).toMatchObject({ status: "completed", result: { isError: true } });
    const proto = (await client.callTool("work", { ms: 20, fail: "protocol" })) as any;
    const failed = await until(client, proto.taskId, terminal);
    expect(failed).toMatchObject({ status: "failed", error: { code: -32603, message: "the work broke" } });
    expect(failed.result).toBeUndefined();
  });

  it("2026-07-28: input_required surfaces inputRequests; tasks/update answers (unknown and answered keys ignored), keys never reused", async () => {
    const client = await http(MODERN, { extensions: { [EXT]: {} }, elicitation: {} });
    const created = (await client.callTool("confirm", { twice: true })) as any;
    expect(created.resultType).toBe("task");
    const first = await until(client, created.taskId, (t) => t.status === "input_required");
    expect(Object.keys(first.inputRequests)).toEqual(["elicitation-1"]);
    expect(first.inputRequests["elicitation-1"]).toMatchObject({ method: "elicitation/create", params: { message: "Proceed?" } });
    const ack = (await client.request("tasks/update", { taskId: created.taskId, inputResponses: { "elicitation-1": { action: "accept", content: { ok: true } }, "no-such-key": { x: 1 } } })) as any;
    expect(Object.keys(ack).sort()).toEqual(["_meta", "resultType"]);
    const second = await until(client, created.taskId, (t) => t.status === "input_required" && !t.inputRequests["elicitation-1"]);
    expect(Object.keys(second.inputRequests)).toEqual(["elicitation-2"]);
    // Answering the first key again changes nothing.
    await client.request("tasks/update", { taskId: created.taskId, inputResponses: { "elicitation-1": { action: "decline" } } });
    await client.request("tasks/update", { taskId: created.taskId, inputResponses: { "elicitation-2": { action: "accept", content: { ok: false } } } });
    const done = await until(client, created.taskId, terminal);
    expect(JSON.parse(done.result.content[0].text)).toEqual({ first: { action: "accept", content: { ok: true } }, second: { action: "accept", content: { ok: false } } });
  });

  it("2026-07-28: a handler that asks while its task is still being stored asks through the task, not MRTR", async () => {
    // confirm asks after 20 ms; the store takes 300 ms to create the task.
    const f = await start({ FIXTURE_SLOW_CREATE_MS: "300" });
    const client = await new McpClient({ transport: new StreamableHttpClientTransport(f.url), revision: MODERN as never, capabilities: { extensions: { [EXT]: {} }, elicitation: {} } }).connect();
    closers.push(() => client.close());
    const created = (await client.callTool("confirm", {})) as any;
    expect(created.resultType).toBe("task");
    const waiting = await until(client, created.taskId, (t) => t.status !== "working");
    expect([waiting.status, Object.keys(waiting.inputRequests ?? {})]).toEqual(["input_required", ["elicitation-1"]]);
  });

  it("2026-07-28: tasks/cancel is an empty acknowledgement, also for a finished task; the handler is aborted", async () => {
    const client = await http(MODERN);
    const created = (await client.callTool("work", { ms: 10_000 })) as any;
    const ack = (await client.request("tasks/cancel", { taskId: created.taskId })) as any;
    expect(ack.resultType).toBe("complete");
    expect(ack.status).toBeUndefined();
    expect((await until(client, created.taskId, terminal)).status).toBe("cancelled");
    await sleep(50);
    expect(fx.stderr()).toContain(`aborted ${created.taskId}`);
    expect(((await client.request("tasks/cancel", { taskId: created.taskId })) as any).resultType).toBe("complete");
  });

  it("2026-07-28: Mcp-Name must equal params.taskId (-32020)", async () => {
    await http(MODERN);
    const body = { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId: "abc", _meta: { ...modernMeta(), "io.modelcontextprotocol/clientCapabilities": { extensions: { [EXT]: {} } } } } };
    const r = await raw(fx.url, { headers: jsonPost({ "mcp-protocol-version": MODERN, "mcp-method": "tasks/get", "mcp-name": "other" }), body });
    expect([r.status, r.json.error.code]).toEqual([400, -32020]);
  });

  it("2026-07-28: subscriptions/listen with taskIds streams notifications/tasks with the DetailedTask; without the extension it is -32021", async () => {
    const client = await http(MODERN);
    const created = (await client.callTool("work", { ms: 150, text: "listened" })) as any;
    const controller = new AbortController();
    const seen: any[] = [];
    const listening = client
      .request("subscriptions/listen", { notifications: { taskIds: [created.taskId] } }, { signal: controller.signal, onNotification: (n) => seen.push(n) })
      .catch(() => undefined);
    for (let i = 0; i < 100 && !seen.some((n) => n.method === "notifications/tasks" && n.params.status === "completed"); i++) await sleep(30);
    controller.abort();
    await listening;
    expect(seen[0]).toMatchObject({ method: "notifications/subscriptions/acknowledged", params: { notifications: { taskIds: [created.taskId] } } });
    const completed = seen.find((n) => n.method === "notifications/tasks" && n.params.status === "completed");
    expect(completed.params).toMatchObject({ taskId: created.taskId, result: { content: [{ type: "text", text: "listened (task yes)" }] } });
    const refused = await rejects(client.request("subscriptions/listen", { notifications: { taskIds: [created.taskId] } }, { capabilities: {} }));
    expect(refused.code).toBe(-32021);
  });

  it("2025-11-25 over HTTP: a task outlives its POST; another session can neither see nor list it", async () => {
    const a = await http(CORE, {});
    const { task } = (await a.request("tools/call", { name: "work", arguments: { ms: 200, text: "later" }, task: {} })) as any;
    const b = await http(CORE, {});
    expect((await rejects(b.request("tasks/get", { taskId: task.taskId }))).code).toBe(-32602);
    expect((await rejects(b.request("tasks/cancel", { taskId: task.taskId }))).code).toBe(-32602);
    expect(((await b.request("tasks/list", {})) as any).tasks).toEqual([]);
    const result = (await a.request("tasks/result", { taskId: task.taskId })) as any;
    expect(result.content[0].text).toBe("later (task yes)");
  });

  it("SQLite: a finished task survives a restart; one running when the process died reads failed, never working", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-"));
    try {
      const env = { MCP_TASK_STORE: `sqlite:${join(dir, "tasks.db")}` };
      const first = await start(env);
      const c1 = await new McpClient({ transport: new StreamableHttpClientTransport(first.url), revision: MODERN as never, capabilities: { extensions: { [EXT]: {} } } }).connect();
      const quick = (await c1.callTool("work", { ms: 20, text: "kept" })) as any;
      await until(c1, quick.taskId, terminal);
      const long = (await c1.callTool("work", { ms: 60_000 })) as any;
      first.child.kill("SIGKILL");
      await new Promise((r) => first.child.once("exit", r));
      const second = await start(env);
      const c2 = await new McpClient({ transport: new StreamableHttpClientTransport(second.url), revision: MODERN as never, capabilities: { extensions: { [EXT]: {} } } }).connect();
      closers.push(() => c2.close());
      expect(await c2.request("tasks/get", { taskId: quick.taskId })).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "kept (task yes)" }] } });
      const lost = (await c2.request("tasks/get", { taskId: long.taskId })) as any;
      expect(lost).toMatchObject({ status: "failed", statusMessage: "the server restarted while this task was running", error: { code: -32603 } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
