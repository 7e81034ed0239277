/**
 * fetchHandler reads a Request's headers one name at a time (runtime/src/transport/http/io.ts, headerBag): enumerating
 * a Headers makes adapters that keep them lazy (@hono/node-server) build all of them for every request. The bag still
 * behaves as the plain object Node gives (lower-case names, undefined when absent, keys and spread), which is what a
 * `clientKey` and an authorization `verify` see.
 */
import { describe, expect, it, vi } from "vitest";
import { fetchIncoming } from "../../runtime/src/transport/http/io.js";
import { createServer } from "../../runtime/dist/index.js";

const MODERN = "2026-07-28";

function discover(extra: Record<string, string> = {}): Request {
  return new Request("http://127.0.0.1:8787/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN, "mcp-method": "server/discover", ...extra },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} } } }),
  });
}

describe("the header bag of a web-standard Request", () => {
  it("answers a lower-case name with its value and anything else as a plain object would", () => {
    const { headers } = fetchIncoming(new Request("http://example.test:8080/mcp?x=1", { headers: { "X-Forwarded-For": "203.0.113.9", Accept: "text/event-stream" } }));
    expect(headers["x-forwarded-for"]).toBe("203.0.113.9");
    expect(headers.accept).toBe("text/event-stream");
    expect(headers["X-Forwarded-For"]).toBeUndefined();
    expect(headers["mcp-session-id"]).toBeUndefined();
    expect(headers["not a token"]).toBeUndefined();
    // The authority of the absolute URL stands in for a Host header the platform does not expose.
    expect(headers.host).toBe("example.test:8080");
    expect(String(headers)).toBe("[object Object]");
    expect("accept" in headers).toBe(true);
    expect("mcp-session-id" in headers).toBe(false);
  });

  it("lists every header once enumerated: keys, spread, JSON", () => {
    const { headers } = fetchIncoming(new Request("http://example.test/mcp", { headers: { "X-B": "2", "x-a": "1" } }));
    expect(headers["x-b"]).toBe("2"); // read one first: enumerating afterwards must not list it twice
    expect(Object.keys(headers).sort()).toEqual(["host", "x-a", "x-b"]);
    expect({ ...headers }).toEqual({ "x-a": "1", "x-b": "2", host: "example.test" });
    expect(JSON.parse(JSON.stringify(headers))).toEqual({ "x-a": "1", "x-b": "2", host: "example.test" });
  });

  it("serves a request without enumerating its Headers, and a clientKey that enumerates them sees them all", async () => {
    const seen: string[][] = [];
    const server = createServer({ name: "fetch-headers", version: "1.0.0" });
    const handler = server.fetchHandler({ clientKey: ({ headers }) => (seen.push(Object.keys(headers).sort()), String(headers["x-forwarded-for"])) });
    try {
      const request = discover({ "x-forwarded-for": "203.0.113.9" });
      const forEach = vi.spyOn(request.headers, "forEach");
      const plain = server.fetchHandler();
      const quiet = discover();
      const quietForEach = vi.spyOn(quiet.headers, "forEach");
      expect((await plain(quiet)).status).toBe(200);
      expect(quietForEach).not.toHaveBeenCalled();
      await plain.close();

      expect((await handler(request)).status).toBe(200);
      expect(forEach).toHaveBeenCalledTimes(1); // the clientKey's Object.keys, once
      expect(seen.length).toBeGreaterThan(0);
      for (const keys of seen) expect(keys).toEqual(["accept", "content-type", "host", "mcp-method", "mcp-protocol-version", "x-forwarded-for"]);
    } finally {
      await handler.close();
    }
  });
});
