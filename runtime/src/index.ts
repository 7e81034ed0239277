/**
 * @create-mcp-server/runtime: a dual-era MCP server runtime.
 *
 *   const server = createServer({ name: "my-server", version: "1.0.0" });
 *   server.tool({ name: "echo", inputSchema: {...}, handler: async ({ text }) => ({ content: [{ type: "text", text }] }) });
 *   await server.serveStdio();
 */
import { McpServer } from "./server/server.js";
import { protocolCore } from "./protocol/core.js";
import { checkAuthorization } from "./transport/http/authorization-config.js";
import { serveStdio as serveStdioCore, type StdioOptions } from "./transport/stdio.js";
import type { CloseOptions, HandlerOptions, HttpOptions } from "./transport/http/options.js";
import type { HttpHandle, NodeHandler } from "./transport/http/node.js";
import type { FetchHandler } from "./transport/http/fetch.js";

export * from "./server/server.js";
export { McpError, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse, type RequestId } from "./wire/jsonrpc.js";
export { Connection, type Sink, META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL } from "./protocol/connection.js";
export { compileSchema, fromAjv, type SchemaValidator } from "./server/schema.js";
export type { StdioOptions } from "./transport/stdio.js";

/** Serve `server` on stdin/stdout until EOF (then exit 0). spec/2025-11-25/basic/transports.mdx#stdio */
export function serveStdio(server: McpServer, options?: StdioOptions): Promise<void> {
  return serveStdioCore(protocolCore(server), options);
}
export type { HandlerOptions, HttpOptions, HttpLimits, ClientOf } from "./transport/http/options.js";
export type { MessageLimits } from "./protocol/limits.js";
export { loadTelemetry } from "./protocol/telemetry.js";
export type { AuthorizationOptions, VerifyContext } from "./transport/http/authorization-config.js";
export type { HttpHandle, NodeHandler } from "./transport/http/node.js";
export type { FetchHandler } from "./transport/http/fetch.js";
export type { CloseOptions } from "./transport/http/options.js";

/**
 * Serve `server` over Streamable HTTP. The HTTP transport is loaded on first use, so a stdio server never pays for it.
 * spec/2026-07-28/basic/transports/streamable-http.mdx
 */
export async function serveHttp(server: McpServer, options?: HttpOptions): Promise<HttpHandle> {
  return (await import("./transport/http/node.js")).serveHttp(protocolCore(server), options);
}
export * as rules from "./rules.js";

declare module "./server/server.js" {
  interface McpServer {
    /** Serve on stdin/stdout until EOF (then exit 0). spec/2025-11-25/basic/transports.mdx#stdio */
    serveStdio(options?: StdioOptions): Promise<void>;
    /** Serve Streamable HTTP (both eras) on 127.0.0.1 by default; resolves once listening. spec/2026-07-28/basic/transports/streamable-http.mdx */
    serveHttp(options?: HttpOptions): Promise<HttpHandle>;
    /**
     * The MCP endpoint as a `(req, res, next?)` handler for node:http, Express, Fastify or Connect, at any path (every
     * request that reaches it is for the endpoint, unless `options.path` narrows it). Same security defaults as serveHttp.
     */
    nodeHandler(options?: HandlerOptions): NodeHandler;
    /**
     * The MCP endpoint as a web-standard `(request: Request) => Promise<Response>` handler, for Hono, Cloudflare Workers,
     * Deno, Bun and Next.js route handlers. Legacy sessions live in the isolate or process that created them.
     */
    fetchHandler(options?: HandlerOptions): FetchHandler;
  }
}
McpServer.prototype.serveStdio = function (this: McpServer, options?: StdioOptions) {
  return serveStdio(this, options);
};
McpServer.prototype.serveHttp = function (this: McpServer, options?: HttpOptions) {
  return serveHttp(this, options);
};

/**
 * A handler usable at once while its module loads (the HTTP side is loaded on first use, so a stdio server never
 * pays for it): requests that arrive before it has loaded wait for it. `wrap` gives the handler its declared
 * parameters: hosts read a handler's arity (Deno.serve passes no Request to one declaring none; Express takes one
 * declaring four for an error handler), so a rest-parameter wrapper would not do.
 */
function lazyHandler<H extends ((...args: never[]) => unknown) & { close(options?: CloseOptions): Promise<void> }>(
  load: Promise<H>,
  wrap: (current: () => H | Promise<H>) => (...args: Parameters<H>) => unknown,
): H {
  let loaded: H | undefined;
  // A load that fails rejects every request's promise; it is not also an unhandled rejection.
  load.then(
    (h) => (loaded = h),
    () => {},
  );
  return Object.assign(
    wrap(() => loaded ?? load),
    { close: (options?: CloseOptions) => load.then((h) => h.close(options)) },
  ) as unknown as H;
}
/** A handler cannot derive its public URL: with authorization it must be given (thrown at once, not at the first request). */
function checkHandlerOptions(options: HandlerOptions | undefined, what: string): void {
  if (options?.authorization) checkAuthorization(options.authorization, what);
}
McpServer.prototype.nodeHandler = function (this: McpServer, options?: HandlerOptions) {
  checkHandlerOptions(options, "nodeHandler");
  return lazyHandler<NodeHandler>(
    import("./transport/http/node.js").then((m) => m.nodeHandler(protocolCore(this), options)),
    (current) => (req, res, next) => {
      const h = current();
      return h instanceof Promise ? h.then((loaded) => loaded(req, res, next)) : h(req, res, next);
    },
  );
};
McpServer.prototype.fetchHandler = function (this: McpServer, options?: HandlerOptions) {
  checkHandlerOptions(options, "fetchHandler");
  return lazyHandler<FetchHandler>(
    import("./transport/http/fetch.js").then((m) => m.fetchHandler(protocolCore(this), options)),
    (current) => (request) => {
      const h = current();
      return h instanceof Promise ? h.then((loaded) => loaded(request)) : h(request);
    },
  );
};

export { StdioClientTransport } from "./client/stdio.js";
export { McpClient, ClientError, ALL_REVISIONS, type ClientTransport, type ClientOptions, type Delivery, type RequestOptions } from "./client/client.js";
export { StreamableHttpClientTransport, SseClientTransport, type HttpClientOptions } from "./client/http.js";

declare const __RUNTIME_VERSION__: string | undefined;
/**
 * The version of `@create-mcp-server/runtime` this code was built as (its package.json's, set by runtime/build.mjs),
 * e.g. "0.1.0": what a project's `--version` reports, so that an upgrade can be seen in the process that runs.
 */
export const RUNTIME_VERSION: string = typeof __RUNTIME_VERSION__ === "string" ? __RUNTIME_VERSION__ : "0.0.0-unbuilt";
