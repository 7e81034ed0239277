/**
 * The stored-task quota (#20 item 3): how many tasks, and how many bytes of outcomes, one owner and one process keep
 * stored; what is evicted first (the owner's oldest finished task, never a working one, never another owner's); what
 * is refused when nothing can go. Expectations are written by hand from the defaults and limits documented in
 * docs/tasks.md. spec/2025-11-25/basic/utilities/tasks.mdx#resource-management,
 * spec/2025-11-25/basic/utilities/tasks.mdx#ttl-and-resource-management
 */
import { afterAll, describe, expect, it } from "vitest";
import { McpClient, StreamableHttpClientTransport, createServer, type HttpHandle, type TaskOptions } from "../../runtime/dist/index.js";

const CORE = "2025-11-25";
const handles: HttpHandle[] = [];
const clients: McpClient[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await Promise.all(handles.map((h) => h.close()));
});

/** A server over HTTP with these task limits: `quick` (a small result), `big` (a result of about `bytes` bytes), `hold` (runs until cancelled). */
async function serve(tasks: TaskOptions): Promise<string> {
  const server = createServer({ name: "quota", version: "1", tasks });
  const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
  server.tool({ name: "quick", taskSupport: "optional", inputSchema: { type: "object" }, handler: () => text("done") });
  server.tool({ name: "big", taskSupport: "optional", inputSchema: { type: "object", properties: { bytes: { type: "number" } } }, handler: ({ bytes }) => text("x".repeat(Number(bytes))) });
  server.tool({
    name: "hold",
    taskSupport: "optional",
    inputSchema: { type: "object" },
    handler: (_a, ctx) => new Promise((r) => ctx.signal.addEventListener("abort", () => r(text("stopped")), { once: true })),
  });
  const h = await server.serveHttp({ port: 0, quiet: true });
  handles.push(h);
  return h.url;
}

/** A 2025-11-25 client: its own legacy session, so its own owner. */
async function caller(url: string): Promise<McpClient> {
  const c = await new McpClient({ transport: new StreamableHttpClientTransport(url), revision: CORE as never, capabilities: {} }).connect();
  clients.push(c);
  return c;
}

const failure = (p: Promise<unknown>) =>
  p.then(
    (r) => ({ answered: r }),
    (e: { code: number; message: string; data?: unknown }) => ({ code: e.code, message: e.message, data: e.data }),
  );

/** Create a task of `tool`; its id. */
async function start(c: McpClient, tool: string, args: Record<string, unknown> = {}, task: Record<string, unknown> = {}): Promise<string> {
  const r = (await c.request("tools/call", { name: tool, arguments: args, task })) as any;
  return r.task.taskId as string;
}
/** Create a task and wait for its result (tasks/result): it is finished. */
async function finished(c: McpClient, tool: string, args: Record<string, unknown> = {}): Promise<string> {
  const id = await start(c, tool, args);
  await c.request("tasks/result", { taskId: id }).catch(() => {});
  return id;
}
const known = async (c: McpClient, id: string) => !("code" in (await failure(c.request("tasks/get", { taskId: id }))));

describe("stored tasks per owner, by count", () => {
  it("an owner at its limit evicts its oldest finished task, then is refused once all are working; another owner still creates tasks and reads their results", async () => {
    const url = await serve({ maxStoredTasksPerOwner: 3 });
    const [a, b] = [await caller(url), await caller(url)];
    const done = [await finished(a, "quick"), await finished(a, "quick"), await finished(a, "quick")];
    const fourth = await finished(a, "quick");
    expect(await Promise.all([...done, fourth].map((id) => known(a, id)))).toEqual([false, true, true, true]);
    const holds = [await start(a, "hold"), await start(a, "hold"), await start(a, "hold")];
    expect(await Promise.all([...done, fourth].map((id) => known(a, id)))).toEqual([false, false, false, false]);
    expect(await failure(start(a, "hold"))).toEqual({
      code: -32600,
      message: "Too Many Requests: this caller has 3 stored tasks and none of this caller's is finished (limit tasks.maxStoredTasksPerOwner: 3); try again once one has finished",
      data: { limit: "tasks.maxStoredTasksPerOwner", max: 3 },
    });
    expect(await Promise.all(holds.map((id) => known(a, id)))).toEqual([true, true, true]);
    // B is not affected by A's limit.
    for (let i = 0; i < 3; i++) {
      const id = await start(b, "quick");
      expect(((await b.request("tasks/result", { taskId: id })) as any).content[0].text).toBe("done");
      expect(((await b.request("tasks/get", { taskId: id })) as any).status).toBe("completed");
    }
    // A finished task frees A's place: a cancelled one is evicted for the next.
    await a.request("tasks/cancel", { taskId: holds[0] });
    const next = await start(a, "hold");
    expect([await known(a, holds[0]), await known(a, next)]).toEqual([false, true]);
    for (const id of [...holds.slice(1), next]) await a.request("tasks/cancel", { taskId: id });
  });
});

