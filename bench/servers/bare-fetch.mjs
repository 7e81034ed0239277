// Baseline for the fetch-handler row: the bare handler of bare-http.mjs as a web-standard
// fetch handler served by @hono/node-server, so the adapter's own cost is visible apart from
// the runtime's (runtime-fetch.mjs runs the runtime through the same adapter).
import { serve } from "@hono/node-server";
import { randomUUID } from "node:crypto";
import { answer } from "./bare-core.mjs";

const http = serve(
  {
    fetch: async (request) => {
      const msg = JSON.parse(await request.text());
      const out = answer(msg);
      if (!out) return new Response(null, { status: 202 });
      const headers = { "content-type": "application/json" };
      if (msg.method === "initialize") headers["mcp-session-id"] = randomUUID();
      return new Response(JSON.stringify(out), { status: 200, headers });
    },
    hostname: "127.0.0.1",
    port: Number(process.env.PORT ?? 0),
  },
  (info) =>
    process.stderr.write(`listening http://127.0.0.1:${info.port}/mcp\n`),
);
process.on("SIGTERM", () => http.close(() => process.exit(0)));
