// OUR server: the create-mcp-server runtime (built to runtime/dist by `npm run build`).
import { createServer } from "../../runtime/dist/index.js";
const server = createServer({ name: "bench", version: "1.0.0" });
server.tool({
  name: "echo",
  description: "Echo",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  handler: async ({ text }) => ({ content: [{ type: "text", text }] }),
});
const transport = process.argv.includes("--http") ? "http" : "stdio";
if (transport === "http") await server.serveHttp({ host: "127.0.0.1", port: Number(process.env.PORT ?? 0) }); // prints "listening http://127.0.0.1:PORT/mcp" to stderr
else await server.serveStdio();
