// OUR server through its web-standard entry point: server.fetchHandler() served on Node by
// @hono/node-server (the adapter Hono apps use). Measures what a Workers/Deno/Bun-style
// deployment costs on Node: Request/Response objects and ReadableStream bodies instead of
// node:http's req/res.
import { serve } from "@hono/node-server";
import { benchServer } from "./runtime-server.mjs";

const handler = benchServer().fetchHandler({ path: "/mcp" });
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
