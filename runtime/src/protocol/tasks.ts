/**
 * Tasks: a tools/call run as a task, and the task methods, in the wire form of the revision in force (rules:
 * taskWireForm). One handler API for both eras: the handler is written once, and when it runs as a task its context
 * carries `ctx.task` (the id, status messages) and a signal that tasks/cancel fires.
 *
 * - "core" (2025-11-25): a task-augmented tools/call (`params.task`) answers CreateTaskResult at once; tasks/get,
 *   tasks/result (waits until terminal), tasks/list (the caller's), tasks/cancel; notifications/tasks/status; a
 *   question the handler asks goes to the client as a request carrying the related-task `_meta`.
 *   spec/2025-11-25/basic/utilities/tasks.mdx
 * - "extension" (2026-07-28, `io.modelcontextprotocol/tasks`): the server decides per request, only when the request
 *   declares the extension; a run that settles before its first macrotask answers directly (an MRTR ask before then
 *   is answered input_required, synchronously), otherwise the task is stored and CreateTaskResult returned; questions
 *   become the task's `inputRequests`, answered by tasks/update; notifications/tasks on subscriptions/listen.
 *   spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md
 *
 * The task methods (tasks/get, result, list, cancel, update) are task-methods.ts's.
 *
 * Task state lives only in the TaskStore (state/task-store.ts); this module keeps just the handlers this process is
 * running, to abort them (tasks/cancel, TTL) and to hand them their answers.
 */
import { type Revision, describeErrors, errorCode, methodFlows, taskWireForm, toolErrorTaskStatus, validatorsFor } from "../rules.js";
import { MissingCapabilityError, type McpServer } from "../server/server.js";
import { type TaskChange, type TaskRecord, type TaskStore, guardedTaskStore } from "../state/task-store.js";
import { type CompiledTool, inRevision } from "../server/registry.js";
import { callTool, resolveToolCall, runTool, toolFailure } from "../server/tools.js";
import type { TaskSupport, ToolResult } from "../server/types.js";
import { encodeResult } from "../wire/encode.js";
import { McpError, type JsonRpcMessage } from "../wire/jsonrpc.js";
import { META_RELATED_TASK, TASKS_EXTENSION } from "../wire/meta.js";
import { createTaskResult, encodeTask, isTerminal } from "../wire/tasks.js";
import type { HandlerContext } from "./context.js";
import { InFlight, type RequestScope, type Sink } from "./request.js";
import { randomId } from "./mrtr.js";
import { dispatcherFor } from "./dispatch.js";
import { isObject } from "../wire/jsonrpc.js";

type Result = Record<string, unknown>;

/** What a handler's context offers when it runs as a task. */
export interface TaskHandle {
  /** The task's id (unguessable: 128 random bits). */
  readonly id: string;
  /** Set the task's `statusMessage` (shown by tasks/get). */
  status(message: string): void;
}

/** The owner a request's tasks are bound to: its principal, else its legacy link (session), else nobody (the id is the capability). */
export function taskOwner(scope: RequestScope): string {
  const p = scope.principal;
  // The authorization context is the user and the client acting for it, as for legacy sessions; a subject taken from
  // `client_id` (a token without `sub`) is never confused with a user's `sub`.
  if (p) return `principal:${JSON.stringify([p.claims.sub === p.subject ? "sub" : "client", p.subject, p.clientId ?? ""])}`;
  if (scope.peer) return `link:${scope.peer.id}`;
  return "";
}

/** Whether this request's client capabilities declare the tasks extension. spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#capability-negotiation */
export function declaresTasksExtension(clientCapabilities: Record<string, unknown>): boolean {
  const ext = clientCapabilities.extensions;
  return isObject(ext) && isObject(ext[TASKS_EXTENSION]);
}

/** The error of an extension method (or a taskIds listen filter) from a request that did not declare the extension: -32021. */
export function missingTasksExtension(): MissingCapabilityError {
  return new MissingCapabilityError({ extensions: { [TASKS_EXTENSION]: {} } }, `the request did not declare the ${TASKS_EXTENSION} extension in its client capabilities`);
}

