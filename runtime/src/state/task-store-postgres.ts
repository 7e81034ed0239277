/**
 * A task store in PostgreSQL (the `pg` client), shared by every process of a server: any process answers tasks/get,
 * tasks/update and tasks/cancel for a task another one runs. Each write is one committed transaction (the row is
 * durable before `create` resolves and the CreateTaskResult is written), and announces itself with NOTIFY on the
 * `mcp_tasks` channel; every store LISTENs there, so a cancel or an answer given on one process reaches the handler
 * waiting on another. Rows carry the lease of the process running the task: once it lapses the task reads failed.
 *
 * Install it beside the runtime: `npm install pg`. The table `mcp_tasks` is created if missing.
 */
import { createRequire } from "node:module";
import { type TaskChange, type TaskPage, type TaskRecord, type TaskStore, applyAnswers, applyChange, expired, isLeaseOnly, isTerminal, lapsed, lostTask } from "./task-store.js";

const CHANNEL = "mcp_tasks";

interface QueryResult {
  rows: Record<string, unknown>[];
}
interface PgClient {
  query(text: string, values?: unknown[]): Promise<QueryResult>;
  release?(): void;
  on(event: string, listener: (arg: { payload?: string } & Error) => void): void;
  connect(): Promise<void>;
  end(): Promise<void>;
}
interface PgPool {
  query(text: string, values?: unknown[]): Promise<QueryResult>;
  connect(): Promise<PgClient>;
  on(event: string, listener: (err: Error) => void): void;
  end(): Promise<void>;
}
interface PgModule {
  Pool: new (options: { connectionString: string; max?: number }) => PgPool;
  Client: new (options: { connectionString: string }) => PgClient;
}

