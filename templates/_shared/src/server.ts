import { createServer, type McpServer } from "@create-mcp-server/runtime";
import { serverInfo, revisions } from "../generated/manifest.js";
import { register } from "../generated/register.js";

/** The server: identity and revisions from mcp.json, every declared tool, prompt and resource with its handler from src/. */
export function buildServer(): McpServer {
  return register(createServer({ ...serverInfo, revisions }));
}
