/**
 * The task store's supervisor: the store (made on `start()`), its sweeps, the leases of the tasks this process runs
 * (shared stores), and what the store's changes mean for those runs (a cancel aborts, an answer reaches its ask).
 * Explicit `start()`/`stop()`: nothing runs before the first dispatch that may touch a task (dispatch.ts).
 */
import { methodFlows, taskWireForm } from "../rules.js";
import type { McpServer } from "../server/server.js";
import { type TaskRecord, type TaskStore, guardedTaskStore } from "../state/task-store.js";
import { encodeTask, isTerminal } from "../wire/tasks.js";
import { randomId } from "../state/request-state.js";
import type { TaskOwner } from "./task-owner.js";
import { ownerKey } from "./task-owner.js";
import type { TaskRun } from "./task-run.js";
import { type QuotaExceeded, TaskQuota } from "./task-quota.js";

type Result = Record<string, unknown>;

export class TaskSupervisor {
  private holderId?: string;
  private current?: TaskStore;

  /** This process, as the holder of leases on the tasks it runs (shared stores): random, made on first use (node:crypto loads then). */
  get holder(): string {
    return (this.holderId ??= randomId());
  }
  private unwatch?: () => void;
  private sweeper?: ReturnType<typeof setInterval>;
  private renewer?: ReturnType<typeof setInterval>;
  /** The runs this process executes, by task id. */
  private readonly runs = new Map<string, TaskRun>();
  private readonly listeners = new Set<(t: TaskRecord) => void>();
  /** What the tasks this process created keep stored (task-quota.ts). */
  private readonly quota: TaskQuota;

  constructor(private readonly server: McpServer) {
    this.quota = new TaskQuota(server.taskOptions);
  }

  /** Whether the supervisor runs (its store watched and swept). */
  get started(): boolean {
    return this.unwatch !== undefined;
  }

  /** The store. Throws Error before the first `start()`. */
  get store(): TaskStore {
    if (!this.current) throw new Error("mcp runtime: the task supervisor was not started");
    return this.current;
  }

  /**
   * Make the store (once: it keeps the tasks of a later start), watch it, sweep it every `sweepIntervalMs` and, where
   * it is shared, renew this process's leases every `leaseMs / 3`. Idempotent. The timers never keep a process alive.
   */
  start(): TaskStore {
    // A store's failure reaches the client as "the task store could not be reached", its details the log.
    const store = (this.current ??= guardedTaskStore(this.server.taskStore()));
    if (this.unwatch) return store;
    const { sweepIntervalMs, leaseMs } = this.server.taskOptions;
    this.unwatch = store.watch((t) => this.changed(t));
    this.sweeper = setInterval(() => void store.sweep(Date.now()).catch(() => {}), sweepIntervalMs);
    this.sweeper.unref?.();
    if (store.shared) {
      // A process that dies stops renewing, and its tasks fail.
      this.renewer = setInterval(() => this.renew(store), Math.max(1, Math.floor(leaseMs / 3)));
      this.renewer.unref?.();
    }
    return store;
  }

  /** Stop watching, sweeping and renewing (the store and its tasks stay, for a later `start()`). Idempotent. */
  stop(): void {
    this.unwatch?.();
    this.unwatch = undefined;
    clearInterval(this.sweeper);
    clearInterval(this.renewer);
    this.sweeper = this.renewer = undefined;
  }

  /** A lease on a task for this process, `leaseMs` from now. */
  lease(): { holder: string; until: number } {
    return { holder: this.holder, until: Date.now() + this.server.taskOptions.leaseMs };
  }

  /**
   * Count a new task against the stored-task quota, evicting its owner's oldest finished tasks to make room. Throws
   * QuotaExceeded (nothing evicted) when there is none; a store that cannot delete evicts nothing.
   */
  async admit(record: TaskRecord): Promise<void> {
    const expiresAt = record.ttlMs === null ? null : record.createdAt + record.ttlMs;
    await this.evict(this.quota.admit(record.taskId, record.owner, expiresAt, Date.now(), this.canEvict));
  }

