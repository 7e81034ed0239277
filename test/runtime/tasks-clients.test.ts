/**
 * Real clients drive the runtime's tasks: the official SDK 1.x client's experimental tasks API on 2025-11-25 (core
 * tasks) over Streamable HTTP and stdio, and `@modelcontextprotocol/ext-tasks` (the official client side of the
 * `io.modelcontextprotocol/tasks` extension) on 2026-07-28 over Streamable HTTP. The server is test/fixtures/tasks-clients-fixture.mjs,
 * a real child process (HTTP on 127.0.0.1).
 * spec/2025-11-25/basic/utilities/tasks.mdx, spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as Stdio1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as Http1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as Client2, StreamableHTTPClientTransport as Http2 } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, type JsonRpcResponse, type TaskEnabledSession } from "@modelcontextprotocol/ext-tasks/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";
import { MODERN } from "./http-helpers.js";

const FIXTURE = join(ROOT, "test", "fixtures", "tasks-clients-fixture.mjs");
const LEGACY = "2025-11-25";

interface Server {
  url: string;
  stop(): Promise<void>;
}

async function startHttp(): Promise<Server> {
  const child = spawn(process.execPath, [FIXTURE, "--http"], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr!.setEncoding("utf8");
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fixture did not start: ${err}`)), 10_000);
    child.stderr!.on("data", (c: string) => {
      err += c;
      const m = /listening (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`fixture exited ${code}: ${err}`)));
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

type Message = { type: string; task?: { taskId: string; status: string }; result?: unknown; error?: Error };

/** Collect every message of a callToolStream (taskCreated, taskStatus..., then result or error). */
async function collect(stream: AsyncGenerator<unknown>, onCreated?: (taskId: string) => void | Promise<void>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of stream as AsyncGenerator<Message>) {
    out.push(m);
    if (m.type === "taskCreated") await onCreated?.(m.task!.taskId);
  }
  return out;
}

describe.each([
  ["Streamable HTTP", "http"],
  ["stdio", "stdio"],
] as const)(`@modelcontextprotocol/sdk 1.x client tasks (${LEGACY}) over %s`, (_label, kind) => {
  let server: Server | undefined;
  let client: Client1;
  const asked: Record<string, unknown>[] = [];

  beforeAll(async () => {
    client = new Client1({ name: "sdk1-tasks", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    // A question asked during a task arrives as a request to the client carrying the related-task _meta.
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      asked.push(req.params as Record<string, unknown>);
      return { action: "accept", content: { confirm: true } };
    });
    if (kind === "http") {
      server = await startHttp();
      await client.connect(new Http1(new URL(server.url)));
    } else await client.connect(new Stdio1({ command: process.execPath, args: [FIXTURE], stderr: "pipe" }));
  });
  afterAll(async () => {
    await client.close();
    await server?.stop();
  });

  it("negotiates 2025-11-25 and sees the tasks capability and each tool's execution.taskSupport", async () => {
    expect(client.getServerCapabilities()).toMatchObject({ tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } });
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "slow")?.execution).toEqual({ taskSupport: "optional" });
  });

  it("callToolStream: the task is created, polled with tasks/get, and its result fetched with tasks/result", async () => {
    const messages = await collect(client.experimental.tasks.callToolStream({ name: "slow", arguments: { ms: 300 } }, CallToolResultSchema, { task: { ttl: 60_000 } }));
    expect(messages[0]).toMatchObject({ type: "taskCreated", task: { status: "working" } });
    expect(messages.filter((m) => m.type === "taskStatus").pop()).toMatchObject({ task: { status: "completed" } });
    expect(messages.at(-1)).toMatchObject({ type: "result", result: { content: [{ type: "text", text: "slept 300 ms as a task" }] } });
    // The same tool without params.task is an ordinary call (taskSupport "optional").
    expect(await client.callTool({ name: "slow", arguments: { ms: 1 } })).toMatchObject({ content: [{ type: "text", text: "slept 1 ms without a task" }] });
  });

  it("tasks/result waits until the task is terminal, then answers its result with the related-task _meta", async () => {
    const created = await client.request({ method: "tools/call", params: { name: "slow", arguments: { ms: 500 } } }, CreateTaskResultSchema, { task: { ttl: 60_000 } });
    const taskId = created.task.taskId;
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe("working");
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result).toMatchObject({ content: [{ type: "text", text: "slept 500 ms as a task" }], _meta: { "io.modelcontextprotocol/related-task": { taskId } } });
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe("completed");
    const { tasks } = await client.experimental.tasks.listTasks();
    expect(tasks.map((t) => t.taskId)).toContain(taskId);
  });

  it("a task-time elicitation goes to the client with the related-task _meta; its answer completes the task", async () => {
    asked.length = 0;
    const messages = await collect(client.experimental.tasks.callToolStream({ name: "confirm", arguments: { file: "a.txt" } }, CallToolResultSchema, { task: { ttl: 60_000 } }));
    const taskId = messages[0].task!.taskId;
    expect(messages.at(-1)).toMatchObject({ type: "result", result: { content: [{ type: "text", text: "deleted a.txt" }] } });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ message: "Delete a.txt?", _meta: { "io.modelcontextprotocol/related-task": { taskId } } });
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe("completed");
  });

  it("tasks/cancel cancels a working task, which stays cancelled; cancelling it again is -32602", async () => {
    const messages = await collect(client.experimental.tasks.callToolStream({ name: "slow", arguments: { ms: 60_000 } }, CallToolResultSchema, { task: { ttl: 60_000 } }), async (taskId) => {
      expect(await client.experimental.tasks.cancelTask(taskId)).toMatchObject({ taskId, status: "cancelled" });
    });
    const taskId = messages[0].task!.taskId;
    expect(messages.at(-1)).toMatchObject({ type: "error" });
    expect(String(messages.at(-1)!.error)).toMatch(/cancelled/);
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe("cancelled");
    await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject({ code: -32602 });
  });
});

