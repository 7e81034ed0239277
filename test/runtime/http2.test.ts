/**
 * nodeHandler mounted in a node:http2 server (h2c on 127.0.0.1), with Node's own HTTP/2 client: HTTP/2 carries the
 * authority in `:authority` and Host is optional (RFC 9113 §8.3.1), so the Host check (DNS rebinding) reads it from
 * there, and a request whose Host names another authority than its `:authority` is malformed (400).
 */
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type NodeHandler } from "../../runtime/dist/index.js";
import { modernRequest } from "./http-helpers.js";

const MODERN = "2026-07-28";
const discoverRequest = modernRequest(1, "server/discover");
const body = JSON.stringify(discoverRequest.body);

describe("nodeHandler on node:http2", () => {
  let handler: NodeHandler;
  let server: http2.Http2Server;
  let client: http2.ClientHttp2Session;
  let origin: string;

  beforeAll(async () => {
    handler = createServer({ name: "h2", version: "1.0.0" }).nodeHandler();
    server = http2.createServer(handler as never);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    origin = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = http2.connect(`http://${origin}`);
  });
  afterAll(async () => {
    client?.close();
    await handler?.close();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const discover = (headers: Record<string, string> = {}) =>
    new Promise<{ status: number; json: { result?: { supportedVersions?: string[] }; error?: { message: string } } }>((resolve, reject) => {
      const req = client.request({
        ":method": "POST",
        ":path": "/mcp",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": "server/discover",
        ...headers,
      });
      let status = 0;
      let text = "";
      req.on("response", (h) => (status = Number(h[":status"])));
      req.on("data", (d) => (text += d));
      req.on("end", () => resolve({ status, json: JSON.parse(text) }));
      req.on("error", reject);
      req.end(body);
    });

  it("serves a request whose :authority is a loopback name, with no Host header", async () => {
    const r = await discover();
    expect(r.status).toBe(200);
    expect(r.json.result?.supportedVersions).toContain(MODERN);
  });

  it("refuses a foreign :authority (403), and a Host that names another authority than :authority (400)", async () => {
    expect((await discover({ ":authority": "evil.example" })).status).toBe(403);
    const mixed = await discover({ ":authority": origin, host: "evil.example" });
    expect([mixed.status, mixed.json.error?.message]).toEqual([400, "Bad Request: Host and :authority name different authorities"]);
    const port = origin.split(":")[1];
    expect((await discover({ ":authority": `localhost:${port}`, host: `LOCALHOST:${port}` })).status).toBe(200);
  });
});
