/**
 * @create-mcp-server/runtime: a dual-era MCP server runtime.
 *
 *   const server = createServer({ name: "my-server", version: "1.0.0" });
 *   server.tool({ name: "echo", inputSchema: {...}, handler: async ({ text }) => ({ content: [{ type: "text", text }] }) });
 *   await server.serveStdio();
 */
import { McpServer, type ServerOptions } from "./server/server.js";
import { serveStdio, type StdioOptions } from "./transport/stdio.js";
import type { HttpHandle, HttpOptions } from "./transport/http/transport.js";

export * from "./server/server.js";
export { McpError, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse, type RequestId } from "./wire/jsonrpc.js";
export { Connection, type Sink, META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL } from "./protocol/connection.js";
export { compileSchema, fromAjv, type SchemaValidator } from "./server/schema.js";
export { serveStdio, type StdioOptions } from "./transport/stdio.js";
export type { HttpHandle, HttpOptions } from "./transport/http/transport.js";

/**
 * Serve `server` over Streamable HTTP. The HTTP transport is loaded on first use, so a stdio server never pays for it.
 * spec/2026-07-28/basic/transports/streamable-http.mdx
 */
export async function serveHttp(server: McpServer, options?: HttpOptions): Promise<HttpHandle> {
  return (await import("./transport/http/transport.js")).serveHttp(server, options);
}
export * as rules from "./rules.js";

declare module "./server/server.js" {
  interface McpServer {
    /** Serve on stdin/stdout until EOF (then exit 0). spec/2025-11-25/basic/transports.mdx#stdio */
    serveStdio(options?: StdioOptions): Promise<void>;
    /** Serve Streamable HTTP (both eras) on 127.0.0.1 by default; resolves once listening. spec/2026-07-28/basic/transports/streamable-http.mdx */
    serveHttp(options?: HttpOptions): Promise<HttpHandle>;
  }
}
McpServer.prototype.serveStdio = function (this: McpServer, options?: StdioOptions) {
  return serveStdio(this, options);
};
McpServer.prototype.serveHttp = function (this: McpServer, options?: HttpOptions) {
  return serveHttp(this, options);
};

export function createServer(options: ServerOptions): McpServer {
  return new McpServer(options);
}

export { McpClient, ClientError, StdioClientTransport, ALL_REVISIONS, type ClientTransport, type ClientOptions, type Delivery, type RequestOptions } from "./client/client.js";
export { StreamableHttpClientTransport, SseClientTransport, type HttpClientOptions } from "./client/http.js";