/** One task this process is running. */
export class TaskRun implements TaskHandle {
  /**
   * The run is a task from now on (extension: its first macrotask passed unsettled): its asks go to the task, not the
   * request, once it is stored (`ready`).
   */
  decided = false;
  /** The handler has settled: its outcome is being stored (the task may read terminal before the run ends here). */
  finishing = false;
  /** Stored (durable): CreateTaskResult may be written, and the task's own asks and status messages go to the store. */
  created = false;
  readonly ready: Promise<void>;
  private markReady!: () => void;
  /** Asks waiting for their answer, by key. */
  readonly waiting = new Map<string, { resolve(v: Result): void; reject(e: unknown): void; method: string }>();
  /** Streams of tasks/result requests waiting on this task (2025-11-25): where a question is best sent. */
  readonly resultStreams = new Set<Sink>();
  private nextKey = new Map<string, number>();
  private ttlTimer?: ReturnType<typeof setTimeout>;

  constructor(
    readonly tasks: Tasks,
    readonly id: string,
    readonly revision: Revision,
    readonly flight: InFlight,
    /** Legacy: the link's own output (stdio, or the session's GET stream). */
    readonly link: Sink | undefined,
    readonly owner: string,
  ) {
    this.ready = new Promise((r) => (this.markReady = r));
  }

  /** Stored: what waited for it goes on. */
  stored(): void {
    this.created = true;
    this.markReady();
  }

  /** A status message set before the task was stored (extension: the first macrotask), kept for its creation. */
  pendingMessage?: string;

  status(message: string): void {
    if (!this.decided) this.pendingMessage = message;
    else void this.ready.then(() => this.tasks.store.update(this.id, { statusMessage: message })).catch(() => {});
  }

  /** A key for an ask, unique over the task's life. */
  key(capability: string, wanted: string | undefined): string {
    let key = wanted ?? `${capability}-${(this.nextKey.get(capability) ?? 0) + 1}`;
    if (!wanted) this.nextKey.set(capability, (this.nextKey.get(capability) ?? 0) + 1);
    for (let n = 2; this.usedKeys.has(key); n++) key = `${wanted ?? capability}-${n}`;
    this.usedKeys.add(key);
    return key;
  }
  private readonly usedKeys = new Set<string>();

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
    clearTimeout(this.ttlTimer);
    for (const w of this.waiting.values()) w.reject(new Error("the task ended"));
    this.waiting.clear();
  }
}

const tasksOf = new WeakMap<McpServer, Tasks>();

/** The task runtime of `server` (one per server). */
export function tasksFor(server: McpServer): Tasks {
  let t = tasksOf.get(server);
  if (!t) tasksOf.set(server, (t = new Tasks(server)));
  return t;
}

export class Tasks {
  private readonly runs = new Map<string, TaskRun>();
  private storeCache?: TaskStore;
  private sweeper?: ReturnType<typeof setInterval>;
  private renewer?: ReturnType<typeof setInterval>;
  /** This process, as the holder of leases on the tasks it runs (shared stores). */
  readonly holder = randomId();

  constructor(readonly server: McpServer) {}

  get store(): TaskStore {
    if (!this.storeCache) {
      // A store's failure reaches the client as "the task store could not be reached", its details the log.
      const store = (this.storeCache = guardedTaskStore(this.server.taskStore()));
      store.watch((t) => this.changed(t));
      this.sweeper = setInterval(() => void store.sweep(Date.now()).catch(() => {}), this.server.taskOptions.sweepIntervalMs);
      this.sweeper.unref?.();
      if (store.shared) {
        // Renew the leases of the tasks this process runs; a process that dies stops renewing, and its tasks fail.
        this.renewer = setInterval(
          () => {
            // The renewal reads the task too: a cancel or an answer whose announcement this process missed (its
            // subscription was down a moment) reaches the handler here, instead of never.
            for (const run of this.runs.values())
              void store.update(run.id, { lease: this.lease() }).then(
                (t) => {
                  if (!t || this.runs.get(run.id) !== run) return;
                  this.deliver(run, t);
                  // Ended while the handler still runs, not by a cancel: the lease lapsed (renewals failed) and another
                  // process failed the task. Its outcome can no longer be stored (a terminal task never changes): stop it.
                  if (isTerminal(t.status) && t.status !== "cancelled" && !run.finishing) run.flight.abort(new Error(`the task was ended elsewhere (${t.status}): this process's lease on it lapsed`));
                },
                () => {},
              );
          },
          Math.max(1, Math.floor(this.server.taskOptions.leaseMs / 3)),
        );
        this.renewer.unref?.();
      }
    }
    return this.storeCache;
  }

