// The echo tool on an @modelcontextprotocol/sdk 1.x McpServer.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export function makeServer() {
  const server = new McpServer({ name: "bench-sdk1", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echo", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}
