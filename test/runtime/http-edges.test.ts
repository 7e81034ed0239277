/**
 * Edges of the HTTP entries under hostile input: what a connection carries after a response, several Authorization
 * headers, the challenge's characters, invalid UTF-8 in a body. In process, against serveHttp on 127.0.0.1, raw
 * sockets where the framing itself is the point.
 */
import { createServer as createHttpServer } from "node:http";
import net, { type AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type HttpHandle } from "../../runtime/dist/index.js";

/** Write `payload` in one write (so that the server reads it in one piece) and collect every byte until the close. */
function exchange(port: number, payload: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let out = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close after 10 s; read so far: ${JSON.stringify(out)}`));
    }, 10_000);
    socket.on("data", (d) => (out += d.toString("latin1")));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(out);
    });
    socket.write(payload);
  });
}
const statusLines = (raw: string) => raw.match(/^HTTP\/1\.1 \d{3}/gm) ?? [];

describe("a connection after its last response (RFC 9112 §9.6)", () => {
  let plain: HttpHandle;
  let slow: HttpHandle;
  beforeAll(async () => {
    plain = await createServer({ name: "edges", version: "1" }).serveHttp({ port: 0, quiet: true });
    // A verifier that answers later: the response to a request is still to come when the bytes after it are read.
    const verify = () => new Promise<undefined>((r) => setTimeout(() => r(undefined), 100));
    slow = await createServer({ name: "edges", version: "1" }).serveHttp({ port: 0, quiet: true, authorization: { issuer: "https://auth.example", verify } });
  });
  afterAll(async () => {
    await plain?.close();
    await slow?.close();
  });

  it("an OPTIONS that said Connection: close, with bytes after it: its 204, then nothing (no 400 after a Connection: close)", async () => {
    const raw = await exchange(plain.port, `OPTIONS /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n{"jsonrpc":"2.0"}`);
    expect(statusLines(raw)).toEqual(["HTTP/1.1 204"]);
    expect(raw.endsWith("\r\n\r\n")).toBe(true);
  });

  it("a DELETE whose answer is still to come, with garbage after it: that answer arrives (401), alone and last", async () => {
    const raw = await exchange(slow.port, `DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer abc\r\nContent-Length: 2\r\n\r\n{}\x01\x02 not a request\r\n\r\n`);
    expect(statusLines(raw)).toEqual(["HTTP/1.1 401"]);
    expect(raw).toMatch(/^connection: close\r$/im);
  });

  it("garbage on a fresh connection is still 400 and closed", async () => {
    const raw = await exchange(plain.port, "\x01\x02 not a request\r\n\r\n");
    expect(statusLines(raw)).toEqual(["HTTP/1.1 400"]);
  });
});

const MODERN = "2026-07-28";
const discover = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "server/discover",
  params: { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} } },
});
const postHead = (extra: string, length: number) =>
  `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
  `Mcp-Protocol-Version: ${MODERN}\r\nMcp-Method: server/discover\r\n${extra}Content-Length: ${length}\r\n\r\n`;
/** A verifier that knows the token "good", and refuses "quotes" with a message full of what RFC 6750 §3 excludes. */
const verify = (token: string) => {
  if (token === "quotes") throw new Error('claim exp: missing required "exp" claim \\ naïve');
  return token === "good" ? { subject: "alice", scopes: ["mcp", 'bad"scope'], claims: { sub: "alice" } } : undefined;
};
const authorization = { issuer: "https://auth.example", resource: "http://127.0.0.1/mcp", verify, requiredScopes: ["mcp", 'bad"scope'] };

/** The three entries, each answering one raw request: serveHttp, nodeHandler in a node:http server, fetchHandler. */
const entries: { name: string; start: () => Promise<{ send: (head: string, body: Buffer) => Promise<string>; stop: () => Promise<void> }> }[] = [
  {
    name: "serveHttp",
    start: async () => {
      const h = await createServer({ name: "edges", version: "1" }).serveHttp({ port: 0, quiet: true, authorization });
      return { send: (head, body) => exchange(h.port, Buffer.concat([Buffer.from(head), body])), stop: () => h.close() };
    },
  },
  {
    name: "nodeHandler",
    start: async () => {
      const handler = createServer({ name: "edges", version: "1" }).nodeHandler({ authorization });
      const http = createHttpServer(handler);
      await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
      const port = (http.address() as AddressInfo).port;
      return { send: (head, body) => exchange(port, Buffer.concat([Buffer.from(head), body])), stop: async () => (await handler.close(), await new Promise<void>((r) => http.close(() => r()))) };
    },
  },
  {
    name: "fetchHandler",
    start: async () => {
      const handler = createServer({ name: "edges", version: "1" }).fetchHandler({ authorization });
      const send = async (head: string, body: Buffer) => {
        const lines = head.split("\r\n").slice(1, -2);
        const headers = new Headers();
        for (const l of lines) {
          const at = l.indexOf(":");
          const name = l.slice(0, at).toLowerCase();
          if (name !== "connection") headers.append(name, l.slice(at + 1).trim());
        }
        const res = await handler(new Request("http://127.0.0.1/mcp", { method: "POST", headers, body: new Uint8Array(body) }));
        let raw = `HTTP/1.1 ${res.status}\r\n`;
        res.headers.forEach((v, k) => (raw += `${k}: ${v}\r\n`));
        return `${raw}\r\n${await res.text()}`;
      };
      return { send, stop: () => handler.close() };
    },
  },
];

describe.each(entries)("$name", ({ name, start }) => {
  let entry: Awaited<ReturnType<(typeof entries)[number]["start"]>>;
  beforeAll(async () => {
    entry = await start();
  });
  afterAll(() => entry?.stop());
  const body = Buffer.from(discover);
  const wwwAuthenticate = (raw: string) => /^www-authenticate: (.*)\r$/im.exec(raw)?.[1];

  it("one valid token is served (the baseline of the cases below)", async () => {
    const raw = await entry.send(postHead("Authorization: Bearer good\r\n", body.length), body);
    expect(statusLines(raw)).toEqual(["HTTP/1.1 200"]);
  });

  it("a request with more header fields than node:http keeps is 431, not served with the fields past the cut unchecked (RFC 6585 §5)", async () => {
    const fillers = (n: number) => Array.from({ length: n }, (_, i) => `X-Filler-${i}: a\r\n`).join("");
    const foreign = "Authorization: Bearer good\r\nOrigin: http://evil.example\r\n";
    // 989 fields: all kept, so the foreign Origin is seen and refused.
    expect(statusLines(await entry.send(postHead(fillers(980) + foreign, body.length), body))).toEqual(["HTTP/1.1 403"]);
    // 1,008 fields: node:http keeps the first 1,000 in req.headers, the Origin among those it drops. A web Request
    // built from them all (as this test's fetchHandler entry does) has no cut: its Origin is seen.
    const cut = await entry.send(postHead(fillers(999) + foreign, body.length), body);
    expect(statusLines(cut)).toEqual([name === "fetchHandler" ? "HTTP/1.1 403" : "HTTP/1.1 431"]);
  });

  it("two Authorization headers: 400 invalid_request, even when the first is valid (RFC 6750 §3.1)", async () => {
    for (const pair of ["Authorization: Bearer good\r\nAuthorization: Bearer other\r\n", "Authorization: Bearer good\r\nauthorization: Bearer good\r\n"]) {
      const raw = await entry.send(postHead(pair, body.length), body);
      expect(statusLines(raw)).toEqual(["HTTP/1.1 400"]);
      expect(wwwAuthenticate(raw)).toContain('error="invalid_request"');
    }
  });

  it("the challenge's error_description and scope hold only what RFC 6750 §3 allows (no \\\" or \\\\ escapes)", async () => {
    const raw = await entry.send(postHead("Authorization: Bearer quotes\r\n", body.length), body);
    expect(statusLines(raw)).toEqual(["HTTP/1.1 401"]);
    const challenge = wwwAuthenticate(raw)!;
    const description = /error_description="([^"]*)"/.exec(challenge)?.[1];
    expect(description).toBe("the token was refused: claim exp: missing required 'exp' claim / na?ve");
    // Every quoted value: %x20-21 / %x23-5B / %x5D-7E only.
    for (const [, value] of challenge.matchAll(/="([^"]*)"/g)) expect(value).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/);
    // A scope that is no scope-token is left out; the others are named.
    expect(/scope="([^"]*)"/.exec(challenge)?.[1]).toBe("mcp");
    expect(challenge.split('"').length % 2).toBe(1);
  });

  it("a body with a Content-Encoding other than identity is 415, naming the coding, with Accept-Encoding: identity (RFC 9110 §8.4.1, §15.5.16)", async () => {
    const gzipped = gzipSync(body);
    for (const coding of ["gzip", " GZIP ", "br"]) {
      const raw = await entry.send(postHead(`Authorization: Bearer good\r\nContent-Encoding: ${coding}\r\n`, gzipped.length), gzipped);
      expect(statusLines(raw)).toEqual(["HTTP/1.1 415"]);
      expect(raw).toMatch(/^accept-encoding: identity\r$/im);
      const error = JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)).error;
      expect(error.message).toBe(`Unsupported Media Type: Content-Encoding "${coding.trim().toLowerCase()}" is not accepted; send the body unencoded`);
    }
    const raw = await entry.send(postHead("Authorization: Bearer good\r\nContent-Encoding: identity\r\n", body.length), body);
    expect(statusLines(raw)).toEqual(["HTTP/1.1 200"]);
  });

  it("a body that is not UTF-8 is -32700 Parse error, as on stdio, never decoded to U+FFFD", async () => {
    for (const bad of [Buffer.from([0xff]), Buffer.from([0xc3, 0x28]), Buffer.from([0xed, 0xa0, 0x80])]) {
      const invalid = Buffer.concat([Buffer.from(discover.slice(0, -2)), Buffer.from(',"x":"'), bad, Buffer.from('"}}')]);
      const raw = await entry.send(postHead("Authorization: Bearer good\r\n", invalid.length), invalid);
      expect(statusLines(raw)).toEqual(["HTTP/1.1 400"]);
      expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)).error.code).toBe(-32700);
    }
  });
});

