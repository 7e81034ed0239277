/**
 * Tasks: a tools/call run as a task, in the wire form of the revision in force (rules: taskWireForm). One handler API
 * for both eras: the handler is written once, and when it runs as a task its context carries `ctx.task` (the id,
 * status messages) and a signal that tasks/cancel fires.
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
 * The decision is task-decision.ts's, the run task-run.ts's (its asks task-asks.ts's), the store and the leases
 * task-supervisor.ts's, the task methods (tasks/get, result, list, cancel, update) task-methods.ts's. Task state lives
 * only in the TaskStore (state/task-store.ts); this process keeps just the runs it executes.
 */
import { type Revision, errorCode, taskWireForm, toolErrorTaskStatus } from "../rules.js";
import type { McpServer } from "../server/server.js";
import type { TaskChange, TaskRecord } from "../state/task-store.js";
import { type CompiledTool, inRevision } from "../server/registry.js";
import { callTool, resolveToolCall, runTool, toolFailure } from "../server/tools.js";
import type { ToolResult } from "../server/types.js";
import { encodeResult } from "../wire/encode.js";
import { createTaskResult } from "../wire/tasks.js";
import type { HandlerContext } from "./context.js";
import { LimitRefusal, errorOf } from "./errors.js";
import { InFlight, type RequestScope } from "./request.js";
import { randomId } from "../state/request-state.js";
import { coreTaskAsks, extensionTaskAsks } from "./task-asks.js";
import { taskMode, taskTtl } from "./task-decision.js";
import { ownerKey, taskOwner } from "./task-owner.js";
import { SwitchSink, TaskRun } from "./task-run.js";
import { TaskSupervisor } from "./task-supervisor.js";
import { QuotaExceeded, jsonBytes } from "./task-quota.js";
import { beginTaskRun } from "./telemetry.js";

type Result = Record<string, unknown>;
/** The limits of `tasks` options a new task can meet. */
type TaskLimit = "maxRunning" | "maxRunningPerOwner" | QuotaExceeded["limit"];

/** Retry-After (seconds) of a task refused for a limit: about when a short task has finished and freed its place. */
export const TASK_RETRY_AFTER_S = 5;
type Outcome = { ok: true; r: Result } | { ok: false; e: unknown };

const tasksOf = new WeakMap<McpServer, Tasks>();

/** The task runtime of `server` (one per server). */
export function tasksFor(server: McpServer): Tasks {
  let t = tasksOf.get(server);
  if (!t) tasksOf.set(server, (t = new Tasks(server)));
  return t;
}

export class Tasks {
  /** The store, its sweeps and leases, the runs of this process. */
  readonly supervisor: TaskSupervisor;

  constructor(readonly server: McpServer) {
    this.supervisor = new TaskSupervisor(server);
  }

  /**
   * tools/call: as a task when the tool supports it and the request asks (core) or may take one (extension), else an
   * ordinary call. Throws McpError (-32601: task support refused) or MissingCapabilityError (-32021).
   */
  callTool(params: Result, ctx: HandlerContext): Result | Promise<Result> {
    const { revision } = ctx;
    const tool = this.server.tools.get(params.name as string);
    if (!tool || !inRevision(tool, revision)) return callTool(this.server, revision, params, ctx);
    if (taskMode(this.server, revision, tool, params, ctx.clientCapabilities) === "plain") return callTool(this.server, revision, params, ctx);
    const call = resolveToolCall(this.server, revision, params, ctx.principal);
    if ("result" in call) return call.result;
    return this.start(tool, call.args, params, ctx);
  }

  /**
   * A task refused for a limit of `tasks` options: -32600 naming it (as the HTTP quotas: no spec code covers a quota,
   * and a peer is sent only codes its revision defines); over HTTP 429 for the caller's own limit, 503 for the
   * process's, with Retry-After TASK_RETRY_AFTER_S.
   */
  private refuse(revision: Revision, limit: TaskLimit, max: number, why: string): LimitRefusal {
    const perCaller = limit.endsWith("PerOwner");
    const message = `${perCaller ? "Too Many Requests" : "Service Unavailable"}: ${why} (limit tasks.${limit}: ${max}); try again once one has finished`;
    return new LimitRefusal(errorCode(revision, "INVALID_REQUEST")!, message, { limit: `tasks.${limit}`, max }, { status: perCaller ? 429 : 503, retryAfter: TASK_RETRY_AFTER_S });
  }

