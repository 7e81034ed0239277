/** What the tests of tasks shared by several processes have in common: tasks-fixture processes over HTTP, 2026-07-28 clients. */
import { Redis } from "ioredis";
import { join } from "node:path";
import { McpClient, StreamableHttpClientTransport } from "../../runtime/dist/index.js";
import { ROOT } from "../helpers.js";
import { REDIS_URL, hasRedis } from "../services.js";
import { type Fixture, startFixture } from "./http-helpers.js";

export const TASKS_FIXTURE = join(ROOT, "test", "fixtures", "tasks-fixture.mjs");
export const EXT = "io.modelcontextprotocol/tasks";
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const terminal = (t: Record<string, any>) => ["completed", "failed", "cancelled"].includes(t.status);

/** Started fixture processes, each with a 2026-07-28 client declaring the tasks extension; `close` ends them all. */
export class TaskProcesses {
  private readonly fixtures: Fixture[] = [];
  private readonly clients: McpClient[] = [];

  /** A process with `env` and the task lease `leaseMs`, and its client. */
  async start(env: Record<string, string>, leaseMs = "3000"): Promise<{ f: Fixture; client: McpClient }> {
    const f = await startFixture({ FIXTURE_TRANSPORT: "http", ...env, FIXTURE_LEASE_MS: leaseMs }, [], TASKS_FIXTURE);
    this.fixtures.push(f);
    const client = await new McpClient({
      transport: new StreamableHttpClientTransport(f.url),
      revision: "2026-07-28" as never,
      capabilities: { extensions: { [EXT]: {} }, elicitation: {} },
    }).connect();
    this.clients.push(client);
    return { f, client };
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.close().catch(() => {})));
    await Promise.all(this.fixtures.map((f) => f.stop()));
  }
}

/** Poll tasks/get (every 50 ms, `tries` times) until `done` holds; throws with the last state. */
export async function untilTask(client: McpClient, taskId: string, done: (t: Record<string, any>) => boolean, tries = 200): Promise<Record<string, any>> {
  let t: Record<string, any> = {};
  for (let i = 0; i < tries; i++) {
    t = (await client.request("tasks/get", { taskId })) as Record<string, any>;
    if (done(t)) return t;
    await sleep(50);
  }
  throw new Error(`task ${taskId} never reached the state; last: ${JSON.stringify(t)}`);
}

/** Delete the Redis keys of `prefix` (a test run's own). */
export async function dropRedisKeys(prefix: string): Promise<void> {
  if (!(await hasRedis())) return;
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
}
