// @modelcontextprotocol/sdk 1.x over Streamable HTTP (StreamableHTTPServerTransport,
// default response mode = SSE stream per POST). Legacy era only.
//   default:      stateful — one McpServer + transport per session (Mcp-Session-Id)
//   --stateless:  a fresh McpServer + transport per request (the documented idiom)
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { makeServer } from "./sdk1-tool.mjs";
import { announce, listenPort } from "./common.mjs";

const stateless = process.argv.includes("--stateless");
const transports = new Map();

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch (e) {
        reject(e);
      }
    });
    req.on("error", reject);
  });
}

async function handleStateless(req, res) {
  const server = makeServer();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
  });
  res.on("close", () => {
    transport.close();
    server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

async function handleStateful(req, res) {
  const sessionId = req.headers["mcp-session-id"];
  let transport = sessionId ? transports.get(sessionId) : undefined;
  if (transport) {
    await transport.handleRequest(req, res);
    return;
  }
  if (req.method !== "POST") {
    res.writeHead(400).end();
    return;
  }
  const body = await readJson(req);
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
  transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => transports.set(id, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId) transports.delete(transport.sessionId);
  };
  await makeServer().connect(transport);
  await transport.handleRequest(req, res, body);
}

const server = createServer((req, res) => {
  if (new URL(req.url, "http://x").pathname !== "/mcp") {
    res.writeHead(404).end();
    return;
  }
  (stateless ? handleStateless : handleStateful)(req, res).catch((err) => {
    process.stderr.write(`error: ${err?.stack ?? err}\n`);
    if (!res.headersSent) res.writeHead(500).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(listenPort(), "127.0.0.1", () => announce(server));