function loadPg(): PgModule {
  try {
    return createRequire(import.meta.url)("pg") as PgModule;
  } catch (err) {
    throw new Error(`the postgres task store needs the pg package: npm install pg (${(err as Error).message})`, { cause: err });
  }
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS mcp_tasks (
  task_id text PRIMARY KEY,
  owner text NOT NULL,
  seq bigserial,
  terminal boolean NOT NULL,
  expires_at bigint,
  lease_until bigint,
  body jsonb NOT NULL
);
CREATE INDEX IF NOT EXISTS mcp_tasks_owner_seq ON mcp_tasks (owner, seq);
CREATE INDEX IF NOT EXISTS mcp_tasks_expires ON mcp_tasks (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS mcp_tasks_running ON mcp_tasks (lease_until) WHERE NOT terminal;`;

/** What a NOTIFY carries: the task's JSON when it fits the payload limit (8000 bytes), else its id. */
function notice(t: TaskRecord): string {
  const body = JSON.stringify(t);
  return Buffer.byteLength(body) < 7900 ? body : t.taskId;
}
const expiresAt = (t: TaskRecord): number | null => (t.ttlMs === null ? null : t.createdAt + t.ttlMs);
/** PostgreSQL text cannot hold NUL: no stored task has such an id (ours are base64url), so it is unknown, not a store failure. */
const storable = (id: string): boolean => !id.includes("\0");
const columns = (t: TaskRecord) => [isTerminal(t.status), expiresAt(t), isTerminal(t.status) ? null : (t.lease?.until ?? null), JSON.stringify(t)];

export class PostgresTaskStore implements TaskStore {
  readonly shared = true;
  private readonly pool: PgPool;
  private readonly listeners = new Set<(t: TaskRecord) => void>();
  private readonly ready: Promise<void>;
  private listener?: PgClient;
  private closed = false;

  /** @param url a PostgreSQL connection string; throws when `pg` is not installed. Connects on first use. */
  constructor(
    readonly url: string,
    options: { max?: number } = {},
  ) {
    const pg = loadPg();
    this.pool = new pg.Pool({ connectionString: url, max: options.max ?? 10 });
    // An idle client's error (the server restarting) must not crash the process; the pool replaces the client.
    this.pool.on("error", (err) => process.stderr.write(`mcp runtime: postgres task store: ${err.message}\n`));
    this.ready = this.init(pg);
    this.ready.catch(() => {});
  }

  private async init(pg: PgModule): Promise<void> {
    // Concurrent first starts of several processes: serialize the DDL.
    const client = await this.pool.connect();
    try {
      await client.query("SELECT pg_advisory_lock(hashtext('mcp_tasks_schema'))");
      await client.query(SCHEMA);
      await client.query("SELECT pg_advisory_unlock(hashtext('mcp_tasks_schema'))");
    } finally {
      client.release?.();
    }
    await this.listen(pg);
  }

  private async listen(pg: PgModule): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("notification", (msg) => {
      const payload = msg.payload;
      if (!payload) return;
      // The task itself when it fits in a notification (8000 bytes), else its id to read it by.
      if (payload.startsWith("{")) this.emit(JSON.parse(payload) as TaskRecord);
      else
        void this.get(payload).then(
          (t) => t && this.emit(t),
          () => {},
        );
    });
    client.on("error", (err) => {
      process.stderr.write(`mcp runtime: postgres task store listener: ${err.message}; reconnecting\n`);
      if (this.closed) return;
      setTimeout(() => void this.listen(pg).catch(() => {}), 1000).unref?.();
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.listener = client;
  }

  async create(task: TaskRecord): Promise<void> {
    await this.ready;
    await this.pool.query(
      `WITH ins AS (INSERT INTO mcp_tasks (task_id, owner, terminal, expires_at, lease_until, body) VALUES ($1, $2, $3, $4, $5, $6) RETURNING task_id)
       SELECT pg_notify('${CHANNEL}', $7) FROM ins`,
      [task.taskId, task.owner, ...columns(task), notice(task)],
    );
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    if (!storable(taskId)) return undefined;
    await this.ready;
    const { rows } = await this.pool.query("SELECT body FROM mcp_tasks WHERE task_id = $1", [taskId]);
    if (!rows.length) return undefined;
    const t = rows[0].body as TaskRecord;
    const now = Date.now();
    if (expired(t, now)) {
      await this.pool.query("DELETE FROM mcp_tasks WHERE task_id = $1", [taskId]);
      return undefined;
    }
    if (lapsed(t, now)) return (await this.modify(taskId, (r, at) => lapsed(r, at) && applyChange(r, lostTask(r), at))) ?? undefined;
    return t;
  }

  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    return this.modify(taskId, (t, now) => applyChange(t, change, now), !isLeaseOnly(change));
  }

  answer(taskId: string, responses: Record<string, unknown>): Promise<TaskRecord | undefined> {
    return this.modify(taskId, (t, now) => applyAnswers(t, responses, now));
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPage> {
    await this.ready;
    const now = Date.now();
    let rows: Record<string, unknown>[];
    if (cursor === undefined) {
      ({ rows } = await this.pool.query("SELECT body FROM mcp_tasks WHERE owner = $1 AND (expires_at IS NULL OR expires_at > $2) ORDER BY seq LIMIT $3", [owner, now, limit + 1]));
    } else {
      if (!storable(cursor)) throw new RangeError("unknown cursor");
      const at = await this.pool.query("SELECT seq FROM mcp_tasks WHERE task_id = $1 AND owner = $2", [cursor, owner]);
      if (!at.rows.length) throw new RangeError("unknown cursor");
      ({ rows } = await this.pool.query("SELECT body FROM mcp_tasks WHERE owner = $1 AND seq > $2 AND (expires_at IS NULL OR expires_at > $3) ORDER BY seq LIMIT $4", [
        owner,
        at.rows[0].seq,
        now,
        limit + 1,
      ]));
    }
    const tasks = rows.map((r) => r.body as TaskRecord);
    const shown = tasks.slice(0, limit).map((t) => (lapsed(t, now) ? { ...t, ...lostTaskView(t, now) } : t));
    return { tasks: shown, ...(tasks.length > limit ? { nextCursor: shown[shown.length - 1].taskId } : {}) };
  }

  async sweep(now: number): Promise<void> {
    await this.ready;
    await this.pool.query("DELETE FROM mcp_tasks WHERE expires_at IS NOT NULL AND expires_at <= $1", [now]);
    const { rows } = await this.pool.query("SELECT task_id FROM mcp_tasks WHERE NOT terminal AND lease_until < $1", [now]);
    for (const r of rows) await this.modify(r.task_id as string, (t, at) => lapsed(t, at) && applyChange(t, lostTask(t), at));
  }

  async delete(taskId: string): Promise<void> {
    if (!storable(taskId)) return;
    await this.ready;
    await this.pool.query("DELETE FROM mcp_tasks WHERE task_id = $1", [taskId]);
  }

  watch(listener: (task: TaskRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.ready.catch(() => {});
    await this.listener?.end().catch(() => {});
    await this.pool.end();
  }

  /** Read the row for update, change it and write it back in one transaction; NOTIFY on commit when it changed. */
  private async modify(taskId: string, change: (t: TaskRecord, now: number) => boolean, announce = true): Promise<TaskRecord | undefined> {
    if (!storable(taskId)) return undefined;
    await this.ready;
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const { rows } = await client.query("SELECT body FROM mcp_tasks WHERE task_id = $1 FOR UPDATE", [taskId]);
      if (!rows.length) {
        await client.query("COMMIT");
        return undefined;
      }
      const t = rows[0].body as TaskRecord;
      const now = Date.now();
      if (expired(t, now)) {
        await client.query("DELETE FROM mcp_tasks WHERE task_id = $1", [taskId]);
        await client.query("COMMIT");
        return undefined;
      }
      if (change(t, now)) {
        await client.query("UPDATE mcp_tasks SET terminal = $1, expires_at = $2, lease_until = $3, body = $4 WHERE task_id = $5", [...columns(t), taskId]);
        // A lease renewal is silent, unless it found the lease lapsed and failed the task.
        if (announce || isTerminal(t.status)) await client.query(`SELECT pg_notify('${CHANNEL}', $1)`, [notice(t)]);
      }
      await client.query("COMMIT");
      return t;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      client.release?.();
    }
  }

  private emit(t: TaskRecord): void {
    for (const l of this.listeners) l(t);
  }
}

/** How a lapsed task reads in a list (the row itself is failed by the next sweep or read). */
function lostTaskView(t: TaskRecord, now: number): Partial<TaskRecord> {
  const copy = structuredClone(t);
  applyChange(copy, lostTask(copy), now);
  return copy;
}
