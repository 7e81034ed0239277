/**
 * Adversarial: tasks shared by two fixture processes through PostgreSQL or Redis when the store's connection of the
 * process running a task goes away for a moment (a TCP proxy in front of the real server, cut and restored): an answer
 * or a cancel given on the other process meanwhile must still reach the handler.
 */
import { afterAll, describe, expect, it } from "vitest";
import { McpClient, StreamableHttpClientTransport } from "../../runtime/dist/index.js";
import { createServer, connect, type Socket, type AddressInfo } from "node:net";
import { POSTGRES_URL, REDIS_URL, hasPostgres, hasRedis } from "../services.js";
import { initializeBody, jsonPost, raw, sessionHeaders, startFixture } from "./http-helpers.js";
import { EXT, TASKS_FIXTURE as FIXTURE, TaskProcesses, dropRedisKeys, sleep, terminal, untilTask as until } from "./tasks-shared-helpers.js";

/** A lapsed lease's message (runtime/src/state/task-store.ts LOST_TASK_MESSAGE, written by hand). */
const LOST = "its lease lapsed before it finished: the server process running it stopped, or could not reach the task store";
const REDIS_PREFIX = `adv2-${process.pid}-${Date.now()}:`;
afterAll(() => dropRedisKeys(REDIS_PREFIX));

