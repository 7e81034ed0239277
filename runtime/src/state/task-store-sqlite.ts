/**
 * A task store in one SQLite file (better-sqlite3, version 12: 13 needs Node 22), for one server process: tasks
 * survive a restart. Every write is a committed transaction in WAL mode with `synchronous = FULL`, so a task is on
 * disk before `create` resolves and its CreateTaskResult is written. A task that was running when the previous
 * process died reads `failed` (its handler is gone), never `working` forever.
 *
 * Install it beside the runtime: `npm install better-sqlite3@12`. For several processes, use a shared store.
 */
import { createRequire } from "node:module";
import { type TaskChange, type TaskPage, type TaskRecord, type TaskStore, applyAnswers, applyChange, expired, isLeaseOnly, isTerminal, lapsed, lostTask } from "./task-store.js";

/** The message of a task that was running when the process stopped. */
export const RESTARTED_MESSAGE = "the server restarted while this task was running";

interface Statement {
  run(...args: unknown[]): unknown;
  get(...args: unknown[]): { body: string } | undefined;
  all(...args: unknown[]): { body: string }[];
}
interface Database {
  pragma(source: string): unknown;
  exec(source: string): unknown;
  prepare(source: string): Statement;
  transaction<F extends (...args: never[]) => unknown>(fn: F): F;
  close(): void;
}

function openDatabase(path: string): Database {
  let Driver: new (path: string) => Database;
  try {
    Driver = createRequire(import.meta.url)("better-sqlite3") as typeof Driver;
  } catch (err) {
    throw new Error(`the sqlite task store needs the better-sqlite3 package, version 12 (13 needs Node 22): npm install better-sqlite3@12 (${(err as Error).message})`, { cause: err });
  }
  return new Driver(path);
}

export class SqliteTaskStore implements TaskStore {
  private readonly db: Database;
  private readonly listeners = new Set<(t: TaskRecord) => void>();
  private readonly insert: Statement;
  private readonly select: Statement;
  private readonly write: Statement;
  private readonly remove: Statement;
  private readonly page: Statement;
  private readonly firstPage: Statement;
  private readonly rowOf: Statement;
  private readonly running: Statement;
  private readonly expiredRows: Statement;

  /** @param path the database file (created if missing); throws when better-sqlite3 is not installed or the file cannot be opened. */
  constructor(readonly path: string) {
    this.db = openDatabase(path);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = FULL");
    this.db.pragma("busy_timeout = 5000");
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS mcp_tasks (
         task_id TEXT PRIMARY KEY,
         owner TEXT NOT NULL,
         terminal INTEGER NOT NULL,
         expires_at INTEGER,
         body TEXT NOT NULL
       );
       CREATE INDEX IF NOT EXISTS mcp_tasks_owner ON mcp_tasks (owner);
       CREATE INDEX IF NOT EXISTS mcp_tasks_expires ON mcp_tasks (expires_at);`,
    );
    this.insert = this.db.prepare("INSERT INTO mcp_tasks (task_id, owner, terminal, expires_at, body) VALUES (?, ?, ?, ?, ?)");
    this.select = this.db.prepare("SELECT body FROM mcp_tasks WHERE task_id = ?");
    this.write = this.db.prepare("UPDATE mcp_tasks SET terminal = ?, expires_at = ?, body = ? WHERE task_id = ?");
    this.remove = this.db.prepare("DELETE FROM mcp_tasks WHERE task_id = ?");
    this.firstPage = this.db.prepare("SELECT body FROM mcp_tasks WHERE owner = ? ORDER BY rowid LIMIT ?");
    this.page = this.db.prepare("SELECT body FROM mcp_tasks WHERE owner = ? AND rowid > ? ORDER BY rowid LIMIT ?");
    this.rowOf = this.db.prepare("SELECT rowid AS body FROM mcp_tasks WHERE task_id = ? AND owner = ?");
    this.running = this.db.prepare("SELECT body FROM mcp_tasks WHERE terminal = 0");
    this.expiredRows = this.db.prepare("DELETE FROM mcp_tasks WHERE expires_at IS NOT NULL AND expires_at <= ?");
    // Whatever was running belonged to a process that is gone (this store is one process's).
    const now = Date.now();
    this.db.transaction(() => {
      for (const row of this.running.all()) {
        const t = JSON.parse(row.body) as TaskRecord;
        if (applyChange(t, lostTask(t, RESTARTED_MESSAGE), now)) this.save(t);
      }
    })();
  }

  async create(task: TaskRecord): Promise<void> {
    this.insert.run(task.taskId, task.owner, isTerminal(task.status) ? 1 : 0, expiresAt(task), JSON.stringify(task));
    this.emit(task);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.live(taskId);
  }

  async update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    return this.modify(taskId, (t, now) => applyChange(t, change, now), !isLeaseOnly(change));
  }

  async answer(taskId: string, responses: Record<string, unknown>): Promise<TaskRecord | undefined> {
    return this.modify(taskId, (t, now) => applyAnswers(t, responses, now));
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPage> {
    let rows: { body: string }[];
    if (cursor === undefined) rows = this.firstPage.all(owner, limit + 1);
    else {
      const at = this.rowOf.get(cursor, owner) as unknown as { body: number } | undefined;
      if (!at) throw new RangeError("unknown cursor");
      rows = this.page.all(owner, at.body, limit + 1);
    }
    const now = Date.now();
    const tasks = rows.map((r) => JSON.parse(r.body) as TaskRecord).filter((t) => !expired(t, now));
    const more = tasks.length > limit;
    const shown = tasks.slice(0, limit).map((t) => (lapsed(t, now) && applyChange(t, lostTask(t), now) ? (this.save(t), t) : t));
    return { tasks: shown, ...(more ? { nextCursor: shown[shown.length - 1].taskId } : {}) };
  }

  async sweep(now: number): Promise<void> {
    this.expiredRows.run(now);
    for (const row of this.running.all()) {
      const t = JSON.parse(row.body) as TaskRecord;
      if (lapsed(t, now) && applyChange(t, lostTask(t), now)) {
        this.save(t);
        this.emit(t);
      }
    }
  }

  async delete(taskId: string): Promise<void> {
    this.remove.run(taskId);
  }

  watch(listener: (task: TaskRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.db.close();
  }

  private live(taskId: string): TaskRecord | undefined {
    const row = this.select.get(taskId);
    if (!row) return undefined;
    const t = JSON.parse(row.body) as TaskRecord;
    const now = Date.now();
    if (expired(t, now)) {
      this.remove.run(taskId);
      return undefined;
    }
    if (lapsed(t, now) && applyChange(t, lostTask(t), now)) {
      this.save(t);
      this.emit(t);
    }
    return t;
  }

  /** Read, change and write one task in one transaction. */
  private modify(taskId: string, change: (t: TaskRecord, now: number) => boolean, announce = true): TaskRecord | undefined {
    let changed = false;
    const t = this.db.transaction(() => {
      const current = this.live(taskId);
      if (current && change(current, Date.now())) {
        this.save(current);
        changed = true;
      }
      return current;
    })();
    // A lease renewal is silent, unless it found the lease lapsed and failed the task.
    if (t && changed && (announce || isTerminal(t.status))) this.emit(t);
    return t;
  }

  private save(t: TaskRecord): void {
    this.write.run(isTerminal(t.status) ? 1 : 0, expiresAt(t), JSON.stringify(t), t.taskId);
  }

  private emit(t: TaskRecord): void {
    for (const l of this.listeners) l(structuredClone(t));
  }
}

const expiresAt = (t: TaskRecord): number | null => (t.ttlMs === null ? null : t.createdAt + t.ttlMs);
