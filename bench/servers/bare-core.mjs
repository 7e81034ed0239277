// The baseline's whole "protocol": answer initialize and tools/call echo, no validation.
import {
  LEGACY_VERSION,
  MODERN_VERSION,
  PROTOCOL_VERSION_META_KEY,
} from "./common.mjs";

const serverInfo = { name: "bare", version: "1.0.0" };
// A 2026-07-28 result carries the server's identity (servers SHOULD, spec/2026-07-28/basic/index.mdx#_meta), as the
// runtime's do: the baseline writes the same bytes, so the ratio is the runtime's own cost and not its longer answers.
const modernMeta = { "io.modelcontextprotocol/serverInfo": serverInfo };

/** Returns the response object for a request, or null for a notification. */
export function answer(msg) {
  if (msg.id === undefined) return null;
  const params = msg.params ?? {};
  const modern = params._meta?.[PROTOCOL_VERSION_META_KEY] === MODERN_VERSION;
  switch (msg.method) {
    case "initialize":
      return {
        jsonrpc: "2.0",
        id: msg.id,
        result: {
          protocolVersion: params.protocolVersion ?? LEGACY_VERSION,
          capabilities: { tools: {} },
          serverInfo,
        },
      };
    case "tools/call": {
      const result = {
        content: [{ type: "text", text: params.arguments?.text }],
      };
      if (modern) {
        result.resultType = "complete";
        result._meta = modernMeta;
      }
      return { jsonrpc: "2.0", id: msg.id, result };
    }
    case "tools/list": {
      const result = {
        tools: [
          {
            name: "echo",
            description: "Echo",
            inputSchema: {
              type: "object",
              properties: { text: { type: "string" } },
              required: ["text"],
            },
          },
        ],
      };
      if (modern) {
        result.resultType = "complete";
        result._meta = modernMeta;
      }
      return { jsonrpc: "2.0", id: msg.id, result };
    }
    case "ping":
      return {
        jsonrpc: "2.0",
        id: msg.id,
        result: modern ? { resultType: "complete", _meta: modernMeta } : {},
      };
    default:
      return {
        jsonrpc: "2.0",
        id: msg.id,
        error: { code: -32601, message: "Method not found" },
      };
  }
}
