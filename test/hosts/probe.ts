/**
 * Loads the runtime in the host that runs this module and answers MCP requests through the in-process API
 * (Connection + a sink), with no HTTP involved: proves that the runtime itself loads and dispatches in that host
 * (its generated validators imported, echo's schema compiled or precompiled) apart from any transport entry point.
 */
import { Connection, type JsonRpcMessage, type McpServer } from "../../runtime/dist/index.js";

export const PROBE_VERSION = "2026-07-28";
const meta = {
  "io.modelcontextprotocol/protocolVersion": PROBE_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "host-probe", version: "1.0.0" },
};

export interface ProbeResult {
  discover: JsonRpcMessage[];
  echo: JsonRpcMessage[];
}

/** server/discover and a tools/call of `echo`, each on a fresh modern HTTP connection: the messages each sink got. */
export async function probe(server: McpServer): Promise<ProbeResult> {
  const ask = async (message: JsonRpcMessage): Promise<JsonRpcMessage[]> => {
    const got: JsonRpcMessage[] = [];
    const connection = new Connection(server, { send: (m) => void got.push(m) }, { transport: "http", era: "modern" });
    try {
      await connection.receive(message);
    } finally {
      connection.close();
    }
    return got;
  };
  return {
    discover: await ask({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } }),
    echo: await ask({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "hi" }, _meta: meta } }),
  };
}
