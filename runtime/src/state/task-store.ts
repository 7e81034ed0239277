/**
 * The task store: every piece of task state, and nothing outside it keeps any (the runner in protocol/tasks.ts keeps
 * only the handlers this process is running). The seam for shared stores: an implementation must make `create`
 * durable before it resolves (a CreateTaskResult is written only after it: "durably created before the response"),
 * never change a terminal task, and report every change to `watch` listeners (of this process, and of every process
 * sharing the store where it is shared).
 *
 * spec/2025-11-25/basic/utilities/tasks.mdx#behavior-requirements,
 * spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#task-creation
 */
import { type Revision, errorCode, isRevision } from "../rules.js";
import { type TaskState, type TaskStatus, isTerminal } from "../wire/tasks.js";

export type { TaskState, TaskStatus } from "../wire/tasks.js";
export { isTerminal } from "../wire/tasks.js";

/** A stored task: its wire state plus who owns it and what its handler waits for. */
export interface TaskRecord extends TaskState {
  /** Who may see it: the principal's subject, else the legacy session, else "" (modern, unauthenticated: the id is the capability). */
  owner: string;
  /** The revision in force when it was created: its result and errors are that revision's. */
  revision: string;
  /** Answers given (tasks/update) to outstanding input requests, not yet taken by the handler, by key. */
  inputResponses?: Record<string, unknown>;
  /** Every input request key the task ever used: keys are unique over the task's life. */
  usedKeys?: string[];
  /** The process running it and until when it promised to renew (ms since the epoch); a lapsed lease means the process is gone. */
  lease?: { holder: string; until: number };
}

/** A change to a non-terminal task. Fields left out are kept. */
export interface TaskChange {
  status?: TaskStatus;
  /** null removes it. */
  statusMessage?: string | null;
  result?: Record<string, unknown>;
  error?: TaskState["error"];
  /** Add an outstanding input request (status becomes input_required). */
  ask?: { key: string; request: { method: string; params: Record<string, unknown> } };
  /** The handler took the answer of this key. */
  take?: string;
  lease?: TaskRecord["lease"];
  ttlMs?: number | null;
}

export interface TaskPage {
  tasks: TaskRecord[];
  nextCursor?: string;
}

export interface TaskStore {
  /**
   * True when several processes share the store: then each task running in a process carries a lease the process
   * renews, and a task whose lease lapsed (its process is gone) reads failed. Embedded stores are one process's.
   */
  readonly shared?: boolean;
  /** Store a new task; resolves once it is durable (a later `get`, from any process sharing the store, finds it). */
  create(task: TaskRecord): Promise<void>;
  /** The task, or undefined when unknown or past its TTL. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** Apply `change` unless the task is terminal (a terminal task never changes); the task after it, or undefined when unknown. */
  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined>;
  /**
   * Record answers to outstanding input requests: keys not outstanding are ignored; once none is outstanding an
   * input_required task is working again. The task after it, or undefined when unknown.
   */
  answer(taskId: string, responses: Record<string, unknown>): Promise<TaskRecord | undefined>;
  /** The owner's tasks, oldest first, `limit` at a time; `cursor` from the previous page. Throws RangeError on a cursor it did not make. */
  list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPage>;
  /** Delete tasks past their TTL; fail non-terminal tasks whose lease lapsed. */
  sweep(now: number): Promise<void>;
  /**
   * Delete a task at once (the stored-task quota evicts a finished one to make room). Optional for a store of your own:
   * without it nothing is evicted, and a caller at its limit is refused until its tasks expire.
   */
  delete?(taskId: string): Promise<void>;
  /** Be told of every change (creation included); returns the unsubscribe. */
  watch(listener: (task: TaskRecord) => void): () => void;
  close(): Promise<void>;
}

/**
 * A task store's failure as a client is told it: the store's own words (a database address, a driver's message) are
 * the server's log's, not the client's. Answered -32603 (Internal error), as any unexpected failure.
 */
export class TaskStoreUnavailable extends Error {
  constructor(
    readonly operation: string,
    options: { cause: unknown },
  ) {
    super("the task store could not be reached; try again", options);
  }
}

