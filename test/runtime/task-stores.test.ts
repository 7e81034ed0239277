/**
 * The TaskStore contract (runtime/src/state/task-store.ts), run against every store: in-memory, SQLite and the
 * shared ones against the real PostgreSQL and Redis of this machine. For a shared store, two store instances stand for two
 * processes: a change made through one is seen, and announced, through the other.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryTaskStore, PostgresTaskStore, createServer, RedisTaskStore, SqliteTaskStore, type TaskRecord, type TaskStore } from "../../runtime/dist/index.js";
import { POSTGRES_URL, REDIS_URL, hasPostgres, hasRedis } from "../services.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-task-stores-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterAll(() => deleteRedisKeys(REDIS_PREFIX));

/** Leave nothing of this run in the shared Redis (the counter and the tasks without TTL would stay). */
async function deleteRedisKeys(prefix: string): Promise<void> {
  if (!(await hasRedis())) return;
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
const REDIS_PREFIX = `mcp-test-${process.pid}-${Date.now()}:`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A lapsed lease's message (written by hand: runtime/src/state/task-store.ts LOST_TASK_MESSAGE). */
const LOST = "its lease lapsed before it finished: the server process running it stopped, or could not reach the task store";

let n = 0;
/** A fresh owner per case, so cases do not see each other's tasks in a shared database. */
const owner = () => `owner-${process.pid}-${Date.now()}-${++n}`;
function task(o: string, overrides: Partial<TaskRecord> = {}): TaskRecord {
  const now = Date.now();
  return { taskId: `t-${o}-${Math.random().toString(36).slice(2)}`, owner: o, revision: "2026-07-28", status: "working", createdAt: now, lastUpdatedAt: now, ttlMs: 60_000, ...overrides };
}

interface Subject {
  name: string;
  open(): TaskStore | Promise<TaskStore>;
  /** A second instance on the same data (another process), for shared stores. */
  peer?(): TaskStore | Promise<TaskStore>;
  available(): Promise<boolean>;
}

const SUBJECTS: Subject[] = [
  { name: "memory", open: () => new MemoryTaskStore(), available: async () => true },
  { name: "sqlite", open: () => new SqliteTaskStore(join(dir, `contract-${++n}.db`)), available: async () => true },
  { name: "postgres", open: () => new PostgresTaskStore(POSTGRES_URL), peer: () => new PostgresTaskStore(POSTGRES_URL), available: hasPostgres },
  // A prefix of its own per run, so a run never sees another's keys.
  { name: "redis", open: () => new RedisTaskStore(REDIS_URL, { prefix: REDIS_PREFIX }), peer: () => new RedisTaskStore(REDIS_URL, { prefix: REDIS_PREFIX }), available: hasRedis },
];

for (const subject of SUBJECTS) {
  describe(`TaskStore: ${subject.name}`, async () => {
    const available = await subject.available();
    const stores: TaskStore[] = [];
    const open = async (peer = false) => {
      const s = await (peer ? subject.peer!() : subject.open());
      stores.push(s);
      return s;
    };
    afterAll(async () => {
      await Promise.all(stores.map((s) => s.close()));
    });

    it.runIf(available)("create is durable, get returns a copy, unknown ids are undefined", async () => {
      const store = await open();
      const t = task(owner());
      await store.create(t);
      const got = await store.get(t.taskId);
      expect(got).toMatchObject({ taskId: t.taskId, status: "working", owner: t.owner });
      got!.status = "failed";
      expect((await store.get(t.taskId))!.status).toBe("working");
      expect(await store.get("no-such-task")).toBeUndefined();
      await expect(store.create(t)).rejects.toThrow();
    });

    it.runIf(available)("a terminal task never changes; updates bump lastUpdatedAt, a lease renewal does not", async () => {
      const store = await open();
      const t = task(owner(), { createdAt: Date.now() - 1000, lastUpdatedAt: Date.now() - 1000 });
      await store.create(t);
      const leased = await store.update(t.taskId, { lease: { holder: "p", until: Date.now() + 60_000 } });
      expect(leased!.lastUpdatedAt).toBe(t.lastUpdatedAt);
      const msg = await store.update(t.taskId, { statusMessage: "half way" });
      expect(msg!.lastUpdatedAt).toBeGreaterThan(t.lastUpdatedAt);
      await store.update(t.taskId, { status: "completed", result: { content: [] } });
      const after = await store.update(t.taskId, { status: "cancelled", statusMessage: "late" });
      expect(after).toMatchObject({ status: "completed", statusMessage: "half way", result: { content: [] } });
      expect(after!.lease).toBeUndefined();
    });

    it.runIf(available)("input requests: answered keys move to inputResponses, unknown keys are ignored, and none outstanding means working", async () => {
      const store = await open();
      const t = task(owner());
      await store.create(t);
      await store.update(t.taskId, { ask: { key: "a", request: { method: "elicitation/create", params: {} } } });
      const asked = await store.update(t.taskId, { ask: { key: "b", request: { method: "elicitation/create", params: {} } } });
      expect([asked!.status, Object.keys(asked!.inputRequests!), asked!.usedKeys]).toEqual(["input_required", ["a", "b"], ["a", "b"]]);
      const partial = await store.answer(t.taskId, { a: { action: "accept" }, zzz: { action: "accept" } });
      expect([partial!.status, Object.keys(partial!.inputRequests!), partial!.inputResponses]).toEqual(["input_required", ["b"], { a: { action: "accept" } }]);
      const again = await store.answer(t.taskId, { a: { action: "decline" } });
      expect(again!.inputResponses).toEqual({ a: { action: "accept" } });
      const all = await store.answer(t.taskId, { b: { action: "decline" } });
      expect([all!.status, all!.inputRequests]).toEqual(["working", undefined]);
      const taken = await store.update(t.taskId, { take: "a" });
      expect(taken!.inputResponses).toEqual({ b: { action: "decline" } });
    });

    it.runIf(available)("list pages the owner's tasks oldest first and refuses a cursor it did not make", async () => {
      const store = await open();
      const o = owner();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const t = task(o);
        ids.push(t.taskId);
        await store.create(t);
      }
      await store.create(task(owner()));
      const first = await store.list(o, undefined, 2);
      const second = await store.list(o, first.nextCursor, 2);
      const third = await store.list(o, second.nextCursor, 2);
      expect([...first.tasks, ...second.tasks, ...third.tasks].map((t) => t.taskId)).toEqual(ids);
      expect(third.nextCursor).toBeUndefined();
      await expect(store.list(o, "not-a-cursor", 2)).rejects.toThrow(RangeError);
    });

    it.runIf(available)("a task past its TTL is gone; a task whose lease lapsed reads failed with an internal error", async () => {
      const store = await open();
      const o = owner();
      const short = task(o, { ttlMs: 50 });
      const leased = task(o, { lease: { holder: "gone", until: Date.now() + 50 } });
      await store.create(short);
      await store.create(leased);
      await sleep(120);
      expect(await store.get(short.taskId)).toBeUndefined();
      const lost = await store.get(leased.taskId);
      expect(lost).toMatchObject({ status: "failed", error: { code: -32603 } });
      expect(lost!.statusMessage).toBe(LOST);
      await store.sweep(Date.now());
      expect((await store.list(o, undefined, 10)).tasks.map((t) => t.taskId)).toEqual([leased.taskId]);
    });

    // One outcome for a lapsed lease, whichever process reaches the store first (#20 item 11): the holder's late
    // renewal, its outcome or an answer fail the task as a reader's get would, and say so.
    it.runIf(available)("a task whose lease lapsed is failed by the first write, whoever makes it: a late renewal, outcome or answer does not revive it", async () => {
      const store = await open();
      const other = subject.peer ? await open(true) : store;
      await other.get("connects-first");
      const seen: string[] = [];
      const stop = other.watch((x) => seen.push(`${x.taskId}:${x.status}`));
      const until = () => ({ holder: "p", until: Date.now() + 50 });
      const [renewed, finished, answered] = [task(owner(), { lease: until() }), task(owner(), { lease: until() }), task(owner(), { lease: until() })];
      for (const t of [renewed, finished, answered]) await store.create(t);
      await store.update(answered.taskId, { ask: { key: "a", request: { method: "elicitation/create", params: {} } } });
      await sleep(150);
      const failed = { status: "failed", statusMessage: LOST, error: { code: -32603, message: LOST } };
      expect(await store.update(renewed.taskId, { lease: { holder: "p", until: Date.now() + 60_000 } })).toMatchObject(failed);
      const outcome = await store.update(finished.taskId, { status: "completed", result: { content: [] } });
      expect([outcome, outcome!.result]).toMatchObject([failed, undefined]);
      expect(await store.answer(answered.taskId, { a: { action: "accept" } })).toMatchObject(failed);
      for (const t of [renewed, finished, answered]) expect(await other.get(t.taskId)).toMatchObject(failed);
      for (let i = 0; i < 50 && !seen.includes(`${renewed.taskId}:failed`); i++) await sleep(20);
      stop();
      expect(seen).toContain(`${renewed.taskId}:failed`); // the renewal that failed it is announced
    });

    it.runIf(available)("delete removes a task at once, for every instance, and from its owner's list; an unknown id is no error", async () => {
      const store = await open();
      const other = subject.peer ? await open(true) : store;
      const o = owner();
      const [gone, kept] = [task(o), task(o)];
      await store.create(gone);
      await store.create(kept);
      await store.update(gone.taskId, { status: "completed", result: { content: [] } });
      await store.delete!(gone.taskId);
      expect(await other.get(gone.taskId)).toBeUndefined();
      expect((await other.list(o, undefined, 10)).tasks.map((t) => t.taskId)).toEqual([kept.taskId]);
      await store.delete!("no-such-task");
    });

    it.runIf(available)("watch reports every change, through every instance sharing the store", async () => {
      const store = await open();
      const other = subject.peer ? await open(true) : store;
      await other.get("connects-first"); // a shared store listens once connected
      const seen: string[] = [];
      const stop = other.watch((t) => seen.push(`${t.taskId}:${t.status}`));
      const t = task(owner());
      await store.create(t);
      await store.update(t.taskId, { status: "cancelled" });
      for (let i = 0; i < 50 && seen.length < 2; i++) await sleep(20);
      stop();
      expect(seen).toEqual([`${t.taskId}:working`, `${t.taskId}:cancelled`]);
    });

    it.runIf(available)("a lease renewal is not announced; changes are announced in the order they were made", async () => {
      const store = await open();
      const other = subject.peer ? await open(true) : store;
      await other.get("connects-first");
      const seen: string[] = [];
      const stop = other.watch((t) => seen.push(t.statusMessage ?? t.status));
      const t = task(owner());
      await store.create(t);
      await store.update(t.taskId, { lease: { holder: "p", until: Date.now() + 60_000 } });
      for (let i = 1; i <= 5; i++) await store.update(t.taskId, { statusMessage: `step ${i}` });
      await store.update(t.taskId, { status: "completed", result: { content: [] } });
      for (let i = 0; i < 100 && seen.length < 7; i++) await sleep(20);
      stop();
      expect(seen).toEqual(["working", "step 1", "step 2", "step 3", "step 4", "step 5", "step 5"]);
    });

    it.runIf(available)("concurrent changes through every instance are all kept (atomic read-modify-write)", async () => {
      const store = await open();
      const other = subject.peer ? await open(true) : store;
      const t = task(owner());
      await store.create(t);
      const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
      await Promise.all(keys.map((k, i) => (i % 2 ? store : other).update(t.taskId, { ask: { key: k, request: { method: "elicitation/create", params: {} } } })));
      const asked = await store.get(t.taskId);
      expect([...asked!.usedKeys!].sort()).toEqual([...keys].sort());
      await Promise.all(keys.map((k, i) => (i % 2 ? other : store).answer(t.taskId, { [k]: { action: "accept", content: { i } } })));
      const answered = await other.get(t.taskId);
      expect([answered!.status, answered!.inputRequests, Object.keys(answered!.inputResponses!).length]).toEqual(["working", undefined, 20]);
    });
  });
}

