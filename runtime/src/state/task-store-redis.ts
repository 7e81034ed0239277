/**
 * A task store in Redis (the `ioredis` client), shared by every process of a server: any process answers tasks/get,
 * tasks/update and tasks/cancel for a task another one runs.
 *
 * Keys (under `prefix`, default `mcp:`): `task:<id>` the task's JSON, expiring with the task's TTL; `owner:<owner>` a
 * sorted set of the owner's task ids by creation order (for tasks/list), expiring with its longest-lived task;
 * `running` a sorted set of non-terminal tasks by lease end (for the sweep); `seq` the creation counter. Every write
 * is one Lua script, atomic in Redis, that also PUBLISHes the task on `<prefix>tasks`; every store subscribes there,
 * so each process's `watch` sees every change, in the order Redis applied them (lease renewals are not announced).
 * A change is read, applied here by the same applyChange/applyAnswers as every store, and written back only if the
 * task is still what was read (compare-and-set in the script; retried otherwise).
 *
 * Durability: `create` resolves once Redis acknowledged the write, so every process then finds the task. What
 * survives a Redis restart is Redis's own persistence configuration (`appendonly yes`, and `appendfsync always` for
 * an fsync before the acknowledgement); without persistence a Redis restart loses every task. Pub/sub is not
 * queued: a process disconnected from Redis misses the announcements of that moment (its handlers still read the
 * store when they next poll it).
 *
 * Install it beside the runtime: `npm install ioredis`.
 */
import { type TaskChange, type TaskPage, type TaskRecord, type TaskStore, applyAnswers, applyChange, expired, isLeaseOnly, isTerminal, lapsed, lostTask } from "./task-store.js";
import { type RedisClient, Script, connectRedis, loadRedis, subscribeRetrying } from "./redis.js";

/** Extend the owner index's expiry to cover a task expiring in `px` ms (none: the index never expires). */
const EXTEND = `
local function extend(key, px, existed)
  if not px then redis.call('PERSIST', key) return end
  local cur = redis.call('PTTL', key)
  if existed == 0 or (cur >= 0 and cur < px) then redis.call('PEXPIRE', key, px) end
end
`;

/** KEYS: task, owner index, seq, running. ARGV: body, px ('' = never expires), channel, lease end ('' = none), task id. */
const CREATE = new Script(`${EXTEND}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local px = tonumber(ARGV[2])
if px then redis.call('SET', KEYS[1], ARGV[1], 'PX', px) else redis.call('SET', KEYS[1], ARGV[1]) end
local existed = redis.call('EXISTS', KEYS[2])
redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[5])
extend(KEYS[2], px, existed)
if ARGV[4] ~= '' then redis.call('ZADD', KEYS[4], ARGV[4], ARGV[5]) end
redis.call('PUBLISH', ARGV[3], ARGV[1])
return 1`);

/**
 * Compare-and-set. KEYS: task, owner index, running. ARGV: the body read, the new body, expiry ('keep' | '' = never |
 * px), channel ('' = silent), lease end ('' = not running), task id. 0 when the task is no longer what was read.
 */
const WRITE = new Script(`${EXTEND}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[3] == 'keep' then redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
else
  local px = tonumber(ARGV[3])
  if px then redis.call('SET', KEYS[1], ARGV[2], 'PX', px) else redis.call('SET', KEYS[1], ARGV[2]) end
  extend(KEYS[2], px, 1)
end
if ARGV[5] ~= '' then redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6]) else redis.call('ZREM', KEYS[3], ARGV[6]) end
if ARGV[4] ~= '' then redis.call('PUBLISH', ARGV[4], ARGV[2]) end
return 1`);

/** KEYS: task, owner index, running. ARGV: task id. */
const REMOVE = new Script(`redis.call('DEL', KEYS[1]) redis.call('ZREM', KEYS[2], ARGV[1]) redis.call('ZREM', KEYS[3], ARGV[1]) return 1`);

/** How often a compare-and-set that lost a race is retried before giving up. */
const MAX_ATTEMPTS = 100;

