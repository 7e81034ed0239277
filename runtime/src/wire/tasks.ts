/**
 * A task on the wire, in the form of the revision in force (rules: taskWireForm). Pure: takes the stored task.
 *
 * - "core" (2025-11-25): `Task` carries `ttl` and `pollInterval`; CreateTaskResult nests it under `task`; tasks/get and
 *   tasks/cancel answer the task itself. spec/2025-11-25/basic/utilities/tasks.mdx#data-types
 * - "extension" (2026-07-28, `io.modelcontextprotocol/tasks`): `ttlMs` and `pollIntervalMs`; CreateTaskResult is flat
 *   with `resultType: "task"`; tasks/get answers a DetailedTask that inlines `inputRequests`, `result` or `error` by
 *   status. spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#tasks
 */
import { type Revision, errorCode, taskWireForm } from "../rules.js";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** Terminal statuses never change. spec/2025-11-25/basic/utilities/tasks.mdx#task-status-lifecycle */
export const isTerminal = (status: TaskStatus): boolean => status === "completed" || status === "failed" || status === "cancelled";

/** What a task on the wire is made from (times in ms since the epoch, durations in ms). */
export interface TaskState {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: number;
  lastUpdatedAt: number;
  /** Retention from creation; null: unlimited. */
  ttlMs: number | null;
  pollIntervalMs?: number;
  /** completed (and, in 2025-11-25, failed by a tool error): the underlying request's result, encoded for the revision. */
  result?: Record<string, unknown>;
  /** failed by a JSON-RPC error: that error. */
  error?: { code: number; message: string; data?: unknown };
  /** input_required (extension): the outstanding requests, by key. */
  inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The `Task` object of `revision`: no status-specific fields (tasks/list, the core form everywhere, CreateTaskResult). */
export function encodeTask(revision: Revision, t: TaskState): Record<string, unknown> {
  const out: Record<string, unknown> = { taskId: t.taskId, status: t.status };
  if (t.statusMessage !== undefined) out.statusMessage = t.statusMessage;
  out.createdAt = iso(t.createdAt);
  out.lastUpdatedAt = iso(t.lastUpdatedAt);
  if (taskWireForm(revision) === "core") {
    out.ttl = t.ttlMs;
    if (t.pollIntervalMs !== undefined) out.pollInterval = t.pollIntervalMs;
  } else {
    out.ttlMs = t.ttlMs;
    if (t.pollIntervalMs !== undefined) out.pollIntervalMs = t.pollIntervalMs;
  }
  return out;
}

/**
 * The extension's DetailedTask (tasks/get, notifications/tasks): the task plus, by status, every outstanding
 * `inputRequests`, the `result` or the `error`. spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#response
 */
export function encodeDetailedTask(revision: Revision, t: TaskState): Record<string, unknown> {
  const out = encodeTask(revision, t);
  if (t.status === "input_required") out.inputRequests = t.inputRequests ?? {};
  else if (t.status === "completed") out.result = t.result ?? { content: [] };
  else if (t.status === "failed") out.error = t.error ?? { code: errorCode(revision, "INTERNAL_ERROR")!, message: t.statusMessage ?? "the task failed" };
  return out;
}

/** CreateTaskResult: nested under `task` (core) or flat with `resultType: "task"` (extension). */
export function createTaskResult(revision: Revision, t: TaskState): Record<string, unknown> {
  if (taskWireForm(revision) === "core") return { task: encodeTask(revision, t) };
  return { ...encodeTask(revision, t), resultType: "task" };
}