  private lease(): { holder: string; until: number } {
    return { holder: this.holder, until: Date.now() + this.server.taskOptions.leaseMs };
  }

  /** The run of a task this process executes (for the handler context), if any. */
  run(flight: InFlight): TaskRun | undefined {
    return flight.task as TaskRun | undefined;
  }

  /**
   * tools/call: as a task when the tool supports it and the request asks (core) or may take one (extension), else an
   * ordinary call. Throws McpError (-32601: task support refused) or MissingCapabilityError (-32021).
   */
  callTool(params: Result, ctx: HandlerContext): Result | Promise<Result> {
    const { revision } = ctx;
    const tool = this.server.tools.get(params.name as string);
    if (!tool || !inRevision(tool, revision)) return callTool(this.server, revision, params, ctx);
    if (this.mode(revision, tool, params, ctx) === "plain") return callTool(this.server, revision, params, ctx);
    const call = resolveToolCall(this.server, revision, params, ctx.principal);
    if ("result" in call) return call.result;
    return this.start(tool, call.args, params, ctx);
  }

  /**
   * Whether this call runs as a task. spec/2025-11-25/basic/utilities/tasks.mdx#tool-level-negotiation,
   * spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#task-creation
   */
  private mode(revision: Revision, tool: CompiledTool, params: Result, ctx: HandlerContext): "plain" | "task" {
    const support: TaskSupport = tool.taskSupport ?? "forbidden";
    switch (taskWireForm(revision)) {
      case "core": {
        // Task metadata is ignored where the server does not declare tasks for tools/call (…#task-support-and-handling).
        if (!this.server.supportsTasks()) return "plain";
        const asked = isObject(params.task);
        const notFound = errorCode(revision, "METHOD_NOT_FOUND")!;
        if (asked && support === "forbidden") throw new McpError(notFound, `Method not found: tool ${tool.name} does not support task-augmented execution (execution.taskSupport is "forbidden")`);
        if (!asked && support === "required") throw new McpError(notFound, `Method not found: tool ${tool.name} must be called as a task (execution.taskSupport is "required"): add params.task`);
        return asked ? "task" : "plain";
      }
      case "extension": {
        // A `task` param is not an opt-in here (SEP-2663 backward compatibility): only the declared extension is.
        if (support === "forbidden") return "plain";
        if (declaresTasksExtension(ctx.clientCapabilities)) return "task";
        if (support === "required") throw missingTasksExtension();
        return "plain";
      }
      default:
        return "plain";
    }
  }

  private busy(revision: Revision, why: string): McpError {
    return new McpError(errorCode(revision, "INTERNAL_ERROR")!, `Internal error: ${why}; try again once one has finished`);
  }

  private ttlFor(revision: Revision, params: Result): number | null {
    const { defaultTtlMs, maxTtlMs } = this.server.taskOptions;
    const requested = taskWireForm(revision) === "core" && isObject(params.task) ? params.task.ttl : undefined;
    // The receiver MAY override the requested ttl; it reports the actual one. spec/2025-11-25/basic/utilities/tasks.mdx#ttl-and-resource-management
    if (typeof requested === "number" && Number.isFinite(requested) && requested > 0) return Math.min(Math.floor(requested), maxTtlMs);
    return defaultTtlMs;
  }