  /** Make room for an outcome of `bytes` of task `taskId` (evicting as `admit`); a QuotaExceeded when it cannot fit. */
  async room(taskId: string, bytes: number): Promise<QuotaExceeded | undefined> {
    const r = this.quota.room(taskId, bytes, Date.now(), this.canEvict);
    if (!Array.isArray(r)) return r;
    await this.evict(r);
    return undefined;
  }

  /** The task is not stored after all (its creation failed). */
  forget(taskId: string): void {
    this.quota.forget(taskId);
  }

  /** The task is terminal: the quota may evict it. */
  finished(taskId: string): void {
    this.quota.finished(taskId);
  }

  private get canEvict(): boolean {
    return this.current?.delete !== undefined;
  }

  /** Delete evicted tasks; a failure is the store's log's (the task then stays until its TTL). */
  private async evict(taskIds: string[]): Promise<void> {
    await Promise.all(taskIds.map((id) => this.store.delete!(id).catch(() => {})));
  }

  /** Count `run` as running here until it ends or its TTL passes. */
  track(run: TaskRun, ttlMs: number | null): void {
    this.runs.set(run.id, run);
    run.expireAt(ttlMs, () => this.untrack(run));
  }

  untrack(run: TaskRun): void {
    if (this.runs.get(run.id) === run) this.runs.delete(run.id);
  }

  /** The run of task `taskId` if this process executes it (a waiting tasks/result registers its stream there). */
  runOf(taskId: string): TaskRun | undefined {
    return this.runs.get(taskId);
  }

  /** How many tasks run here: all of them, or `owner`'s. */
  running(owner?: TaskOwner): number {
    if (!owner) return this.runs.size;
    const key = ownerKey(owner);
    let n = 0;
    for (const r of this.runs.values()) if (ownerKey(r.owner) === key) n++;
    return n;
  }

  /** Be told of every task change (subscriptions/listen `taskIds`, a waiting tasks/result). */
  onChange(listener: (t: TaskRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Renew the leases of the tasks this process runs. The renewal reads the task too: a cancel or an answer whose
   * announcement this process missed (its subscription was down a moment) reaches the handler here, instead of never.
   */
  private renew(store: TaskStore): void {
    for (const run of this.runs.values())
      void store.update(run.id, { lease: this.lease() }).then(
        (t) => {
          if (!t || this.runs.get(run.id) !== run) return;
          this.deliver(run, t);
          // Ended while the handler still runs, not by a cancel: the lease lapsed while this process could not renew
          // it, and the task failed (by this renewal or another process's read). Its outcome can no longer be stored
          // (a terminal task never changes): stop it.
          if (isTerminal(t.status) && t.status !== "cancelled" && run.phase === "running") run.flight.abort(new Error(`the task ${t.status}: its lease lapsed while the store could not be reached`));
        },
        () => {},
      );
  }

  /** A change of a task in the store: abort a cancelled run of ours, hand a waiting ask its answer, tell the link. */
  private changed(t: TaskRecord): void {
    if (isTerminal(t.status)) this.quota.finished(t.taskId);
    const run = this.runs.get(t.taskId);
    if (run) {
      this.deliver(run, t);
      // notifications/tasks/status (MAY; without related-task _meta). spec/2025-11-25/basic/utilities/tasks.mdx#task-notifications
      if (run.link && taskWireForm(run.revision) === "core" && methodFlows(run.revision, "notifications/tasks/status", "server→client")) {
        run.link.send({ jsonrpc: "2.0", method: "notifications/tasks/status", params: encodeTask(run.revision, t) });
      }
    }
    for (const l of this.listeners) l(t);
  }

  /** What a run of ours takes from its task as stored: a cancel (its abort), the answers its asks wait for. */
  private deliver(run: TaskRun, t: TaskRecord): void {
    if (t.status === "cancelled") run.flight.abort(new Error(t.statusMessage ?? "the task was cancelled"));
    for (const [key, w] of run.waiting) {
      if (t.inputResponses && Object.prototype.hasOwnProperty.call(t.inputResponses, key)) {
        run.waiting.delete(key);
        w.resolve(t.inputResponses[key] as Result);
      }
    }
  }
}
