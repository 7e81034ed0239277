// OUR server through its web-standard entry point: server.fetchHandler() served on Node by
// @hono/node-server (the adapter Hono apps use), set up like runtime-echo.mjs. Measures what a
// Workers/Deno/Bun-style deployment costs on Node: Request/Response objects and ReadableStream
// bodies instead of node:http's req/res.
import { serve } from "@hono/node-server";
import { createServer, fromAjv } from "../../runtime/dist/index.js";
import validateEcho from "../.generated/echo-input.mjs";

const server = createServer({ name: "bench", version: "1.0.0" });
server.tool({
  name: "echo",
  description: "Echo",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
  },
  validateInput: fromAjv(validateEcho),
  handler: async ({ text }) => ({ content: [{ type: "text", text }] }),
});
const handler = server.fetchHandler({ path: "/mcp" });
const http = serve(
  {
    fetch: handler,
    hostname: "127.0.0.1",
    port: Number(process.env.PORT ?? 0),
  },
  (info) =>
    process.stderr.write(`listening http://127.0.0.1:${info.port}/mcp\n`),
);
process.on("SIGTERM", () => http.close(() => process.exit(0)));