  private async start(tool: CompiledTool, args: Result, params: Result, ctx: HandlerContext): Promise<Result> {
    const { revision, scope } = ctx;
    const owner = taskOwner(scope);
    // Concurrency is bounded (resource management SHOULD; spec/2025-11-25/basic/utilities/tasks.mdx#resource-management):
    // per requestor where there is one (a principal, a session), and for the process. Unauthenticated modern callers
    // are nobody in particular, so they share only the process's bound: one of them cannot lock out the others.
    const { maxRunning, maxRunningPerOwner } = this.server.taskOptions;
    const mine = owner === "" ? 0 : [...this.runs.values()].filter((r) => r.owner === owner).length;
    if (owner !== "" && mine >= maxRunningPerOwner) throw this.busy(revision, `${mine} tasks running for this caller already (the limit is ${maxRunningPerOwner})`);
    if (this.runs.size >= maxRunning) throw this.busy(revision, `${this.runs.size} tasks running in this server already (the limit is ${maxRunning})`);
    const id = randomId();
    const flight = new InFlight();
    flight.round = ctx.flight.round;
    const core = taskWireForm(revision) === "core";
    // Before the task exists (extension) the handler's messages go with the request; after, only where a link remains.
    const link = core ? scope.peer?.out : undefined;
    const sink = new SwitchSink(core ? link : scope.sink);
    const run = new TaskRun(this, id, revision, flight, link, owner);
    flight.task = run;
    const taskScope: RequestScope = { ...scope, sink, flight };
    const taskCtx = ctx.fork(taskScope, flight);
    const now = Date.now();
    const ttlMs = this.ttlFor(revision, params);
    const record: TaskRecord = {
      ...(this.store.shared ? { lease: this.lease() } : {}),
      taskId: id,
      owner,
      revision,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs,
      pollIntervalMs: this.server.taskOptions.pollIntervalMs,
    };

    if (core) {
      // Durable before the CreateTaskResult is written; the handler starts after it.
      run.decided = true;
      await this.store.create(record);
      this.track(run, ttlMs);
      run.stored();
      void this.execute(run, tool, args, taskCtx);
      return createTaskResult(revision, record);
    }
    // Extension: the handler starts now; what settles before the next macrotask is answered directly (the server
    // decides per request), including an MRTR ask made before any work (answered input_required, synchronously).
    let settled = false;
    const outcome = runTool(revision, tool, args, taskCtx);
    const quick = Promise.resolve(outcome).then(
      (r) => ((settled = true), { ok: true as const, r }),
      (e) => ((settled = true), { ok: false as const, e }),
    );
    await new Promise<void>((r) => setImmediate(r));
    if (settled) {
      // An MRTR ask made before the task existed opened its round on the task's flight: dispatch answers
      // input_required from the request's. spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#task-creation
      ctx.flight.round ??= flight.round;
      const q = await quick;
      if (q.ok) return q.r;
      throw q.e;
    }
    // From here the run is a task: an ask it makes while the task is being stored waits for it (run.ready).
    run.decided = true;
    if (run.pendingMessage !== undefined) record.statusMessage = run.pendingMessage;
    try {
      await this.store.create(record);
    } catch (err) {
      // No task exists, so nothing may go on running for it.
      flight.abort(err);
      throw err;
    }
    this.track(run, ttlMs);
    run.stored();
    sink.target = undefined;
    void this.finish(run, tool, quick);
    return createTaskResult(revision, record);
  }

  private track(run: TaskRun, ttlMs: number | null): void {
    this.runs.set(run.id, run);
    run.expireAt(ttlMs, () => this.runs.get(run.id) === run && this.runs.delete(run.id));
  }

  private execute(run: TaskRun, tool: CompiledTool, args: Result, ctx: HandlerContext): Promise<void> {
    const outcome = Promise.resolve()
      .then(() => runTool(run.revision, tool, args, ctx))
      .then(
        (r) => ({ ok: true as const, r }),
        (e) => ({ ok: false as const, e }),
      );
    return this.finish(run, tool, outcome);
  }

  /** Store the terminal outcome (a terminal task, e.g. cancelled, keeps its status). */
  private async finish(run: TaskRun, tool: CompiledTool, outcome: Promise<{ ok: true; r: Result } | { ok: false; e: unknown }>): Promise<void> {
    const o = await outcome;
    run.finishing = true;
    const { revision } = run;
    try {
      let result: Result | undefined;
      if (o.ok) result = o.r;
      else {
        try {
          result = toolFailure(revision, o.e);
        } catch (err) {
          const e = (dispatcherFor(this.server).errorFor(revision, 0, err) as { error: { code: number; message: string; data?: unknown } }).error;
          await this.settleInStore(run, { status: "failed", statusMessage: e.message, error: e });
          return;
        }
      }
      // A tool result with isError: failed in 2025-11-25, completed in the extension (failed is for JSON-RPC errors).
      const status = result.isError === true ? (toolErrorTaskStatus(revision) as "failed" | "completed") : "completed";
      // The extension inlines the result in tasks/get as the request's own result would be (resultType, _meta).
      const encoded = taskWireForm(revision) === "core" ? result : encodeResult(revision, "tools/call", result, this.server);
      // A progress message ("3 of 5 done") says nothing of a finished task.
      await this.settleInStore(run, { status, result: encoded, statusMessage: null });
    } catch (err) {
      console.error(`mcp runtime: task ${run.id} of tool ${tool.name}: ${String((err as Error)?.stack ?? err)}`);
    } finally {
      run.end();
      this.runs.delete(run.id);
    }
  }

