// @modelcontextprotocol/server (v2) over Streamable HTTP on node:http.
//   default:     createMcpHandler(factory) + toNodeHandler — serves 2026-07-28 per
//                request and 2025-era traffic through its stateless legacy fallback.
//   --sessions:  2025-era traffic routed (isLegacyRequest) to a sessionful
//                NodeStreamableHTTPServerTransport wiring (one McpServer per session),
//                everything else to createMcpHandler(factory, { legacy: "reject" }).
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
} from "@modelcontextprotocol/server";
import {
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  toWebRequest,
} from "@modelcontextprotocol/node";
import { makeServer } from "./sdk2-tool.mjs";
import { announce, listenPort } from "./common.mjs";

const sessions = process.argv.includes("--sessions");
const onerror = (err) => process.stderr.write(`error: ${err?.stack ?? err}\n`);

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      try {
        resolve(
          chunks.length
            ? JSON.parse(Buffer.concat(chunks).toString("utf8"))
            : undefined,
        );
      } catch (e) {
        reject(e);
      }
    });
    req.on("error", reject);
  });
}

let handle;
if (!sessions) {
  handle = toNodeHandler(createMcpHandler(makeServer, { onerror }), {
    onerror,
  });
} else {
  const modern = toNodeHandler(
    createMcpHandler(makeServer, { legacy: "reject", onerror }),
    { onerror },
  );
  const transports = new Map();
  handle = async (req, res) => {
    const body = req.method === "POST" ? await readJson(req) : undefined;
    const probe = await toWebRequest(req, body);
    if (!(await isLegacyRequest(probe, body))) return modern(req, res, body);
    const sessionId = req.headers["mcp-session-id"];
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (transport) return transport.handleRequest(req, res, body);
    if (sessionId || !isInitializeRequest(body)) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: null,
          error: {
            code: -32000,
            message: "Bad Request: No valid session ID provided",
          },
        }),
      );
      return;
    }
    transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => transports.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await makeServer().connect(transport);
    return transport.handleRequest(req, res, body);
  };
}

const server = createServer((req, res) => {
  if (new URL(req.url, "http://x").pathname !== "/mcp") {
    res.writeHead(404).end();
    return;
  }
  Promise.resolve(handle(req, res)).catch((err) => {
    onerror(err);
    if (!res.headersSent) res.writeHead(500).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(listenPort(), "127.0.0.1", () => announce(server));
