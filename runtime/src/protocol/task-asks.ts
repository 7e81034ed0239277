/**
 * How a task's handler asks the client (`ctx.elicit/sample/listRoots`), one strategy per wire form of tasks
 * (rules: taskWireForm). Both wait until the task is stored (TaskRun.ask).
 */
import { describeErrors, errorCode, validatorsFor } from "../rules.js";
import { McpError, isObject } from "../wire/jsonrpc.js";
import { META_RELATED_TASK } from "../wire/meta.js";
import type { ClientAsk, RequestScope } from "./request.js";
import type { TaskAskStrategy, TaskRun } from "./task-run.js";

type Result = Record<string, unknown>;

/**
 * 2025-11-25: a request to the client carrying the related-task `_meta`, sent on a waiting tasks/result stream if there
 * is one, else on the link; the task is input_required meanwhile. spec/2025-11-25/basic/utilities/tasks.mdx#input-required-status
 */
export const coreTaskAsks: TaskAskStrategy = {
  async ask(run: TaskRun, { method, params }: ClientAsk): Promise<Result> {
    const withMeta = { ...(params ?? {}), _meta: { ...((params?._meta as Result) ?? {}), [META_RELATED_TASK]: { taskId: run.id } } };
    const stream = [...run.resultStreams].pop();
    const scope: RequestScope = stream ? { ...run.scope, sink: stream } : run.scope;
    const link = scope.link;
    await run.store.update(run.id, { status: "input_required" });
    try {
      if (!link) throw new McpError(errorCode(run.revision, "INTERNAL_ERROR")!, `${method}: no link to ask the client on`);
      return await link.askClient(scope, method, withMeta);
    } finally {
      await run.store.update(run.id, { status: "working" });
    }
  },
};

/**
 * The 2026-07-28 extension: an input request of the task, answered by tasks/update; an answer that is not a valid result
 * of the asked method fails the ask (-32602; the handler decides what follows).
 * spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#task-update-requests
 */
export const extensionTaskAsks: TaskAskStrategy = {
  async ask(run: TaskRun, { method, capability, params, key }: ClientAsk): Promise<Result> {
    const k = run.key(capability, key);
    const answer = new Promise<Result>((resolve, reject) => run.waiting.set(k, { resolve, reject, method }));
    const onAbort = () => run.waiting.get(k)?.reject(run.flight.signal.reason);
    run.flight.signal.addEventListener("abort", onAbort, { once: true });
    await run.store.update(run.id, { ask: { key: k, request: { method, params: params ?? {} } } });
    try {
      const value = await answer;
      await run.store.update(run.id, { take: k });
      const loaded = validatorsFor(run.revision);
      const validate = (loaded instanceof Promise ? await loaded : loaded).answerValidators[method];
      if (!isObject(value) || (validate && !validate(value))) {
        throw new McpError(errorCode(run.revision, "INVALID_PARAMS")!, `Invalid params: inputResponses["${k}"] is not a valid ${method} result${validate ? `: ${describeErrors(validate)}` : ""}`);
      }
      return value;
    } finally {
      run.flight.signal.removeEventListener("abort", onAbort);
    }
  },
};