/** How often one failure message of a task store is repeated on stderr while it lasts (ms). */
const REPORT_EVERY_MS = 10_000;

/**
 * `store`, with each operation's failure reported on stderr (`mcp runtime: task store: <operation>: <message>`, a
 * message again only after REPORT_EVERY_MS) and thrown as TaskStoreUnavailable.
 */
export function guardedTaskStore(store: TaskStore): TaskStore {
  let last = "";
  let lastAt = 0;
  const guard =
    <A extends unknown[], R>(operation: string, f: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await f.apply(store, args);
      } catch (err) {
        // A cursor the store did not make is the caller's error (RangeError), not the store's.
        if (err instanceof RangeError) throw err;
        const message = (err as Error)?.message ?? String(err);
        const now = Date.now();
        if (message !== last || now - lastAt >= REPORT_EVERY_MS) {
          last = message;
          lastAt = now;
          // console.error: stderr on Node, the host's log on Workers (no process there).
          console.error(`mcp runtime: task store: ${operation}: ${message}`);
        }
        throw new TaskStoreUnavailable(operation, { cause: err });
      }
    };
  return {
    shared: store.shared,
    create: guard("create", store.create),
    get: guard("get", store.get),
    update: guard("update", store.update),
    answer: guard("answer", store.answer),
    list: guard("list", store.list),
    sweep: guard("sweep", store.sweep),
    ...(store.delete ? { delete: guard("delete", store.delete) } : {}),
    watch: (listener) => store.watch(listener),
    close: () => store.close(),
  };
}

/**
 * The message of a task whose lease lapsed. A reader cannot tell a process that died from one cut off from the store
 * longer than its lease, so the message names both, and every process (the holder included) writes the same one.
 */
export const LOST_TASK_MESSAGE = "its lease lapsed before it finished: the server process running it stopped, or could not reach the task store";

/** The change that fails a task whose process went away: failed, with an internal error of the task's revision. */
export function lostTask(t: TaskRecord, message = LOST_TASK_MESSAGE): TaskChange {
  const revision = (isRevision(t.revision) ? t.revision : undefined) as Revision | undefined;
  return { status: "failed", statusMessage: message, error: { code: (revision && errorCode(revision, "INTERNAL_ERROR")) ?? -32603, message } };
}

/** A lease renewal only: not an update of the task as clients see it (no lastUpdatedAt, no notification). */
export const isLeaseOnly = (change: TaskChange): boolean => Object.keys(change).every((k) => k === "lease");

/**
 * Apply a change to a record (the same code in every store). Returns false when nothing may change (terminal). A task
 * whose lease lapsed is failed by the first write, whatever it was (its holder's late renewal or outcome included):
 * the outcome of a lapse does not depend on which process reaches the store first.
 */
export function applyChange(t: TaskRecord, change: TaskChange, now: number): boolean {
  if (isTerminal(t.status)) return false;
  if (lapsed(t, now)) change = lostTask(t);
  if (change.status !== undefined) t.status = change.status;
  if (change.statusMessage === null) delete t.statusMessage;
  else if (change.statusMessage !== undefined) t.statusMessage = change.statusMessage;
  if (change.result !== undefined) t.result = change.result;
  if (change.error !== undefined) t.error = change.error;
  if (change.ttlMs !== undefined) t.ttlMs = change.ttlMs;
  if (change.lease !== undefined) t.lease = change.lease;
  if (change.ask) {
    (t.inputRequests ??= {})[change.ask.key] = change.ask.request;
    (t.usedKeys ??= []).push(change.ask.key);
    if (change.status === undefined) t.status = "input_required";
  }
  if (change.take !== undefined && t.inputResponses) {
    delete t.inputResponses[change.take];
    if (!Object.keys(t.inputResponses).length) delete t.inputResponses;
  }
  if (isTerminal(t.status)) {
    delete t.inputRequests;
    delete t.inputResponses;
    delete t.lease;
  }
  if (!isLeaseOnly(change)) t.lastUpdatedAt = Math.max(now, t.lastUpdatedAt);
  return true;
}

