import type { CountdownTool } from "../../generated/handlers.js";

/**
 * Long-running work. Its taskSupport is "optional" (mcp.json): a client that can take a task gets one at once and
 * polls it (2025-11-25: a task-augmented call; 2026-07-28: the io.modelcontextprotocol/tasks extension declared),
 * any other client simply waits for the result. The same handler serves both: `ctx.task` is set when it runs as a
 * task, and `ctx.signal` fires when the task is cancelled (tasks/cancel) or the request is.
 */
export const handler: CountdownTool = async ({ seconds }, ctx) => {
  const steps = Math.max(1, Math.ceil(seconds));
  for (let step = 0; step < steps; step++) {
    ctx.task?.status(`${steps - step} of ${steps} left`);
    ctx.progress(step, steps);
    await wait((seconds * 1000) / steps, ctx.signal);
  }
  ctx.progress(steps, steps);
  return { content: [{ type: "text", text: `Counted down ${seconds} s` }] };
};

/** Resolve after `ms`, or reject with the signal's reason as soon as it fires. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
