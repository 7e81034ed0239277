// OUR server: the create-mcp-server runtime (built to runtime/dist by `npm run build`), set up
// as a scaffolded project sets it up: the tool's input validator precompiled by ajv standalone
// (bench/lib/precompile.mjs, run by bench/run.mjs), so ajv itself is never loaded at run time.
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
const transport = process.argv.includes("--http") ? "http" : "stdio";
if (transport === "http")
  await server.serveHttp({
    host: "127.0.0.1",
    port: Number(process.env.PORT ?? 0),
  }); // prints "listening http://127.0.0.1:PORT/mcp" to stderr
else await server.serveStdio();
