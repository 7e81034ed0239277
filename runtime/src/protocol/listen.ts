/**
 * subscriptions/listen (modern): acknowledge first with the honoured filter, then deliver matching events tagged with
 * the subscription id (the listen request's id) until the client cancels (no response then) or the server ends it (a
 * result, preceded on stdio by notifications/cancelled). spec/2026-07-28/basic/patterns/subscriptions.mdx
 */
import type { McpServer } from "../server/server.js";
import { META_SUBSCRIPTION_ID } from "../wire/meta.js";
import { encodeDetailedTask } from "../wire/tasks.js";
import type { HandlerContext } from "./context.js";
import { declaresTasksExtension, missingTasksExtension } from "./task-decision.js";
import { ownerKey, taskOwner } from "./task-owner.js";
import { tasksFor } from "./tasks.js";

/** Where a listen's stream is, besides its request. */
export interface ListenLink {
  /** Where the listen registers its end, so that its link or endpoint can end it gracefully (stdin EOF, an HTTP endpoint closing). */
  readonly ends: Set<() => void> | undefined;
  /** stdio: the server ending it also sends notifications/cancelled. */
  readonly stdio: boolean;
}

/** Serve one subscriptions/listen request on `ctx.sink` until it ends; resolves with its result. */
export async function listen(server: McpServer, params: Record<string, unknown>, ctx: HandlerContext, { ends, stdio }: ListenLink): Promise<Record<string, unknown>> {
  const id = ctx.requestId;
  const sink = ctx.sink;
  const tagged = (p: Record<string, unknown>) => ({ ...p, _meta: { [META_SUBSCRIPTION_ID]: id } });
  const requested = (params.notifications ?? {}) as Record<string, unknown>;
  // Task notifications only for a request that declares the tasks extension (-32021 otherwise).
  // spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#task-status-notifications
  if (requested.taskIds !== undefined && !declaresTasksExtension(ctx.clientCapabilities)) throw missingTasksExtension();
  const filter = server.honourFilter(requested);
  sink.send({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: tagged({ notifications: filter }) });
  let end!: () => void;
  const ended = new Promise<void>((r) => (end = r));
  const stop = server.onEvent((e) => {
    if (ctx.signal.aborted) return;
    if (e.filter === "end") return end();
    const wanted = e.filter === "resourceSubscriptions" ? (filter.resourceSubscriptions as string[] | undefined)?.includes(e.uri ?? "") : filter[e.filter] === true;
    if (wanted) sink.send({ jsonrpc: "2.0", method: e.method, params: tagged(e.uri === undefined ? {} : { uri: e.uri }) });
  });
  const taskIds = filter.taskIds as string[] | undefined;
  let stopTasks: (() => void) | undefined;
  if (taskIds?.length) {
    // Each notification carries the complete DetailedTask; only the caller's own tasks.
    const owner = ownerKey(taskOwner(ctx.scope));
    const supervisor = tasksFor(server).supervisor;
    supervisor.start();
    stopTasks = supervisor.onChange((t) => {
      if (ctx.signal.aborted || !taskIds.includes(t.taskId) || t.owner !== owner) return;
      sink.send({ jsonrpc: "2.0", method: "notifications/tasks", params: tagged(encodeDetailedTask(ctx.revision, t)) });
    });
  }
  ctx.signal.addEventListener("abort", () => end());
  ends?.add(end);
  try {
    await ended;
  } finally {
    stop();
    stopTasks?.();
    ends?.delete(end);
  }
  if (!ctx.signal.aborted && stdio) {
    sink.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "the server ended the subscription" } });
  }
  return { _meta: { [META_SUBSCRIPTION_ID]: id } };
}