/** Apply answers (see TaskStore.answer). Returns whether anything changed. */
export function applyAnswers(t: TaskRecord, responses: Record<string, unknown>, now: number): boolean {
  if (lapsed(t, now)) return applyChange(t, {}, now);
  if (isTerminal(t.status) || !t.inputRequests) return false;
  let changed = false;
  for (const [key, value] of Object.entries(responses)) {
    if (!Object.prototype.hasOwnProperty.call(t.inputRequests, key)) continue;
    delete t.inputRequests[key];
    (t.inputResponses ??= {})[key] = value;
    changed = true;
  }
  if (!changed) return false;
  if (!Object.keys(t.inputRequests).length) {
    delete t.inputRequests;
    if (t.status === "input_required") t.status = "working";
  }
  t.lastUpdatedAt = Math.max(now, t.lastUpdatedAt);
  return true;
}

/** Whether a task is past its TTL at `now` (measured from creation). */
export const expired = (t: TaskRecord, now: number): boolean => t.ttlMs !== null && now >= t.createdAt + t.ttlMs;

/** A non-terminal task whose lease lapsed, as it reads: failed. */
export function lapsed(t: TaskRecord, now: number): boolean {
  return !isTerminal(t.status) && t.lease !== undefined && t.lease.until < now;
}

/** The in-memory task store: the default. Lost with the process. */
export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly listeners = new Set<(t: TaskRecord) => void>();

  async create(task: TaskRecord): Promise<void> {
    if (this.tasks.has(task.taskId)) throw new Error(`task ${task.taskId} exists`);
    this.tasks.set(task.taskId, structuredClone(task));
    this.emit(task.taskId);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const t = this.live(taskId);
    return t && structuredClone(t);
  }

  async update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const t = this.live(taskId);
    if (!t) return undefined;
    if (applyChange(t, change, Date.now()) && (!isLeaseOnly(change) || isTerminal(t.status))) this.emit(taskId);
    return structuredClone(t);
  }

  async answer(taskId: string, responses: Record<string, unknown>): Promise<TaskRecord | undefined> {
    const t = this.live(taskId);
    if (!t) return undefined;
    if (applyAnswers(t, responses, Date.now())) this.emit(taskId);
    return structuredClone(t);
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPage> {
    const now = Date.now();
    const mine = [...this.tasks.values()].filter((t) => t.owner === owner && !expired(t, now));
    let start = 0;
    if (cursor !== undefined) {
      start = mine.findIndex((t) => t.taskId === cursor) + 1;
      if (start === 0) throw new RangeError("unknown cursor");
    }
    const page = mine.slice(start, start + limit);
    const next = start + limit < mine.length ? page[page.length - 1]?.taskId : undefined;
    return { tasks: page.map((t) => structuredClone(this.settleLapsed(t, now))), ...(next ? { nextCursor: next } : {}) };
  }

  async sweep(now: number): Promise<void> {
    for (const t of this.tasks.values()) {
      if (expired(t, now)) this.tasks.delete(t.taskId);
      else if (lapsed(t, now)) this.settleLapsed(t, now);
    }
  }

  async delete(taskId: string): Promise<void> {
    this.tasks.delete(taskId);
  }

  watch(listener: (task: TaskRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  /** The stored task unless unknown or expired (an expired one is deleted on sight). */
  private live(taskId: string): TaskRecord | undefined {
    const t = this.tasks.get(taskId);
    if (!t) return undefined;
    const now = Date.now();
    if (expired(t, now)) {
      this.tasks.delete(taskId);
      return undefined;
    }
    return this.settleLapsed(t, now);
  }

  private settleLapsed(t: TaskRecord, now: number): TaskRecord {
    if (lapsed(t, now) && applyChange(t, lostTask(t), now)) this.emit(t.taskId);
    return t;
  }

  private emit(taskId: string): void {
    const t = this.tasks.get(taskId);
    if (!t) return;
    for (const l of this.listeners) l(structuredClone(t));
  }
}