/** The key expiry of a task at `now`: ms left, at least 1 ('' when it never expires). Relative, so Redis's clock does not matter. */
const pxOf = (t: TaskRecord, now: number): string => (t.ttlMs === null ? "" : String(Math.max(1, t.createdAt + t.ttlMs - now)));
const leaseEnd = (t: TaskRecord): string => (!isTerminal(t.status) && t.lease ? String(t.lease.until) : "");

export interface RedisTaskStoreOptions {
  /** Prefix of every key and channel, so several servers can share one Redis. Default `mcp:`. */
  prefix?: string;
}

export class RedisTaskStore implements TaskStore {
  readonly shared = true;
  readonly prefix: string;
  private readonly redis: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly channel: string;
  private readonly listeners = new Set<(t: TaskRecord) => void>();
  /** The first subscription attempt (commands wait for it, so that a change made right after is seen by `watch`). */
  private readonly ready: Promise<void>;
  private closed = false;

  /** @param url a Redis URL (`redis://host:port/db`); throws when `ioredis` is not installed. Connects at once, reconnects by itself. */
  constructor(
    readonly url: string,
    options: RedisTaskStoreOptions = {},
  ) {
    const Redis = loadRedis("task store");
    this.prefix = options.prefix ?? "mcp:";
    this.channel = `${this.prefix}tasks`;
    this.redis = connectRedis(Redis, url, "redis task store");
    this.subscriber = connectRedis(Redis, url, "redis task store subscriber");
    this.subscriber.on("message", (channel, message) => {
      if (channel !== this.channel) return;
      let t: TaskRecord;
      try {
        t = JSON.parse(message) as TaskRecord;
      } catch {
        return; // not ours: someone else published on the channel
      }
      for (const l of this.listeners) l(t);
    });
    this.ready = subscribeRetrying(
      () => this.subscriber.subscribe(this.channel),
      "redis task store",
      () => this.closed,
    );
  }

  private key = (taskId: string) => `${this.prefix}task:${taskId}`;
  private index = (owner: string) => `${this.prefix}owner:${owner}`;
  private get running() {
    return `${this.prefix}running`;
  }

