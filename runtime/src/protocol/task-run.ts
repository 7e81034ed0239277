/**
 * One task this process is running: its phase, its handler's flight (aborted by tasks/cancel and the TTL), the asks
 * waiting for their answers, and the ask strategy of its wire form (task-asks.ts).
 */
import type { Revision } from "../rules.js";
import type { TaskStore } from "../state/task-store.js";
import type { JsonRpcMessage } from "../wire/jsonrpc.js";
import type { TaskOwner } from "./task-owner.js";
import type { ClientAsk, InFlight, RequestScope, RunTask, Sink } from "./request.js";
import type { TaskTelemetry } from "./telemetry.js";

type Result = Record<string, unknown>;

/**
 * Where a run is:
 * - "deciding" (extension): the handler runs before its first macrotask has passed; settled by then, it answers the
 *   request directly and is never a task; its asks are the request's (MRTR), its status messages kept for creation.
 * - "creating": the run is a task from now on, being stored; its asks and status messages wait for `ready`.
 * - "running": stored (durable): CreateTaskResult may be written; asks and status messages go to the task.
 * - "finishing": the handler has settled and its outcome is being stored (the task may read terminal before).
 * - "ended": the outcome is stored (or given up); waiting asks were failed.
 */
export type TaskPhase = "deciding" | "creating" | "running" | "finishing" | "ended";

/** How a task's handler asks the client, in one wire form of tasks (task-asks.ts). */
export interface TaskAskStrategy {
  ask(run: TaskRun, ask: ClientAsk): Promise<Result>;
}

/** What a run is made of. */
export interface TaskRunInit {
  readonly id: string;
  readonly revision: Revision;
  /** The task's scope: its own sink and flight (the request's scope otherwise). */
  readonly scope: RequestScope & { readonly flight: InFlight };
  /** Legacy: the link's own output (stdio, or the session's GET stream), for what outlives the request. */
  readonly link: Sink | undefined;
  readonly owner: TaskOwner | undefined;
  /** The started store (task-supervisor.ts). */
  readonly store: TaskStore;
  readonly asks: TaskAskStrategy;
}

export class TaskRun implements RunTask {
  phase: TaskPhase = "deciding";
  /** The run's span when tracing is on (protocol/telemetry.ts), ended with the run's terminal status. */
  telemetry?: TaskTelemetry;
  readonly id: string;
  readonly revision: Revision;
  readonly scope: RequestScope & { readonly flight: InFlight };
  readonly flight: InFlight;
  readonly link: Sink | undefined;
  readonly owner: TaskOwner | undefined;
  readonly store: TaskStore;
  /** Resolves once the task is stored. */
  readonly ready: Promise<void>;
  private markReady!: () => void;
  /** Asks waiting for their answer, by key (extension). */
  readonly waiting = new Map<string, { resolve(v: Result): void; reject(e: unknown): void; method: string }>();
  /** Streams of tasks/result requests waiting on this task (2025-11-25): where a question is best sent. */
  readonly resultStreams = new Set<Sink>();
  /** A status message set before the task was stored (extension: the first macrotask), kept for its creation. */
  pendingMessage?: string;
  private readonly strategy: TaskAskStrategy;
  private readonly nextKey = new Map<string, number>();
  private readonly usedKeys = new Set<string>();
  private ttlTimer?: ReturnType<typeof setTimeout>;

  constructor(init: TaskRunInit) {
    ({ id: this.id, revision: this.revision, scope: this.scope, link: this.link, owner: this.owner, store: this.store, asks: this.strategy } = init);
    this.flight = init.scope.flight;
    this.ready = new Promise((r) => (this.markReady = r));
  }

  /** The run is a task from now on: it is being stored. */
  decided(): void {
    this.phase = "creating";
  }

  /** Stored: what waited for it goes on. */
  stored(): void {
    this.phase = "running";
    this.markReady();
  }

  /** The task's own asks, once the run is a task (they wait until it is stored); before, the request's apply. */
  get ask(): ((ask: ClientAsk) => Promise<Result>) | undefined {
    if (this.phase === "deciding") return undefined;
    return async (ask) => {
      await this.ready;
      return this.strategy.ask(this, ask);
    };
  }

  status(message: string): void {
    if (this.phase === "deciding") this.pendingMessage = message;
    else void this.ready.then(() => this.store.update(this.id, { statusMessage: message })).catch(() => {});
  }

  /** A key for an ask, unique over the task's life. */
  key(capability: string, wanted: string | undefined): string {
    let key = wanted ?? `${capability}-${(this.nextKey.get(capability) ?? 0) + 1}`;
    if (!wanted) this.nextKey.set(capability, (this.nextKey.get(capability) ?? 0) + 1);
    for (let n = 2; this.usedKeys.has(key); n++) key = `${wanted ?? capability}-${n}`;
    this.usedKeys.add(key);
    return key;
  }

  /** At the TTL the task is gone: abort its handler and stop counting it, whether or not the handler heeds the signal. */
  expireAt(ttlMs: number | null, expired: () => void): void {
    if (ttlMs === null) return;
    this.ttlTimer = setTimeout(() => {
      this.flight.abort(new Error("the task's TTL elapsed"));
      expired();
    }, ttlMs);
    this.ttlTimer.unref?.();
  }

  end(): void {
    this.phase = "ended";
    this.flight.answered = true;
    clearTimeout(this.ttlTimer);
    for (const w of this.waiting.values()) w.reject(new Error("the task ended"));
    this.waiting.clear();
  }
}

/** A sink whose target can change: a modern task's messages go with its request until the task exists, then nowhere. */
export class SwitchSink implements Sink {
  constructor(public target: Sink | undefined) {}
  send(message: JsonRpcMessage): void {
    this.target?.send(message);
  }
}
