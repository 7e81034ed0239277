/**
 * The stored-task quota of a process: how many tasks, and how many bytes of outcomes (results, errors), the tasks this
 * process created may keep in the store, per owner and in all. Resource management SHOULD enforce limits per requestor
 * (spec/2025-11-25/basic/utilities/tasks.mdx#resource-management); a finished task is kept for its TTL, which the
 * server chooses (…#ttl-and-resource-management; the extension: ttlMs "MAY change", the server MAY delete the task,
 * spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#task-polling).
 *
 * Room is made by evicting the owner's oldest finished task, never a working one, nor another owner's. When none can
 * go, a new task is refused (`admit` throws) and an outcome that cannot fit fails its task (`room` says no). Every
 * decision is synchronous, so concurrent creations cannot both pass one free place; the deletions follow.
 */
import type { ResolvedTaskOptions } from "../server/options.js";

/** The limits, from the server's task options (counts, and bytes of stored outcomes as UTF-8 JSON). */
export type QuotaLimits = Pick<ResolvedTaskOptions, "maxStoredTasksPerOwner" | "maxStoredTasks" | "maxStoredBytesPerOwner" | "maxStoredBytes">;

interface Entry {
  readonly taskId: string;
  readonly owner: string;
  readonly expiresAt: number | null;
  bytes: number;
  finished: boolean;
}

/** A task refused for the quota: which limit, its value, and what the caller holds. */
export class QuotaExceeded extends Error {
  constructor(
    readonly limit: keyof QuotaLimits,
    readonly max: number,
    message: string,
  ) {
    super(message);
  }
}

/** The UTF-8 length of a value's JSON. */
export function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value) ?? "").byteLength;
}

export class TaskQuota {
  /** Every counted task, oldest first (a Map keeps insertion order). */
  private readonly entries = new Map<string, Entry>();
  private readonly owners = new Map<string, { count: number; bytes: number }>();
  private bytes = 0;

  constructor(private readonly limits: QuotaLimits) {}

  /**
   * Count a new task of `owner` (expiring at `expiresAt`), after choosing the tasks to evict for it: their ids (the
   * caller deletes them from the store). Throws QuotaExceeded when the owner's, or the process's, tasks are all working.
   */
  admit(taskId: string, owner: string, expiresAt: number | null, now: number, canEvict = true): string[] {
    this.prune(now);
    const { maxStoredTasksPerOwner: perOwner, maxStoredTasks: total } = this.limits;
    const mine = this.owners.get(owner)?.count ?? 0;
    // One place is needed in the owner's count and in the process's; each victim frees one in both.
    const needed = Math.max(mine - perOwner + 1, this.entries.size - total + 1, 0);
    const victims = canEvict ? this.oldestFinished(owner, needed) : [];
    if (victims.length < needed) {
      const limit = mine >= perOwner ? "maxStoredTasksPerOwner" : "maxStoredTasks";
      const held = limit === "maxStoredTasksPerOwner" ? `this caller has ${mine} stored tasks` : `this server has ${this.entries.size} stored tasks`;
      throw new QuotaExceeded(limit, this.limits[limit], `${held} and none of this caller's is finished`);
    }
    for (const v of victims) this.remove(v);
    this.entries.set(taskId, { taskId, owner, expiresAt, bytes: 0, finished: false });
    this.account(owner, 1, 0);
    return victims.map((v) => v.taskId);
  }

  /**
   * Make room for an outcome of `bytes` of task `taskId`: the ids of its owner's finished tasks to evict for it, or
   * a QuotaExceeded when it cannot fit even so (then nothing is evicted). A task not counted here fits.
   */
  room(taskId: string, bytes: number, now: number, canEvict = true): string[] | QuotaExceeded {
    this.prune(now);
    const e = this.entries.get(taskId);
    if (!e) return [];
    const { maxStoredBytesPerOwner: perOwner, maxStoredBytes: total } = this.limits;
    const owner = this.owners.get(e.owner)!;
    let [mine, all] = [owner.bytes - e.bytes + bytes, this.bytes - e.bytes + bytes];
    const victims: Entry[] = [];
    for (const v of this.entries.values()) {
      if (mine <= perOwner && all <= total) break;
      if (!canEvict) break;
      if (v.owner !== e.owner || !v.finished || v === e || v.bytes === 0) continue;
      victims.push(v);
      mine -= v.bytes;
      all -= v.bytes;
    }
    if (mine > perOwner || all > total) {
      const limit = bytes > perOwner || mine > perOwner ? "maxStoredBytesPerOwner" : "maxStoredBytes";
      return new QuotaExceeded(limit, this.limits[limit], `its outcome (${bytes} bytes) does not fit the stored tasks' limit (tasks.${limit} = ${this.limits[limit]} bytes)`);
    }
    for (const v of victims) this.remove(v);
    this.account(e.owner, 0, bytes - e.bytes);
    e.bytes = bytes;
    return victims.map((v) => v.taskId);
  }

  /** The task is terminal (its run ended, or the store says so): it may be evicted from now on. */
  finished(taskId: string): void {
    const e = this.entries.get(taskId);
    if (e) e.finished = true;
  }

  /** The task is no longer stored (its creation failed, or it was deleted). */
  forget(taskId: string): void {
    const e = this.entries.get(taskId);
    if (e) this.remove(e);
  }

  /** What `owner` (else the process) holds: tasks and bytes. */
  usage(owner?: string): { tasks: number; bytes: number } {
    if (owner === undefined) return { tasks: this.entries.size, bytes: this.bytes };
    const o = this.owners.get(owner);
    return { tasks: o?.count ?? 0, bytes: o?.bytes ?? 0 };
  }

  /** Up to `n` of `owner`'s finished tasks, oldest first. */
  private oldestFinished(owner: string, n: number): Entry[] {
    const found: Entry[] = [];
    for (const e of this.entries.values()) {
      if (found.length >= n) break;
      if (e.owner === owner && e.finished) found.push(e);
    }
    return found;
  }

  /** Forget the tasks past their TTL (the store deletes them). */
  private prune(now: number): void {
    for (const e of this.entries.values()) if (e.expiresAt !== null && e.expiresAt <= now) this.remove(e);
  }

  private remove(e: Entry): void {
    if (!this.entries.delete(e.taskId)) return;
    this.account(e.owner, -1, -e.bytes);
  }

  private account(owner: string, count: number, bytes: number): void {
    const o = this.owners.get(owner) ?? { count: 0, bytes: 0 };
    o.count += count;
    o.bytes += bytes;
    this.bytes += bytes;
    if (o.count <= 0) this.owners.delete(owner);
    else this.owners.set(owner, o);
  }
}