/** A loopback TCP proxy to `url`'s host and port; `down()` cuts every connection and refuses new ones until `up()`. */
async function proxyTo(url: string) {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => sockets.delete(s));
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const u = new URL(url);
  u.port = String(port);
  return {
    url: u.toString(),
    down: () => {
      refusing = true;
      for (const s of sockets) s.destroy();
    },
    up: () => void (refusing = false),
    close: () => {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

const STORES = [
  { name: "PostgreSQL", url: POSTGRES_URL, env: (url: string) => ({ MCP_TASK_STORE: "postgres", MCP_DATABASE_URL: url }), available: hasPostgres },
  { name: "Redis", url: REDIS_URL, env: (url: string) => ({ MCP_TASK_STORE: "redis", MCP_REDIS_URL: url, MCP_REDIS_PREFIX: REDIS_PREFIX }), available: hasRedis },
];

describe.each(STORES)("tasks across processes when the runner's store connection drops ($name)", async ({ url, env, available: has }) => {
  const available = await has();
  const processes = new TaskProcesses();
  const proxies: Awaited<ReturnType<typeof proxyTo>>[] = [];
  afterAll(async () => {
    await processes.close();
    for (const p of proxies) p.close();
  });
  const start = (storeUrl: string, leaseMs: string) => processes.start(env(storeUrl), leaseMs);

  it.runIf(available)("an answer given on B while A's store connection is down still reaches A's handler: the task completes", { timeout: 30_000 }, async () => {
    const proxy = await proxyTo(url);
    proxies.push(proxy);
    const a = await start(proxy.url, "3000");
    const b = await start(url, "3000");
    const created = (await a.client.callTool("confirm", {})) as any;
    expect(created.resultType).toBe("task");
    await until(b.client, created.taskId, (t) => t.status === "input_required");
    proxy.down();
    await b.client.request("tasks/update", { taskId: created.taskId, inputResponses: { "elicitation-1": { action: "accept", content: { ok: true } } } });
    await sleep(300);
    proxy.up();
    // Well within the lease (3 s): A is alive and reconnected, so the answer must be taken and the task finish.
    const done = await until(b.client, created.taskId, terminal, 160);
    expect(done.status).toBe("completed");
    expect(JSON.parse(done.result.content[0].text).first).toEqual({ action: "accept", content: { ok: true } });
  });

  it.runIf(available)("after a store outage of a few seconds on A, a cancel on B still aborts A's handler promptly", { timeout: 40_000 }, async () => {
    const proxy = await proxyTo(url);
    proxies.push(proxy);
    // A long lease: the renewals (every 10 s) play no part; only the change announcements do.
    const a = await start(proxy.url, "30000");
    const b = await start(url, "30000");
    proxy.down();
    await sleep(2500);
    proxy.up();
    await sleep(3000); // time to reconnect
    const created = (await a.client.callTool("work", { ms: 30_000 })) as any;
    expect(created.resultType).toBe("task");
    await b.client.request("tasks/cancel", { taskId: created.taskId });
    for (let i = 0; i < 100 && !a.f.stderr().includes(`aborted ${created.taskId}`); i++) await sleep(30);
    expect(a.f.stderr()).toContain(`aborted ${created.taskId}`);
  });

  /** A (through a proxy it can be cut off by) runs a long task with a 2 s lease; B (direct) has seen it working. */
  async function longTaskOnA() {
    const proxy = await proxyTo(url);
    proxies.push(proxy);
    const a = await start(proxy.url, "2000");
    const b = await start(url, "2000");
    const created = (await a.client.callTool("work", { ms: 60_000 })) as any;
    expect(created.resultType).toBe("task");
    await until(b.client, created.taskId, (t) => t.status === "working");
    return { proxy, a, b, created };
  }

  it.runIf(available)("A cut off from the store past its lease: B reads the task failed, and once A is back its handler is stopped, the task staying failed", { timeout: 40_000 }, async () => {
    const { proxy, a, b, created } = await longTaskOnA();
    proxy.down();
    const lost = await until(b.client, created.taskId, terminal, 120);
    expect(lost).toMatchObject({ status: "failed", error: { code: -32603 } });
    proxy.up();
    for (let i = 0; i < 200 && !a.f.stderr().includes(`aborted ${created.taskId}`); i++) await sleep(50);
    expect(a.f.stderr()).toContain(`aborted ${created.taskId}: the task failed: its lease lapsed while the store could not be reached`);
    expect((await b.client.request("tasks/get", { taskId: created.taskId })) as any).toMatchObject({ status: "failed" });
  });

  // The other order (#20 item 11): A is back before anyone read the task. Its late renewal must not revive it.
  it.runIf(available)("A cut off from the store past its lease and back before any other process reads the task: it fails all the same", { timeout: 40_000 }, async () => {
    const { proxy, a, b, created } = await longTaskOnA();
    proxy.down();
    await sleep(3500);
    proxy.up();
    for (let i = 0; i < 200 && !a.f.stderr().includes(`aborted ${created.taskId}`); i++) await sleep(50);
    expect(a.f.stderr()).toContain(`aborted ${created.taskId}: the task failed: its lease lapsed while the store could not be reached`);
    expect((await b.client.request("tasks/get", { taskId: created.taskId })) as any).toMatchObject({ status: "failed", error: { code: -32603 }, statusMessage: LOST });
  });
});

describe.each(STORES)("malformed task ids and cursors ($name)", async ({ url, env, available: has }) => {
  const available = await has();
  it.runIf(available)("a taskId or cursor with a NUL character is an unknown task / invalid cursor (-32602), not the store's failure", { timeout: 30_000 }, async () => {
    const f = await startFixture({ FIXTURE_TRANSPORT: "http", ...env(url) }, [], FIXTURE);
    const core = await new McpClient({ transport: new StreamableHttpClientTransport(f.url), revision: "2025-11-25" as never, capabilities: {} }).connect();
    const modern = await new McpClient({
      transport: new StreamableHttpClientTransport(f.url),
      revision: "2026-07-28" as never,
      capabilities: { extensions: { [EXT]: {} } },
    }).connect();
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => ({ code: 0, message: "answered" }),
        (e: { code: number; message: string }) => ({ code: e.code, message: e.message }),
      );
    try {
      const id = "a\u0000b";
      for (const [client, method, params] of [
        [core, "tasks/get", { taskId: id }],
        [core, "tasks/result", { taskId: id }],
        [core, "tasks/cancel", { taskId: id }],
        [modern, "tasks/get", { taskId: id }],
        [modern, "tasks/update", { taskId: id, inputResponses: {} }],
        [modern, "tasks/cancel", { taskId: id }],
      ] as const) {
        expect(await failure(client.request(method, params)), method).toEqual({ code: -32602, message: `Invalid params: unknown task ${JSON.stringify(id)}` });
      }
      expect(await failure(core.request("tasks/list", { cursor: id }))).toEqual({ code: -32602, message: "Invalid params: invalid cursor" });
      expect(f.stderr()).not.toContain("task store:");
    } finally {
      await core.close().catch(() => {});
      await modern.close().catch(() => {});
      await f.stop();
    }
  });
});

describe("tasks/result across processes when the waiter's store connection drops (Redis)", async () => {
  const available = await hasRedis();
  it.runIf(available)("a task run on B that completes while A's Redis connection is down: tasks/result waiting on A still answers", { timeout: 40_000 }, async () => {
    const proxy = await proxyTo(REDIS_URL);
    const legacy = "2025-11-25";
    const env = (u: string) => ({ FIXTURE_TRANSPORT: "http", MCP_TASK_STORE: "redis", MCP_REDIS_URL: u, MCP_REDIS_PREFIX: REDIS_PREFIX, FIXTURE_LEASE_MS: "3000" });
    const fa = await startFixture(env(proxy.url), [], FIXTURE);
    const fb = await startFixture(env(REDIS_URL), [], FIXTURE);
    try {
      // One 2025-11-25 session (kept in Redis), opened on A and used on both.
      const init = await raw(fa.url, { headers: jsonPost(), body: initializeBody(legacy, 1, "adv2") });
      expect(init.status).toBe(200);
      const h = jsonPost(sessionHeaders(String(init.headers["mcp-session-id"]), legacy));
      expect((await raw(fb.url, { headers: h, body: { jsonrpc: "2.0", method: "notifications/initialized" } })).status).toBe(202);
      const created = await raw(fb.url, { headers: h, body: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "work", arguments: { ms: 1000 }, task: { ttl: 60_000 } } } });
      const taskId = created.messages[0].result.task.taskId as string;
      const started = Date.now();
      const waiting = raw(fa.url, { headers: h, body: { jsonrpc: "2.0", id: 3, method: "tasks/result", params: { taskId } }, timeoutMs: 12_000 });
      await sleep(300);
      proxy.down(); // the task completes on B meanwhile: A's subscription misses the announcement
      await sleep(1500);
      proxy.up();
      const r = await waiting;
      expect(r.messages.find((m) => m.id === 3)?.result?.content?.[0]?.text).toBe("done (task yes)");
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await fa.stop();
      await fb.stop();
      proxy.close();
    }
  });
});