  /** A new run of `ctx`'s request as a task, and the record it is stored as. Throws McpError when too many run. */
  private newRun(params: Result, ctx: HandlerContext): { run: TaskRun; taskCtx: HandlerContext; record: TaskRecord; sink: SwitchSink } {
    const { revision, scope } = ctx;
    const owner = taskOwner(scope);
    // Concurrency is bounded (resource management SHOULD; spec/2025-11-25/basic/utilities/tasks.mdx#resource-management):
    // per requestor where there is one (a principal, a session), and for the process. Unauthenticated modern callers
    // are nobody in particular, so they share only the process's bound: one of them cannot lock out the others.
    const { maxRunning, maxRunningPerOwner } = this.server.taskOptions;
    const mine = owner ? this.supervisor.running(owner) : 0;
    if (owner && mine >= maxRunningPerOwner) throw this.refuse(revision, "maxRunningPerOwner", maxRunningPerOwner, `${mine} tasks running for this caller already`);
    const all = this.supervisor.running();
    if (all >= maxRunning) throw this.refuse(revision, "maxRunning", maxRunning, `${all} tasks running in this server already`);
    // The first task this process runs starts the supervisor (the store, its sweeps and leases).
    const store = this.supervisor.start();
    const id = randomId();
    const flight = new InFlight();
    flight.round = ctx.flight.round;
    const core = taskWireForm(revision) === "core";
    // Before the task exists (extension) the handler's messages go with the request; after, only where a link remains.
    const link = core ? scope.link?.out : undefined;
    const sink = new SwitchSink(core ? link : scope.sink);
    const taskScope: RequestScope & { flight: InFlight } = { ...scope, sink, flight };
    const run = new TaskRun({ id, revision, scope: taskScope, link, owner, store, asks: core ? coreTaskAsks : extensionTaskAsks });
    flight.task = run;
    const now = Date.now();
    const record: TaskRecord = {
      ...(store.shared ? { lease: this.supervisor.lease() } : {}),
      taskId: id,
      owner: ownerKey(owner),
      revision,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: taskTtl(revision, params, this.server.taskOptions),
      pollIntervalMs: this.server.taskOptions.pollIntervalMs,
    };
    return { run, taskCtx: ctx.fork(taskScope, flight), record, sink };
  }

  private async start(tool: CompiledTool, args: Result, params: Result, ctx: HandlerContext): Promise<Result> {
    const { run, taskCtx, record, sink } = this.newRun(params, ctx);
    if (taskWireForm(run.revision) === "core") {
      // Durable before the CreateTaskResult is written; the handler starts after it.
      run.decided();
      await this.create(run, record);
      // Tracing on: the run is a span under the request that created it, and the handler runs inside it.
      const telemetry = (run.telemetry = beginTaskRun(run.id, tool.name));
      void (telemetry ? telemetry.run(() => this.execute(run, tool, args, taskCtx)) : this.execute(run, tool, args, taskCtx));
      return createTaskResult(run.revision, record);
    }
    // Extension: the handler starts now; what settles before the next macrotask is answered directly (the server
    // decides per request), including an MRTR ask made before any work (answered input_required, synchronously).
    let settled = false;
    const quick = Promise.resolve(runTool(this.server, run.revision, tool, args, taskCtx)).then(
      (r): Outcome => ((settled = true), { ok: true, r }),
      (e): Outcome => ((settled = true), { ok: false, e }),
    );
    await new Promise<void>((r) => setImmediate(r));
    if (settled) {
      // An MRTR ask made before the task existed opened its round on the task's flight: dispatch answers
      // input_required from the request's. spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#task-creation
      ctx.flight.round ??= run.flight.round;
      // The run is over and the request answers for it: nothing more goes out on the run's behalf (handler-host.ts notify).
      run.flight.answered = true;
      const q = await quick;
      if (q.ok) return q.r;
      throw q.e;
    }
    // From here the run is a task: an ask it makes while the task is being stored waits for it (run.ready). Its span
    // starts here (the handler began under the request's).
    run.decided();
    run.telemetry = beginTaskRun(run.id, tool.name);
    if (run.pendingMessage !== undefined) record.statusMessage = run.pendingMessage;
    try {
      await this.create(run, record);
    } catch (err) {
      // No task exists, so nothing may go on running for it.
      run.flight.abort(err);
      throw err;
    }
    sink.target = undefined;
    void this.finish(run, tool, quick);
    return createTaskResult(run.revision, record);
  }