describe("stored tasks per owner, by bytes of outcomes", () => {
  it("a result that would pass the owner's bytes evicts its oldest finished task; one that cannot fit fails its task naming the limit; another owner is not affected", async () => {
    const url = await serve({ maxStoredBytesPerOwner: 10_000 });
    const [c, d] = [await caller(url), await caller(url)];
    const ids = [await finished(c, "big", { bytes: 4000 }), await finished(c, "big", { bytes: 4000 }), await finished(c, "big", { bytes: 4000 })];
    expect(await Promise.all(ids.map((id) => known(c, id)))).toEqual([false, true, true]);
    expect(((await c.request("tasks/result", { taskId: ids[2] })) as any).content[0].text).toHaveLength(4000);
    const huge = await start(c, "big", { bytes: 20_000 });
    // 20 000 bytes of text and 46 of JSON around it: [{"content":[{"type":"text","text":"…"}]},null]
    const message = "Internal error: its outcome (20046 bytes) does not fit the stored tasks' limit (tasks.maxStoredBytesPerOwner = 10000 bytes)";
    expect(await failure(c.request("tasks/result", { taskId: huge }))).toEqual({ code: -32603, message, data: { limit: "tasks.maxStoredBytesPerOwner", max: 10_000 } });
    expect(await c.request("tasks/get", { taskId: huge })).toMatchObject({ status: "failed", statusMessage: message });
    // D's results are D's: C's outcomes neither evict nor refuse them.
    const mine = await start(d, "big", { bytes: 4000 });
    expect(((await d.request("tasks/result", { taskId: mine })) as any).content[0].text).toHaveLength(4000);
  });
});

describe("stored tasks per process", () => {
  it("the process's count is a bound of its own: with every task working, the next owner's task is refused naming it", async () => {
    const url = await serve({ maxStoredTasksPerOwner: 2, maxStoredTasks: 3 });
    const [a, b] = [await caller(url), await caller(url)];
    const holds = [await start(a, "hold"), await start(a, "hold"), await start(b, "hold")];
    expect(await failure(start(b, "hold"))).toMatchObject({ code: -32600, data: { limit: "tasks.maxStoredTasks", max: 3 } });
    for (const [c, id] of [
      [a, holds[0]],
      [a, holds[1]],
      [b, holds[2]],
    ] as const)
      await c.request("tasks/cancel", { taskId: id });
  });

  it("the defaults: a requested ttl is capped at one hour, and a default TTL over the cap stops the start", async () => {
    const url = await serve({});
    const a = await caller(url);
    const r = (await a.request("tools/call", { name: "quick", arguments: {}, task: { ttl: 86_400_000 } })) as any;
    expect(r.task.ttl).toBe(3_600_000);
    expect(() => createServer({ name: "s", version: "1", tasks: { defaultTtlMs: 7_200_000 } })).toThrow("createServer: tasks.defaultTtlMs (7200000) is over tasks.maxTtlMs (3600000)");
    expect(() => createServer({ name: "s", version: "1", tasks: { maxStoredBytes: 0 } })).toThrow("createServer: tasks.maxStoredBytes must be a positive integer");
  });
});
