/**
 * The task methods: tasks/get, tasks/result, tasks/list, tasks/cancel (2025-11-25) and tasks/get, tasks/update,
 * tasks/cancel (the 2026-07-28 extension), each answered from the task store in the wire form of the revision in force.
 * Which of them a revision has is the rules module's (taskMethods); running a tools/call as a task is tasks.ts's.
 * spec/2025-11-25/basic/utilities/tasks.mdx#protocol-messages,
 * spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#supported-methods
 */
import { type Revision, cancelOfTerminalTask, errorCode, isRevision, taskMethods, taskWireForm } from "../rules.js";
import type { McpServer } from "../server/server.js";
import { type TaskRecord, isTerminal } from "../state/task-store.js";
import { McpError } from "../wire/jsonrpc.js";
import { META_RELATED_TASK } from "../wire/meta.js";
import { encodeDetailedTask, encodeTask } from "../wire/tasks.js";
import type { RequestScope } from "./request.js";
import { ownerKey, taskOwner } from "./task-owner.js";
import type { TaskSupervisor } from "./task-supervisor.js";
import { tasksFor } from "./tasks.js";
import { isObject } from "../wire/jsonrpc.js";

type Result = Record<string, unknown>;

/** Whether `method` is a task method of `revision` (rules: taskMethods). */
export function isTaskMethod(revision: Revision, method: string): boolean {
  return taskMethods(revision).includes(method);
}

/**
 * Whether a task exists for a request of `revision`: only in the wire form it was created in, for every task method
 * alike (get, result, list, cancel, update). Its outcome is encoded for that form (a tool error is `failed` in one,
 * `completed` in the other; the extension inlines the revision's result), and what tasks/get finds tasks/list must list
 * and no more (spec/2025-11-25/basic/utilities/tasks.mdx#task-listing).
 */
function visibleIn(revision: Revision, t: TaskRecord): boolean {
  return isRevision(t.revision) && taskWireForm(t.revision) === taskWireForm(revision);
}

const methodsOf = new WeakMap<McpServer, TaskMethods>();

/** The task methods of `server` (one per server, over its task runtime). */
export function taskMethodsFor(server: McpServer): TaskMethods {
  let m = methodsOf.get(server);
  if (!m) methodsOf.set(server, (m = new TaskMethods(server, tasksFor(server).supervisor)));
  return m;
}

/** Each method starts the supervisor (task-supervisor.ts) before it reads the store. */
export class TaskMethods {
  constructor(
    readonly server: McpServer,
    readonly tasks: TaskSupervisor,
  ) {}

  /** The task `taskId` names, if the caller owns it; unknown, expired and other owners' tasks are all -32602 alike. */
  private async owned(revision: Revision, params: Result, scope: RequestScope): Promise<TaskRecord> {
    const invalid = errorCode(revision, "INVALID_PARAMS")!;
    if (typeof params.taskId !== "string") throw new McpError(invalid, "Invalid params: taskId must be a string");
    const t = await this.tasks.start().get(params.taskId);
    // Requests for another context's tasks MUST be rejected (spec/2025-11-25/basic/utilities/tasks.mdx#task-isolation-and-access-control);
    // and a task of one wire form does not exist for the other (visibleIn).
    if (!t || t.owner !== ownerKey(taskOwner(scope)) || !visibleIn(revision, t)) {
      throw new McpError(invalid, `Invalid params: unknown task ${JSON.stringify(params.taskId.length > 64 ? `${params.taskId.slice(0, 64)}…` : params.taskId)}`);
    }
    return t;
  }

  /** tasks/get: the Task (core) or the DetailedTask (extension). */
  async get(revision: Revision, params: Result, scope: RequestScope): Promise<Result> {
    const t = await this.owned(revision, params, scope);
    return taskWireForm(revision) === "core" ? encodeTask(revision, t) : encodeDetailedTask(revision, t);
  }

  /**
   * tasks/result (core): wait until the task is terminal, then exactly the underlying outcome, with the related-task
   * `_meta`. spec/2025-11-25/basic/utilities/tasks.mdx#result-retrieval
   */
  async result(revision: Revision, params: Result, scope: RequestScope): Promise<Result> {
    let t = await this.owned(revision, params, scope);
    if (!isTerminal(t.status)) t = await this.terminal(t, scope, errorCode(revision, "INVALID_PARAMS")!);
    if (t.error) throw new McpError(t.error.code, t.error.message, t.error.data);
    if (!t.result) throw new McpError(errorCode(revision, "INTERNAL_ERROR")!, `the task was ${t.status}${t.statusMessage ? `: ${t.statusMessage}` : ""}; it has no result`);
    return { ...t.result, _meta: { ...((t.result._meta as Result) ?? {}), [META_RELATED_TASK]: { taskId: t.taskId } } };
  }

