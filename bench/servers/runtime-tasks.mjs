// The runtime over HTTP with a task-capable tool, for bench/tasks.mjs. MCP_TASK_STORE picks the store.
import { createServer } from "../../runtime/dist/index.js";

const server = createServer({
  name: "bench-tasks",
  version: "1.0.0",
  logging: false,
});
server.tool({
  name: "echo",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
  handler: ({ text }) => ({ content: [{ type: "text", text: text ?? "" }] }),
});
server.tool({
  name: "job",
  taskSupport: "optional",
  inputSchema: { type: "object" },
  // Settles after a timer, so it always becomes a task (a run that settles before its first macrotask answers directly).
  handler: () =>
    new Promise((r) =>
      setTimeout(() => r({ content: [{ type: "text", text: "done" }] }), 1),
    ),
});
await server.serveHttp({
  host: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
});
