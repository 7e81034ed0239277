/**
 * The two host entry points the runtime is gaining (declared here so that the host tests type-check before they
 * land; delete this file once runtime/src declares them: their signatures below are the contract the tests use).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HttpOptions } from "../../runtime/dist/index.js";

export type HostHandlerOptions = Pick<
  HttpOptions,
  "path" | "allowedOrigins" | "allowedHosts" | "allowRemote" | "maxBodyBytes" | "sessionIdleMs" | "maxSessions" | "keepAliveMs"
>;

declare module "../../runtime/dist/runtime/src/server.js" {
  interface McpServer {
    /** node:http / Express / Fastify (raw) / Connect: serves every request that reaches it as the MCP endpoint. */
    nodeHandler(options?: HostHandlerOptions): (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;
    /** Web-standard handler: Hono, workerd, Deno, Bun, Next.js route handlers. */
    fetchHandler(options?: HostHandlerOptions): (request: Request) => Promise<Response>;
  }
}
