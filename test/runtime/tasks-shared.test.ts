/**
 * Tasks shared by several processes through each shared task store, PostgreSQL and Redis (the real servers of this
 * machine): a task
 * created on process A is polled, answered and cancelled on process B, B's subscriptions/listen hears A's task, and a
 * task whose process died reads failed once its lease lapses. Two fixture processes over HTTP, 2026-07-28 clients.
 */
import { afterAll, describe, expect, it } from "vitest";
import { ClientError } from "../../runtime/dist/index.js";
import { POSTGRES_URL, REDIS_URL, hasPostgres, hasRedis } from "../services.js";
import { TaskProcesses, dropRedisKeys, sleep, terminal, untilTask as until } from "./tasks-shared-helpers.js";

const REDIS_PREFIX = `mcp-test-shared-${process.pid}-${Date.now()}:`;
afterAll(() => dropRedisKeys(REDIS_PREFIX));

const STORES: { name: string; env: Record<string, string>; available: () => Promise<boolean> }[] = [
  { name: "PostgreSQL", env: { MCP_TASK_STORE: "postgres", MCP_DATABASE_URL: POSTGRES_URL }, available: hasPostgres },
  // Keys of their own per run.
  { name: "Redis", env: { MCP_TASK_STORE: "redis", MCP_REDIS_URL: REDIS_URL, MCP_REDIS_PREFIX: REDIS_PREFIX }, available: hasRedis },
];

describe.each(STORES)("tasks across processes ($name store)", async ({ env, available: has }) => {
  const available = await has();
  const processes = new TaskProcesses();
  afterAll(() => processes.close());
  const start = () => processes.start(env);

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
    expect(lost).toMatchObject({
      status: "failed",
      error: { code: -32603 },
      statusMessage: "its lease lapsed before it finished: the server process running it stopped, or could not reach the task store",
    });
    const missing = await b.client.request("tasks/get", { taskId: "nope" }).catch((e: ClientError) => e);
    expect((missing as ClientError).code).toBe(-32602);
  });
});

describe("MCP_REDIS_URL without MCP_TASK_STORE", async () => {
  const available = await hasRedis();
  const processes = new TaskProcesses();
  afterAll(() => processes.close());

  // Setting the shared store shares every state: a task created through one process is not unknown on the next (#20 item 14).
  it.runIf(available)("tasks are on Redis by default: a task created on A is read, and cancelled, on B", async () => {
    const env = { MCP_REDIS_URL: REDIS_URL, MCP_REDIS_PREFIX: REDIS_PREFIX };
    const a = await processes.start(env);
    const b = await processes.start(env);
    const created = (await a.client.callTool("work", { ms: 30_000 })) as any;
    expect(created.resultType).toBe("task");
    expect(((await b.client.request("tasks/get", { taskId: created.taskId })) as any).status).toBe("working");
    await b.client.request("tasks/cancel", { taskId: created.taskId });
    expect((await until(a.client, created.taskId, terminal)).status).toBe("cancelled");
  });
});