describe("RedisTaskStore: keys", async () => {
  const available = await hasRedis();
  it.runIf(available)("nothing is left in Redis after the tasks' TTLs but the creation counter", async () => {
    const prefix = `mcp-test-orphans-${process.pid}-${Date.now()}:`;
    const store = new RedisTaskStore(REDIS_URL, { prefix });
    const redis = new Redis(REDIS_URL);
    try {
      const o = owner();
      // TTLs of a second: the keys are counted before any expires, even on a loaded machine.
      await store.create(task(o, { ttlMs: 1000 }));
      await store.create(task(o, { ttlMs: 1000, lease: { holder: "gone", until: Date.now() + 500 } }));
      const done = task(o, { ttlMs: 1000 });
      await store.create(done);
      await store.update(done.taskId, { status: "completed", result: { content: [] } });
      const keys = (await redis.keys(`${prefix}*`)).sort();
      expect(keys.filter((k) => !k.startsWith(`${prefix}task:`))).toEqual([`${prefix}owner:${o}`, `${prefix}running`, `${prefix}seq`]);
      expect(keys.filter((k) => k.startsWith(`${prefix}task:`))).toHaveLength(3);
      await sleep(1300);
      await store.sweep(Date.now());
      expect(await redis.keys(`${prefix}*`)).toEqual([`${prefix}seq`]);
    } finally {
      await redis.del(`${prefix}seq`);
      redis.disconnect();
      await store.close();
    }
  });

  it.runIf(available)("the sweep alone fails a task whose lease lapsed (as stored, and announced), and forgets it as running", async () => {
    const prefix = `mcp-test-sweep-${process.pid}-${Date.now()}:`;
    const store = new RedisTaskStore(REDIS_URL, { prefix });
    const redis = new Redis(REDIS_URL);
    try {
      const t = task(owner(), { lease: { holder: "gone", until: Date.now() + 50 } });
      await store.create(t);
      const seen: string[] = [];
      store.watch((x) => seen.push(x.status));
      await sleep(100);
      await store.sweep(Date.now());
      const stored = JSON.parse((await redis.get(`${prefix}task:${t.taskId}`))!);
      expect(stored).toMatchObject({ status: "failed", error: { code: -32603 } });
      expect(await redis.zcard(`${prefix}running`)).toBe(0);
      for (let i = 0; i < 50 && !seen.includes("failed"); i++) await sleep(20);
      expect(seen.at(-1)).toBe("failed"); // (the creation's announcement may come first)
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      await store.close();
    }
  });

  it("with Redis unreachable an operation fails (it does not hang its request)", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createNetServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const store = new RedisTaskStore(`redis://127.0.0.1:${port}`, { prefix: "unreachable:" });
    try {
      await expect(store.get("any")).rejects.toThrow();
      await expect(store.create(task(owner()))).rejects.toThrow();
    } finally {
      await store.close();
    }
  });

  it.runIf(available)("a task without TTL keeps its owner index; a cursor past the creation counter is refused", async () => {
    const store = new RedisTaskStore(REDIS_URL, { prefix: REDIS_PREFIX });
    try {
      const o = owner();
      const forever = task(o, { ttlMs: null });
      await store.create(task(o, { ttlMs: 50 }));
      await store.create(forever);
      await sleep(120);
      const page = await store.list(o, undefined, 10);
      expect(page.tasks.map((t) => t.taskId)).toEqual([forever.taskId]);
      await expect(store.list(o, "99999999999", 10)).rejects.toThrow(RangeError);
    } finally {
      await store.close();
    }
  });
});

