// The echo tool on an @modelcontextprotocol/server (v2) McpServer; used as the
// per-connection / per-request factory the v2 serving entries expect.
import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

export function makeServer() {
  const server = new McpServer({ name: "bench-sdk2", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echo", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}
