import { createServer, type McpServer, type ServerOptions } from "@create-mcp-server/runtime";
import { serverInfo, revisions } from "../generated/manifest.js";
import { register } from "../generated/register.js";

let current: McpServer | undefined;

/**
 * The server: identity and revisions from mcp.json, every declared tool, prompt and resource with its handler from src/.
 * `options` adds runtime options (src/main.ts passes its `logger`; tests may pass `exposeErrors`).
 */
export function buildServer(options: Partial<ServerOptions> = {}): McpServer {
  current = register(createServer({ ...options, ...serverInfo, revisions }));
  return current;
}

/** The running server, for handlers that announce changes (notifyToolsListChanged, notifyResourceUpdated, ...). */
export function currentServer(): McpServer {
  if (!current) throw new Error("the server is not built yet");
  return current;
}