describe("serveHttp: a slow sender is answered 408 and disconnected (headersTimeoutMs, requestTimeoutMs)", () => {
  let h: HttpHandle;
  beforeAll(async () => {
    h = await createServer({ name: "edges", version: "1" }).serveHttp({ port: 0, quiet: true, headersTimeoutMs: 300, requestTimeoutMs: 600 });
  });
  afterAll(() => h.close());

  it("headers that never end: 408, then the close", async () => {
    const began = Date.now();
    const raw = await exchange(h.port, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n");
    expect(statusLines(raw)).toEqual(["HTTP/1.1 408"]);
    expect(Date.now() - began).toBeLessThan(5000);
  });

  it("a body that never ends: 408, then the close", async () => {
    const raw = await exchange(h.port, postHead("", discover.length) + discover.slice(0, 10));
    expect(statusLines(raw)).toEqual(["HTTP/1.1 408"]);
  });

  it("an idle kept-alive connection is not a slow sender: its next request, after the timeouts, is served", async () => {
    const socket = net.connect(h.port, "127.0.0.1");
    let out = "";
    socket.on("data", (d) => (out += d.toString("latin1")));
    const request = postHead("", discover.length).replace("Connection: close\r\n", "") + discover;
    const responses = async (n: number) => {
      // Not statusLines: a response follows the previous body on the same line.
      const lines = () => out.match(/HTTP\/1\.1 \d{3}/g) ?? [];
      for (const end = Date.now() + 5000; lines().length < n && Date.now() < end;) await new Promise((r) => setTimeout(r, 10));
      return lines();
    };
    socket.write(request);
    expect(await responses(1)).toEqual(["HTTP/1.1 200"]);
    await new Promise((r) => setTimeout(r, 900));
    socket.write(request);
    expect(await responses(2)).toEqual(["HTTP/1.1 200", "HTTP/1.1 200"]);
    socket.destroy();
  });

  it("a pipelined request that times out lets the answer streaming before it finish (SSE past the timeouts), then closes", async () => {
    const server = createServer({ name: "edges", version: "1" });
    server.tool({
      name: "slow",
      inputSchema: { type: "object" },
      handler: async (_args, ctx) => {
        for (let i = 1; i <= 4; i++) {
          await new Promise((r) => setTimeout(r, 250));
          ctx.progress(i, 4);
        }
        return { content: [{ type: "text", text: "slow done" }] };
      },
    });
    const s = await server.serveHttp({ port: 0, quiet: true, headersTimeoutMs: 300, requestTimeoutMs: 300 });
    try {
      const call = JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "slow", arguments: {}, _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}, progressToken: "p" } },
      });
      const head = postHead("", Buffer.byteLength(call)).replace("Connection: close\r\n", "").replace("Mcp-Method: server/discover", "Mcp-Method: tools/call\r\nMcp-Name: slow");
      const raw = await exchange(s.port, head + call + "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      expect(raw).toContain("slow done");
      expect(raw.match(/HTTP\/1\.1 \d{3}/g)).toEqual(["HTTP/1.1 200"]);
    } finally {
      await s.close();
    }
  });

  it("an answer sent before its body arrived (415) is not followed by a 408 at the timeout", async () => {
    const raw = await exchange(h.port, postHead("Content-Encoding: gzip\r\n", 100).replace("Connection: close\r\n", "") + "x");
    expect(raw.match(/HTTP\/1\.1 \d{3}/g)).toEqual(["HTTP/1.1 415"]);
  });

  it("refuses timeouts that are not positive integers, or a request timeout under the headers timeout", async () => {
    const server = createServer({ name: "edges", version: "1" });
    // A request timeout alone under the default headers timeout brings the headers timeout down with it.
    const alone = await server.serveHttp({ port: 0, quiet: true, requestTimeoutMs: 10_000 });
    await alone.close();
    await expect(server.serveHttp({ port: 0, quiet: true, headersTimeoutMs: 0 })).rejects.toThrow(new TypeError("serveHttp: headersTimeoutMs must be a positive integer (ms)"));
    await expect(server.serveHttp({ port: 0, quiet: true, headersTimeoutMs: 5000, requestTimeoutMs: 1000 })).rejects.toThrow(
      new TypeError("serveHttp: requestTimeoutMs (1000) is under headersTimeoutMs (5000)"),
    );
  });
});
