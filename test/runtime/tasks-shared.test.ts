/**
 * Tasks shared by several processes through each shared task store, PostgreSQL and Redis (the real servers of this
 * machine): a task
 * created on process A is polled, answered and cancelled on process B, B's subscriptions/listen hears A's task, and a
 * task whose process died reads failed once its lease lapses. Two fixture processes over HTTP, 2026-07-28 clients.
 */
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { ClientError, McpClient, StreamableHttpClientTransport } from "../../runtime/dist/index.js";
import { join } from "node:path";
import { ROOT } from "../helpers.js";
import { POSTGRES_URL, REDIS_URL, hasPostgres, hasRedis } from "../services.js";
import { type Fixture, startFixture } from "./http-helpers.js";

const FIXTURE = join(ROOT, "test", "fixtures", "tasks-fixture.mjs");
const EXT = "io.modelcontextprotocol/tasks";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const terminal = (t: Record<string, any>) => ["completed", "failed", "cancelled"].includes(t.status);

const REDIS_PREFIX = `mcp-test-shared-${process.pid}-${Date.now()}:`;
afterAll(async () => {
  if (!(await hasRedis())) return;
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${REDIS_PREFIX}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const STORES: { name: string; env: Record<string, string>; available: () => Promise<boolean> }[] = [
  { name: "PostgreSQL", env: { MCP_TASK_STORE: "postgres", MCP_DATABASE_URL: POSTGRES_URL }, available: hasPostgres },
  // Keys of their own per run.
  { name: "Redis", env: { MCP_TASK_STORE: "redis", MCP_REDIS_URL: REDIS_URL, MCP_REDIS_PREFIX: REDIS_PREFIX }, available: hasRedis },
];

describe.each(STORES)("tasks across processes ($name store)", async ({ env, available: has }) => {
  const available = await has();
  const fixtures: Fixture[] = [];
  const clients: McpClient[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await Promise.all(fixtures.map((f) => f.stop()));
  });
  const start = async () => {
    const f = await startFixture({ FIXTURE_TRANSPORT: "http", ...env, FIXTURE_LEASE_MS: "3000" }, [], FIXTURE);
    fixtures.push(f);
    const client = await new McpClient({
      transport: new StreamableHttpClientTransport(f.url),
      revision: "2026-07-28" as never,
      capabilities: { extensions: { [EXT]: {} }, elicitation: {} },
    }).connect();
    clients.push(client);
    return { f, client };
  };
  const until = async (client: McpClient, taskId: string, done: (t: Record<string, any>) => boolean) => {
    let t: Record<string, any> = {};
    for (let i = 0; i < 200; i++) {
      t = (await client.request("tasks/get", { taskId })) as Record<string, any>;
      if (done(t)) return t;
      await sleep(50);
    }
    throw new Error(`task ${taskId} never reached the state; last: ${JSON.stringify(t)}`);
  };

  it.runIf(available)("a task created on A is polled and answered on B, and its listen notifications reach B", async () => {
    const a = await start();
    const b = await start();
    const created = (await a.client.callTool("confirm", {})) as any;
    expect(created.resultType).toBe("task");
    // Durable before the response: B finds it at once.
    expect(((await b.client.request("tasks/get", { taskId: created.taskId })) as any).taskId).toBe(created.taskId);
    const seen: any[] = [];
    const controller = new AbortController();
    const listening = b.client.request("subscriptions/listen", { notifications: { taskIds: [created.taskId] } }, { signal: controller.signal, onNotification: (n) => seen.push(n) }).catch(() => {});
    const waiting = await until(b.client, created.taskId, (t) => t.status === "input_required");
    expect(Object.keys(waiting.inputRequests)).toEqual(["elicitation-1"]);
    await b.client.request("tasks/update", { taskId: created.taskId, inputResponses: { "elicitation-1": { action: "accept", content: { ok: true } } } });
    const done = await until(b.client, created.taskId, terminal);
    expect(JSON.parse(done.result.content[0].text).first).toEqual({ action: "accept", content: { ok: true } });
    for (let i = 0; i < 50 && !seen.some((n) => n.params?.status === "completed"); i++) await sleep(20);
    controller.abort();
    await listening;
    expect(seen.filter((n) => n.method === "notifications/tasks").map((n) => n.params.status)).toEqual(expect.arrayContaining(["working", "completed"]));
  });

  it.runIf(available)("tasks/cancel on B aborts the handler running on A", async () => {
    const a = await start();
    const b = await start();
    const created = (await a.client.callTool("work", { ms: 30_000 })) as any;
    await b.client.request("tasks/cancel", { taskId: created.taskId });
    expect((await until(a.client, created.taskId, terminal)).status).toBe("cancelled");
    for (let i = 0; i < 50 && !a.f.stderr().includes(`aborted ${created.taskId}`); i++) await sleep(20);
    expect(a.f.stderr()).toContain(`aborted ${created.taskId}`);
  });

  it.runIf(available)("kill -9 of the process running a task: it reads failed on the others once its lease lapses, never working forever", async () => {
    const a = await start();
    const b = await start();
    const created = (await a.client.callTool("work", { ms: 60_000 })) as any;
    await sleep(1200); // at least one renewal
    expect(((await b.client.request("tasks/get", { taskId: created.taskId })) as any).status).toBe("working");
    a.f.child.kill("SIGKILL");
    const lost = await until(b.client, created.taskId, terminal);
    expect(lost).toMatchObject({ status: "failed", error: { code: -32603 }, statusMessage: "the server process running this task stopped before it finished" });
    const missing = await b.client.request("tasks/get", { taskId: "nope" }).catch((e: ClientError) => e);
    expect((missing as ClientError).code).toBe(-32602);
  });
});