  /**
   * Make room for the task in the stored-task quota (refused naming the limit when there is none: `refuse`), store
   * it, then count its run here and let what waited for it go on.
   */
  private async create(run: TaskRun, record: TaskRecord): Promise<void> {
    try {
      await this.supervisor.admit(record);
    } catch (err) {
      if (!(err instanceof QuotaExceeded)) throw err;
      throw this.refuse(run.revision, err.limit, err.max, err.message);
    }
    try {
      await run.store.create(record);
    } catch (err) {
      this.supervisor.forget(record.taskId);
      throw err;
    }
    this.supervisor.track(run, record.ttlMs);
    run.stored();
  }

  private execute(run: TaskRun, tool: CompiledTool, args: Result, ctx: HandlerContext): Promise<void> {
    const outcome = Promise.resolve()
      .then(() => runTool(this.server, run.revision, tool, args, ctx))
      .then(
        (r): Outcome => ({ ok: true, r }),
        (e): Outcome => ({ ok: false, e }),
      );
    return this.finish(run, tool, outcome);
  }

  /** Store the terminal outcome (a terminal task, e.g. cancelled, keeps its status). */
  private async finish(run: TaskRun, tool: CompiledTool, outcome: Promise<Outcome>): Promise<void> {
    const o = await outcome;
    run.phase = "finishing";
    const { revision } = run;
    let ended = { status: "failed", isError: false };
    try {
      let result: Result | undefined;
      if (o.ok) result = o.r;
      else {
        try {
          result = toolFailure(revision, o.e);
        } catch (err) {
          const error = errorOf(revision, err);
          await this.settleInStore(run, { status: "failed", statusMessage: error.message, error });
          return;
        }
      }
      // A tool result with isError: failed in 2025-11-25, completed in the extension (failed is for JSON-RPC errors).
      const status = result.isError === true ? (toolErrorTaskStatus(revision) as "failed" | "completed") : "completed";
      ended = { status, isError: result.isError === true };
      // The extension inlines the result in tasks/get as the request's own result would be (resultType, _meta).
      const encoded = taskWireForm(revision) === "core" ? result : encodeResult(revision, "tools/call", result, this.server);
      // A progress message ("3 of 5 done") says nothing of a finished task.
      await this.settleInStore(run, { status, result: encoded, statusMessage: null });
    } catch (err) {
      console.error(`mcp runtime: task ${run.id} of tool ${tool.name}: ${String((err as Error)?.stack ?? err)}`);
    } finally {
      run.telemetry?.end(ended.status, ended.isError);
      run.end();
      this.supervisor.untrack(run);
      this.supervisor.finished(run.id);
    }
  }

  /**
   * Store a run's terminal outcome, trying again (1, 2, 4, 8 s) while the store fails (a full disk, a dropped
   * connection): a task whose outcome was never stored would read working until its TTL. Throws the last failure.
   * An outcome that does not fit the stored-task quota fails the task instead, naming the limit.
   */
  private async settleInStore(run: TaskRun, outcome: TaskChange): Promise<void> {
    let change = outcome;
    const over = await this.supervisor.room(run.id, jsonBytes([change.result, change.error]));
    if (over) {
      const message = `Internal error: ${over.message}`;
      change = { status: "failed", statusMessage: message, error: { code: errorCode(run.revision, "INTERNAL_ERROR")!, message, data: { limit: `tasks.${over.limit}`, max: over.max } } };
      await this.supervisor.room(run.id, jsonBytes([change.error]));
    }
    for (let attempt = 0; ; attempt++) {
      try {
        await run.store.update(run.id, change);
        return;
      } catch (err) {
        if (attempt >= 4) throw err;
        await new Promise((r) => setTimeout(r, 1000 * 2 ** attempt).unref?.());
      }
    }
  }
}

export type { ToolResult };
