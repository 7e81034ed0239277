/**
 * Whether a tools/call runs as a task, in the wire form of the revision in force (rules: taskWireForm), and the TTL it
 * gets. spec/2025-11-25/basic/utilities/tasks.mdx#tool-level-negotiation,
 * spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#task-creation
 */
import { type Revision, errorCode, taskWireForm } from "../rules.js";
import { MissingCapabilityError, type McpServer } from "../server/server.js";
import type { CompiledTool } from "../server/registry.js";
import type { TaskSupport } from "../server/types.js";
import { McpError, isObject } from "../wire/jsonrpc.js";
import { TASKS_EXTENSION } from "../wire/meta.js";

type Result = Record<string, unknown>;

/** Whether this request's client capabilities declare the tasks extension. spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#capability-negotiation */
export function declaresTasksExtension(clientCapabilities: Record<string, unknown>): boolean {
  const ext = clientCapabilities.extensions;
  return isObject(ext) && isObject(ext[TASKS_EXTENSION]);
}

/** The error of an extension method (or a taskIds listen filter) from a request that did not declare the extension: -32021. */
export function missingTasksExtension(): MissingCapabilityError {
  return new MissingCapabilityError({ extensions: { [TASKS_EXTENSION]: {} } }, `the request did not declare the ${TASKS_EXTENSION} extension in its client capabilities`);
}

/**
 * Whether a call of `tool` runs as a task ("task") or as an ordinary call ("plain"). Throws McpError (-32601: the
 * tool's task support refuses the call) or MissingCapabilityError (-32021: the tool requires the undeclared extension).
 */
export function taskMode(server: McpServer, revision: Revision, tool: CompiledTool, params: Result, clientCapabilities: Record<string, unknown>): "plain" | "task" {
  const support: TaskSupport = tool.taskSupport ?? "forbidden";
  switch (taskWireForm(revision)) {
    case "core": {
      // Task metadata is ignored where the server does not declare tasks for tools/call (…#task-support-and-handling).
      if (!server.supportsTasks()) return "plain";
      const asked = isObject(params.task);
      const notFound = errorCode(revision, "METHOD_NOT_FOUND")!;
      if (asked && support === "forbidden") throw new McpError(notFound, `Method not found: tool ${tool.name} does not support task-augmented execution (execution.taskSupport is "forbidden")`);
      if (!asked && support === "required") throw new McpError(notFound, `Method not found: tool ${tool.name} must be called as a task (execution.taskSupport is "required"): add params.task`);
      return asked ? "task" : "plain";
    }
    case "extension": {
      // A `task` param is not an opt-in here (SEP-2663 backward compatibility): only the declared extension is.
      if (support === "forbidden") return "plain";
      if (declaresTasksExtension(clientCapabilities)) return "task";
      if (support === "required") throw missingTasksExtension();
      return "plain";
    }
    default:
      return "plain";
  }
}

/** The task's TTL in ms (null: unlimited): the requested one (core) capped at `maxTtlMs`, else the default. */
export function taskTtl(revision: Revision, params: Result, { defaultTtlMs, maxTtlMs }: { defaultTtlMs: number | null; maxTtlMs: number }): number | null {
  const requested = taskWireForm(revision) === "core" && isObject(params.task) ? params.task.ttl : undefined;
  // The receiver MAY override the requested ttl; it reports the actual one. spec/2025-11-25/basic/utilities/tasks.mdx#ttl-and-resource-management
  if (typeof requested === "number" && Number.isFinite(requested) && requested > 0) return Math.min(Math.floor(requested), maxTtlMs);
  return defaultTtlMs;
}