  /**
   * Wait until the task is terminal. A task deleted meanwhile (its TTL passed) is an unknown task: `invalidParams`, as
   * for any unknown id, never a wait without end.
   */
  private terminal(t: TaskRecord, scope: RequestScope, invalidParams: number): Promise<TaskRecord> {
    const run = this.tasks.runOf(t.taskId);
    const signal = scope.flight!.signal;
    if (run) run.resultStreams.add(scope.sink);
    return new Promise<TaskRecord>((resolve, reject) => {
      let expiry: ReturnType<typeof setTimeout> | undefined;
      if (t.ttlMs !== null) {
        expiry = setTimeout(
          () =>
            void this.tasks.store.get(t.taskId).then(
              (c) => (c ? c && isTerminal(c.status) && done(c) : done(undefined, new McpError(invalidParams, `Invalid params: unknown task ${JSON.stringify(t.taskId)} (its TTL elapsed)`))),
              (err) => done(undefined, err),
            ),
          Math.max(0, t.createdAt + t.ttlMs - Date.now()) + 5,
        );
        expiry.unref?.();
      }
      // A shared store's announcements are not queued: one missed while this process's subscription was down a moment
      // would leave the wait without end, so the task is read again as often as leases are renewed.
      const { store } = this.tasks;
      const recheck = store.shared
        ? setInterval(
            () =>
              void store.get(t.taskId).then(
                (c) => c && isTerminal(c.status) && done(c),
                () => {},
              ),
            Math.max(1, Math.floor(this.server.taskOptions.leaseMs / 3)),
          )
        : undefined;
      recheck?.unref?.();
      const done = (value?: TaskRecord, err?: unknown) => {
        clearTimeout(expiry);
        clearInterval(recheck);
        stop();
        signal.removeEventListener("abort", onAbort);
        run?.resultStreams.delete(scope.sink);
        if (value) resolve(value);
        else reject(err);
      };
      const stop = this.tasks.onChange((c) => c.taskId === t.taskId && isTerminal(c.status) && done(c));
      const onAbort = () => done(undefined, signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      // It may have ended between the read and the subscription.
      void this.tasks.store.get(t.taskId).then((c) => c && isTerminal(c.status) && done(c));
    });
  }

  /**
   * tasks/list (core): the caller's tasks of this wire form (visibleIn), paginated: the store's pages are read until
   * one of ours is full. spec/2025-11-25/basic/utilities/tasks.mdx#task-listing
   */
  async list(revision: Revision, params: Result, scope: RequestScope): Promise<Result> {
    // The cursor is the store's (the last task it read): as opaque as the ids themselves.
    let cursor = params.cursor as string | undefined;
    const { pageSize } = this.server.options;
    const store = this.tasks.start();
    const tasks: Result[] = [];
    try {
      do {
        const page = await store.list(ownerKey(taskOwner(scope)), cursor, pageSize - tasks.length);
        for (const t of page.tasks) if (visibleIn(revision, t)) tasks.push(encodeTask(revision, t));
        cursor = page.nextCursor;
      } while (cursor !== undefined && tasks.length < pageSize);
    } catch (err) {
      if (err instanceof RangeError) throw new McpError(errorCode(revision, "INVALID_PARAMS")!, "Invalid params: invalid cursor");
      throw err;
    }
    return { tasks, ...(cursor !== undefined ? { nextCursor: cursor } : {}) };
  }

  /**
   * tasks/cancel. Core: a terminal task is -32602, otherwise it is cancelled before the response, which is the task.
   * Extension: an empty acknowledgement, also for a terminal task (rules: cancelOfTerminalTask).
   */
  async cancel(revision: Revision, params: Result, scope: RequestScope): Promise<Result> {
    const t = await this.owned(revision, params, scope);
    if (isTerminal(t.status)) {
      if (cancelOfTerminalTask(revision) === "acknowledge") return {};
      throw new McpError(errorCode(revision, "INVALID_PARAMS")!, `Invalid params: task ${t.taskId} is already ${t.status}`);
    }
    const after = (await this.tasks.store.update(t.taskId, { status: "cancelled", statusMessage: "cancelled by the client" })) ?? t;
    return taskWireForm(revision) === "core" ? encodeTask(revision, after) : {};
  }

  /** tasks/update (extension): answers to outstanding input requests; unknown or answered keys are ignored. */
  async update(revision: Revision, params: Result, scope: RequestScope): Promise<Result> {
    if (!isObject(params.inputResponses)) throw new McpError(errorCode(revision, "INVALID_PARAMS")!, "Invalid params: inputResponses must be an object");
    const t = await this.owned(revision, params, scope);
    await this.tasks.store.answer(t.taskId, params.inputResponses);
    return {};
  }
}
