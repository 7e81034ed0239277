/**
 * The headers of a web-standard Request as fetchHandler gives them to the endpoint and to a `clientKey` or an
 * authorization `verify` (runtime/src/transport/http/io.ts, fetchIncoming): the plain object Node gives (lower-case
 * names, undefined when absent, keys, spread, structuredClone, freeze, inspect), with the URL's authority as Host
 * where the platform exposes none. A lazy Proxy over the Headers, tried on 2026-12-07 for speed, broke the last four
 * (and read Origin from another source than enumeration on @hono/node-server): this holds them.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { fetchIncoming } from "../../runtime/src/transport/http/io.js";
import { createServer } from "../../runtime/dist/index.js";

const MODERN = "2026-07-28";

function discover(extra: Record<string, string> = {}): Request {
  return new Request("http://127.0.0.1:8787/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN, "mcp-method": "server/discover", ...extra },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} } },
    }),
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

  it("is a plain object a clientKey may copy, freeze and log, with every header in it", async () => {
    const seen: unknown[] = [];
    const server = createServer({ name: "fetch-headers", version: "1.0.0" });
    const handler = server.fetchHandler({
      clientKey: ({ headers }) => {
        seen.push(structuredClone(headers), inspect(headers));
        Object.freeze(headers);
        return String(headers["x-forwarded-for"]);
      },
    });
    try {
      expect((await handler(discover({ "x-forwarded-for": "203.0.113.9", "user-agent": "probe/1" }))).status).toBe(200);
      expect(seen[0]).toEqual({
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
        host: "127.0.0.1:8787",
        "mcp-method": "server/discover",
        "mcp-protocol-version": MODERN,
        "user-agent": "probe/1",
        "x-forwarded-for": "203.0.113.9",
      });
      expect(seen[1]).toContain("'user-agent': 'probe/1'");
    } finally {
      await handler.close();
    }
  });
});