describe(`@modelcontextprotocol/ext-tasks client (${MODERN}, io.modelcontextprotocol/tasks) over Streamable HTTP`, () => {
  let server: Server;
  let client: Client2;
  let session: TaskEnabledSession;
  const clientInfo = { name: "ext-tasks-client", version: "1.0.0" };
  const clientCapabilities = { elicitation: {} };
  const inputs: { kind: string; delivery: string; taskId?: string }[] = [];
  let n = 0;

  // The raw request path ext-tasks asks of its host for the extension's traffic (tools/call and tasks/*), which the
  // SDK's own codecs reject: a stateless POST with the 2026-07-28 routing headers.
  const rawDispatch = async (request: unknown): Promise<JsonRpcResponse> => {
    const req = request as { id?: unknown; method: string; params?: Record<string, unknown> };
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN, "mcp-method": req.method };
    const name = req.params?.taskId ?? req.params?.name;
    if (typeof name === "string") headers["mcp-name"] = name;
    const r = await fetch(server.url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: req.id ?? `ext-${++n}`, ...req }) });
    const body = (await r.json()) as { result?: never; error?: never };
    return body.error ? { kind: "error", error: body.error } : { kind: "result", result: body.result! };
  };

  beforeAll(async () => {
    server = await startHttp();
    client = new Client2(clientInfo, { capabilities: clientCapabilities, versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new Http2(new URL(server.url)));
    session = createTaskSessionFromClient(client, {
      endpointId: "tasks-fixture",
      rawDispatch,
      v2RequestFraming: { protocolVersion: MODERN, clientInfo, clientCapabilities },
      onInputRequest: async (request, context) => {
        inputs.push({ kind: request.kind, delivery: context.delivery, taskId: context.taskId });
        return { action: "accept", content: { confirm: true } } as never;
      },
    });
  });
  afterAll(async () => {
    await session?.close();
    await client?.close();
    await server?.stop();
  });

  it("sees the extension in server/discover", () => {
    expect(session.capabilities).toMatchObject({ execution: true, cancellation: true, inputResponses: true });
  });

  it("drives a task to completion: CreateTaskResult, tasks/get until completed, the inlined result", async () => {
    const execution = await session.callTool("slow", { ms: 300 });
    expect(execution.kind).toBe("task");
    const { outcome } = await execution.settle();
    expect(outcome).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "slept 300 ms as a task" }] } });
  });

  it("drives a task to cancellation: tasks/cancel, then tasks/get reads cancelled", async () => {
    const execution = await session.callTool("slow", { ms: 60_000 });
    expect(execution.kind).toBe("task");
    await execution.cancel();
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("cancelled");
    expect((await session.task(execution.handle!.taskId).snapshot()).status).toBe("cancelled");
  });

  it("answers an input_required task through tasks/update, and the task completes", async () => {
    inputs.length = 0;
    const execution = await session.callTool("confirm", { file: "b.txt" });
    expect(execution.kind).toBe("task");
    const { outcome } = await execution.settle();
    expect(outcome).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "deleted b.txt" }] } });
    expect(inputs).toEqual([{ kind: "elicitation", delivery: "task-update", taskId: execution.handle!.taskId }]);
  });
});
