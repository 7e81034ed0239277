// The runtime server every runtime bench entry serves: one echo tool, set up as a scaffolded
// project sets it up (its input validator precompiled by ajv standalone in bench/lib/precompile.mjs,
// run by bench/run.mjs, so ajv itself is never loaded at run time).
import { createServer, fromAjv } from "../../runtime/dist/index.js";
import validateEcho from "../.generated/echo-input.mjs";

export function benchServer() {
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
  return server;
}
