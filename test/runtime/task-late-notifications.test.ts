/**
 * A task's notifications stop when the task ends: a handler that notifies after it returned (a forgotten timer)
 * sends nothing once the task is terminal, as progress MUST stop after completion. 2025-11-25 core tasks, in process
 * against the protocol core (Connection), expectations written by hand.
 * spec/2025-11-25/basic/utilities/progress.mdx#behavior-requirements, spec/2025-11-25/basic/utilities/tasks.mdx
 */
import { expect, it } from "vitest";
import { createServer } from "../../runtime/dist/index.js";
import { inProcessLink } from "./in-process.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("a task's handler that reports progress after it returned sends nothing more once the task completed", async () => {
  const server = createServer({ name: "late", version: "1" });
  let late: Promise<void> | undefined;
  server.tool({
    name: "work",
    taskSupport: "optional",
    inputSchema: { type: "object" },
    handler: (_args, ctx) => {
      ctx.progress(1, 2);
      late = sleep(30).then(() => ctx.progress(2, 2));
      return { content: [{ type: "text", text: "done" }] };
    },
  });
  const c = inProcessLink(server);
  const { out, send } = c;
  await c.initialize("2025-11-25");
  await send({ id: 1, method: "tools/call", params: { name: "work", arguments: {}, task: { ttl: 60_000 }, _meta: { progressToken: "p" } } });
  const taskId = out.find((m) => m.id === 1)?.result?.task?.taskId;
  expect(taskId, JSON.stringify(out)).toEqual(expect.any(String));
  await send({ id: 2, method: "tasks/result", params: { taskId } });
  expect(out.find((m) => m.id === 2)?.result?.content).toEqual([{ type: "text", text: "done" }]);
  await late;
  await sleep(5);
  const progress = out.filter((m) => m.method === "notifications/progress").map((m) => m.params.progress);
  expect(progress).toEqual([1]);
  c.close();
});

it("2026-07-28 extension: a task-capable call answered directly (settled before its first macrotask) sends nothing after its response", async () => {
  // spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#task-creation, spec/2026-07-28/basic/patterns/progress.mdx
  const server = createServer({ name: "late", version: "1" });
  let late: Promise<void> | undefined;
  server.tool({
    name: "quick",
    taskSupport: "optional",
    inputSchema: { type: "object" },
    handler: (_args, ctx) => {
      late = sleep(30).then(() => (ctx.progress(2, 2), ctx.log("info", "late")));
      return { content: [{ type: "text", text: "quick" }] };
    },
  });
  const c = inProcessLink(server);
  const { out } = c;
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
    "io.modelcontextprotocol/logLevel": "debug",
    progressToken: "p",
  };
  await c.send({ id: 1, method: "tools/call", params: { name: "quick", arguments: {}, _meta: meta } });
  await late;
  await sleep(5);
  expect(out.map((m) => m.method ?? `response ${m.id}`)).toEqual(["response 1"]);
  expect(out[0].result).toMatchObject({ content: [{ type: "text", text: "quick" }], resultType: "complete" });
  c.close();
});
