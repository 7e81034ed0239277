/**
 * The MCP server every host serves (Node frameworks, workerd, Bun, Deno): one `echo` tool. Imported from the
 * built runtime (runtime/dist), exactly as a generated project imports the runtime package.
 */
import { createServer, type McpServer, type SchemaValidator } from "../../runtime/dist/index.js";

export const ECHO_INPUT = { type: "object", properties: { text: { type: "string" } }, required: ["text"] } as const;

export interface AppOptions {
  /**
   * A precompiled validator of echo's arguments. workerd forbids code generation from strings, so ajv cannot compile
   * `inputSchema` there; a Worker passes the ajv standalone validator made at bundle time (bundle.ts).
   */
  validateEcho?: SchemaValidator;
}

export function makeServer(options: AppOptions = {}): McpServer {
  const server = createServer({ name: "hosts-fixture", version: "1.0.0" });
  server.tool({
    name: "echo",
    description: "Returns its text",
    inputSchema: ECHO_INPUT,
    validateInput: options.validateEcho,
    handler: ({ text }) => ({ content: [{ type: "text", text: String(text) }] }),
  });
  return server;
}