  /**
   * Store a run's terminal outcome, trying again (1, 2, 4, 8 s) while the store fails (a full disk, a dropped
   * connection): a task whose outcome was never stored would read working until its TTL. Throws the last failure.
   */
  private async settleInStore(run: TaskRun, change: TaskChange): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.store.update(run.id, change);
        return;
      } catch (err) {
        if (attempt >= 4) throw err;
        await new Promise((r) => setTimeout(r, 1000 * 2 ** attempt).unref?.());
      }
    }
  }

  /** A change of a task in the store: abort a cancelled run of ours, hand a waiting ask its answer, tell the link. */
  private changed(t: TaskRecord): void {
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

  private readonly listeners = new Set<(t: TaskRecord) => void>();

  /** Be told of every task change (subscriptions/listen `taskIds`). */
  onChange(listener: (t: TaskRecord) => void): () => void {
    void this.store;
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- what a task's handler context asks ----

  /**
   * An ask of a task's handler. Extension, once the task exists: an input request of the task, answered by
   * tasks/update (spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#task-update-requests).
   * Core: a request to the client carrying the related-task `_meta`, sent on a waiting tasks/result stream if there
   * is one, else on the link; the task is input_required meanwhile (spec/2025-11-25/basic/utilities/tasks.mdx#input-required-status).
   */
  async ask(
    run: TaskRun,
    ctx: HandlerContext,
    method: string,
    capability: string,
    params: Result | undefined,
    key: string | undefined,
    askClient: (scope: RequestScope, params: Result) => Promise<Result>,
  ): Promise<Result> {
    await run.ready;
    if (taskWireForm(run.revision) === "core") {
      const withMeta = { ...(params ?? {}), _meta: { ...((params?._meta as Result) ?? {}), [META_RELATED_TASK]: { taskId: run.id } } };
      const stream = [...run.resultStreams].pop();
      const scope: RequestScope = stream ? { ...ctx.scope, sink: stream } : ctx.scope;
      await this.store.update(run.id, { status: "input_required" });
      try {
        return await askClient(scope, withMeta);
      } finally {
        await this.store.update(run.id, { status: "working" });
      }
    }
    const k = run.key(capability, key);
    const answer = new Promise<Result>((resolve, reject) => run.waiting.set(k, { resolve, reject, method }));
    const onAbort = () => run.waiting.get(k)?.reject(run.flight.signal.reason);
    run.flight.signal.addEventListener("abort", onAbort, { once: true });
    await this.store.update(run.id, { ask: { key: k, request: { method, params: params ?? {} } } });
    try {
      const value = await answer;
      await this.store.update(run.id, { take: k });
      // An answer that is not a valid result of the asked method fails the ask (the handler decides what follows).
      const validators = validatorsFor(run.revision);
      const validate = validators instanceof Promise ? undefined : validators.answerValidators[method];
      if (!isObject(value) || (validate && !validate(value))) {
        throw new McpError(errorCode(run.revision, "INVALID_PARAMS")!, `Invalid params: inputResponses["${k}"] is not a valid ${method} result${validate ? `: ${describeErrors(validate)}` : ""}`);
      }
      return value;
    } finally {
      run.flight.signal.removeEventListener("abort", onAbort);
    }
  }

  /** The run of task `taskId` if this process executes it (a waiting tasks/result registers its stream there). */
  runOf(taskId: string): TaskRun | undefined {
    return this.runs.get(taskId);
  }
}

/** A sink whose target can change: a modern task's messages go with its request until the task exists, then nowhere. */
class SwitchSink implements Sink {
  constructor(public target: Sink | undefined) {}
  send(message: JsonRpcMessage): void {
    this.target?.send(message);
  }
}

export type { ToolResult };
