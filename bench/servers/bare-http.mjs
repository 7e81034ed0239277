// Baseline: a bare node:http handler for POST /mcp, no validation. Hands out a
// session id on initialize (never checked), answers JSON only.
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { answer } from "./bare-core.mjs";
import { announce, listenPort } from "./common.mjs";

const server = createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/mcp") {
    res.writeHead(405).end();
    return;
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const msg = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const out = answer(msg);
    if (!out) {
      res.writeHead(202).end();
      return;
    }
    const headers = { "content-type": "application/json" };
    if (msg.method === "initialize") headers["mcp-session-id"] = randomUUID();
    res.writeHead(200, headers).end(JSON.stringify(out));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(listenPort(), "127.0.0.1", () => announce(server));