  async create(task: TaskRecord): Promise<void> {
    await this.ready;
    const now = Date.now();
    const created = await CREATE.run(
      this.redis,
      [this.key(task.taskId), this.index(task.owner), `${this.prefix}seq`, this.running],
      [JSON.stringify(task), pxOf(task, now), this.channel, leaseEnd(task), task.taskId],
    );
    if (created !== 1) throw new Error(`task ${task.taskId} exists`);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    await this.ready;
    const live = await this.read(taskId);
    if (!live) return undefined;
    const { t, now } = live;
    if (lapsed(t, now)) return this.modify(taskId, (r, at) => lapsed(r, at) && applyChange(r, lostTask(r), at));
    return t;
  }

  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    return this.modify(taskId, (t, now) => applyChange(t, change, now), !isLeaseOnly(change));
  }

  answer(taskId: string, responses: Record<string, unknown>): Promise<TaskRecord | undefined> {
    return this.modify(taskId, (t, now) => applyAnswers(t, responses, now));
  }

  /**
   * The owner's tasks by creation order. The cursor is the creation number of the page's last task (so a page
   * boundary survives that task's expiry); a cursor that is not one this store could have made is a RangeError.
   * Index members whose task expired are removed on the way.
   */
  async list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPage> {
    await this.ready;
    const index = this.index(owner);
    let after = "-inf";
    if (cursor !== undefined) {
      if (!/^[1-9][0-9]{0,15}$/.test(cursor) || Number(cursor) > Number((await this.redis.get(`${this.prefix}seq`)) ?? 0)) throw new RangeError("unknown cursor");
      after = `(${cursor}`;
    }
    const now = Date.now();
    const found: { t: TaskRecord; seq: string }[] = [];
    while (found.length <= limit) {
      const want = limit + 1 - found.length;
      const batch = await this.redis.zrangebyscore(index, after, "+inf", "WITHSCORES", "LIMIT", 0, want);
      if (!batch.length) break;
      const ids = batch.filter((_, i) => i % 2 === 0);
      const bodies = await this.redis.mget(...ids.map(this.key));
      const stale: string[] = [];
      ids.forEach((id, i) => {
        const body = bodies[i];
        const t = body === null ? undefined : (JSON.parse(body) as TaskRecord);
        if (!t || expired(t, now)) stale.push(id);
        else found.push({ t, seq: batch[2 * i + 1] });
      });
      if (stale.length) await this.redis.zrem(index, ...stale);
      after = `(${batch[batch.length - 1]}`;
      if (ids.length < want) break;
    }
    const shown = found.slice(0, limit);
    const tasks = shown.map(({ t }) => (lapsed(t, now) ? lostTaskView(t, now) : t));
    return { tasks, ...(found.length > limit ? { nextCursor: shown[shown.length - 1].seq } : {}) };
  }

  /** Expiry is Redis's (key TTLs); the sweep fails the running tasks whose lease lapsed and forgets the gone ones. */
  async sweep(now: number): Promise<void> {
    await this.ready;
    const ids = await this.redis.zrangebyscore(this.running, "-inf", `(${now}`);
    for (const id of ids) {
      const t = await this.modify(id, (r, at) => lapsed(r, at) && applyChange(r, lostTask(r), at));
      if (!t) await this.redis.zrem(this.running, id);
    }
  }

  /** The task's key and its index entries (its owner is read from the task). */
  async delete(taskId: string): Promise<void> {
    await this.ready;
    const raw = await this.redis.get(this.key(taskId));
    if (raw !== null) await this.remove(JSON.parse(raw) as TaskRecord);
  }

  watch(listener: (task: TaskRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await Promise.all(
      [this.redis, this.subscriber].map((c) =>
        c.quit().catch(() => {
          c.disconnect();
        }),
      ),
    );
  }

  private async remove(t: TaskRecord): Promise<void> {
    await REMOVE.run(this.redis, [this.key(t.taskId), this.index(t.owner), this.running], [t.taskId]);
  }

  /** The task as stored (its JSON too, for a compare-and-set) and the time read, or undefined: unknown, or expired (then removed). */
  private async read(taskId: string): Promise<{ raw: string; t: TaskRecord; now: number } | undefined> {
    const raw = await this.redis.get(this.key(taskId));
    if (raw === null) return undefined;
    const t = JSON.parse(raw) as TaskRecord;
    const now = Date.now();
    if (!expired(t, now)) return { raw, t, now };
    await this.remove(t);
    return undefined;
  }

  /** Read the task, change it, and write it back if nobody changed it meanwhile (else again); announce it when it changed. */
  private async modify(taskId: string, change: (t: TaskRecord, now: number) => boolean, announce = true): Promise<TaskRecord | undefined> {
    await this.ready;
    const key = this.key(taskId);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const live = await this.read(taskId);
      if (!live) return undefined;
      const { raw, t, now } = live;
      const ttlBefore = t.ttlMs;
      if (!change(t, now)) return t;
      const written = await WRITE.run(
        this.redis,
        [key, this.index(t.owner), this.running],
        // A lease renewal is silent, unless it found the lease lapsed and failed the task.
        [raw, JSON.stringify(t), t.ttlMs === ttlBefore ? "keep" : pxOf(t, now), announce || isTerminal(t.status) ? this.channel : "", leaseEnd(t), taskId],
      );
      if (written === 1) return t;
    }
    throw new Error(`redis task store: task ${taskId} kept changing under ${MAX_ATTEMPTS} attempts to update it`);
  }
}

/** How a lapsed task reads in a list (the stored task is failed by the next sweep or read). */
function lostTaskView(t: TaskRecord, now: number): TaskRecord {
  const copy = structuredClone(t);
  applyChange(copy, lostTask(copy), now);
  return copy;
}
