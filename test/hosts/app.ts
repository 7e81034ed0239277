/**
 * The MCP server every host serves (Node frameworks, workerd, Bun, Deno): an `echo` tool, and an `ask` tool that
 * elicits a name (in the modern era a multi round-trip request, whose requestState the runtime seals with HMAC:
 * spec/2026-07-28/basic/patterns/mrtr.mdx). Imported from the built runtime (runtime/dist), exactly as a generated
 * project imports the runtime package.
 */
import { createServer, type McpServer, type SchemaValidator } from "../../runtime/dist/index.js";

export const ECHO_INPUT = { type: "object", properties: { text: { type: "string" } }, required: ["text"] } as const;
export const ASK_INPUT = { type: "object", properties: {} } as const;

export interface AppOptions {
  /**
   * Precompiled validators of the tools' arguments. workerd forbids code generation from strings, so ajv cannot
   * compile `inputSchema` there; a Worker passes the ajv standalone validators made at bundle time (bundle.ts).
   */
  validators?: { echo: SchemaValidator; ask: SchemaValidator };
}

export function makeServer(options: AppOptions = {}): McpServer {
  const server = createServer({ name: "hosts-fixture", version: "1.0.0" });
  server.tool({
    name: "echo",
    description: "Returns its text",
    inputSchema: ECHO_INPUT,
    validateInput: options.validators?.echo,
    handler: ({ text }) => ({ content: [{ type: "text", text: String(text) }] }),
  });
  server.tool({
    name: "ask",
    description: "Asks the user for a name and greets them",
    inputSchema: ASK_INPUT,
    validateInput: options.validators?.ask,
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } });
      return { content: [{ type: "text", text: answer.action === "accept" ? `hello ${String(answer.content?.name)}` : answer.action }] };
    },
  });
  return server;
}