describe("createServer({ tasks: { store } })", () => {
  it("env MCP_REDIS_URL without MCP_TASK_STORE puts tasks on Redis (its prefix too); MCP_TASK_STORE=memory keeps them in the process", async () => {
    const saved = { url: process.env.MCP_REDIS_URL, store: process.env.MCP_TASK_STORE, prefix: process.env.MCP_REDIS_PREFIX };
    process.env.MCP_REDIS_URL = REDIS_URL;
    process.env.MCP_REDIS_PREFIX = "env-prefix:";
    delete process.env.MCP_TASK_STORE;
    try {
      const store = createServer({ name: "s", version: "1" }).taskStore();
      expect(store).toBeInstanceOf(RedisTaskStore);
      expect((store as RedisTaskStore).prefix).toBe("env-prefix:");
      await store.close();
      process.env.MCP_TASK_STORE = "memory";
      expect(createServer({ name: "s", version: "1" }).taskStore()).toBeInstanceOf(MemoryTaskStore);
    } finally {
      for (const [k, v] of [
        ["MCP_REDIS_URL", saved.url],
        ["MCP_TASK_STORE", saved.store],
        ["MCP_REDIS_PREFIX", saved.prefix],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it("picks the Redis store by name, with its URL and prefix; without a URL it is a TypeError naming MCP_REDIS_URL", async () => {
    const store = createServer({ name: "s", version: "1", tasks: { store: "redis", url: REDIS_URL, prefix: "mine:" } }).taskStore();
    expect(store).toBeInstanceOf(RedisTaskStore);
    expect([(store as RedisTaskStore).prefix, store.shared]).toEqual(["mine:", true]);
    await store.close();
    const saved = process.env.MCP_REDIS_URL;
    delete process.env.MCP_REDIS_URL;
    try {
      expect(() => createServer({ name: "s", version: "1", tasks: { store: "redis" } }).taskStore()).toThrow(/MCP_REDIS_URL/);
    } finally {
      if (saved !== undefined) process.env.MCP_REDIS_URL = saved;
    }
  });
});
