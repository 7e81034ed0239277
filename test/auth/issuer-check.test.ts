// At start, an HTTP server with `authorization` reads its issuer's metadata once: an issuer it cannot use (nothing
// listening, metadata naming another issuer, no jwks_uri) is one warning line on stderr naming the URL, and the server
// serves on, answering a request with a token 503 (as before) and one without 401. The servers are real child
// processes (serveHttp, nodeHandler) so that their stderr is what an operator sees.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAuthorizationServer, type AuthorizationServer } from "./authorization-server.js";

const RUNTIME = new URL("../../runtime/dist/index.js", import.meta.url).href;

/** A child serving one tool with `authorization: { issuer }`, by serveHttp or by nodeHandler on node:http. */
const CHILD = `
import { createServer as http } from "node:http";
import { createServer } from ${JSON.stringify(RUNTIME)};
const server = createServer({ name: "issuer-check", version: "1.0.0" });
const issuer = process.env.ISSUER;
if (process.env.ENTRY === "nodeHandler") {
  const h = http();
  await new Promise((r) => h.listen(0, "127.0.0.1", r));
  const url = "http://127.0.0.1:" + h.address().port + "/mcp";
  const mcp = server.nodeHandler({ path: "/mcp", authorization: { issuer, resource: url } });
  h.on("request", mcp);
  process.stderr.write("listening " + url + "\\n");
} else {
  await server.serveHttp({ port: 0, authorization: { issuer } });
}
`;

interface Child {
  url: string;
  process: ChildProcess;
  stderr: () => string;
}

async function start(issuer: string, entry: "serveHttp" | "nodeHandler"): Promise<Child> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD], { env: { ...process.env, ISSUER: issuer, ENTRY: entry }, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr!.on("data", (c) => (err += c));
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const m = /^listening (\S+)$/m.exec(err);
      if (m) resolve(m[1]);
    };
    child.stderr!.on("data", check);
    child.once("exit", (code) => reject(new Error(`the server exited ${code}: ${err}`)));
  });
  return { url, process: child, stderr: () => err };
}

/** The warning lines once the start-up check is done (it runs after listening; a bounded wait, not a timing check). */
async function warnings(child: Child, expected: number): Promise<string[]> {
  const lines = () =>
    child
      .stderr()
      .split("\n")
      .filter((l) => l.startsWith("mcp runtime: WARNING:"));
  for (let i = 0; i < 100 && lines().length < expected; i++) await new Promise((r) => setTimeout(r, 50));
  return lines();
}

const post = (url: string, token?: string) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
  });

/** A metadata server answering `doc(issuer)` at every path, counting the requests. */
async function metadataServer(doc: (issuer: string) => Record<string, unknown>): Promise<{ issuer: string; requests: string[]; server: Server }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url!);
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(doc(issuer)));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { issuer, requests, server };
}

/** A port on 127.0.0.1 where nothing listens (taken, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe("the issuer's metadata, checked once at start", () => {
  const children: Child[] = [];
  const servers: Server[] = [];
  let as: AuthorizationServer;
  beforeAll(async () => {
    as = await startAuthorizationServer();
  });
  afterAll(async () => {
    for (const c of children) c.process.kill();
    for (const s of servers) s.close();
    await as?.close();
  });
  const run = async (issuer: string, entry: "serveHttp" | "nodeHandler" = "serveHttp") => {
    const c = await start(issuer, entry);
    children.push(c);
    return c;
  };

  for (const entry of ["serveHttp", "nodeHandler"] as const) {
    it(`${entry}: an unreachable issuer (a closed port) is one warning naming its URL; a token gets 503, no token 401`, async () => {
      const issuer = `http://127.0.0.1:${await closedPort()}`;
      const c = await run(issuer, entry);
      const lines = await warnings(c, 1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^mcp runtime: WARNING: the authorization server ${issuer} cannot be used: no metadata for issuer ${issuer} \\(${issuer}/\\.well-known/oauth-authorization-server: connect ECONNREFUSED [^;]+; ` +
            `${issuer}/\\.well-known/openid-configuration: connect ECONNREFUSED [^)]+\\); requests with a token are answered 503 until it can be used \\(checked once at start\\)$`,
        ),
      );
      expect((await post(c.url, "a.b.c")).status).toBe(503);
      const none = await post(c.url);
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${new URL("/.well-known/oauth-protected-resource/mcp", c.url).href}"`);
    });
  }

  it("metadata naming another issuer: one warning naming the document's URL and both issuers; a token gets 503", async () => {
    const wrong = await metadataServer(() => ({ issuer: "https://other.example", jwks_uri: "https://other.example/jwks" }));
    servers.push(wrong.server);
    const c = await run(wrong.issuer);
    expect(await warnings(c, 1)).toEqual([
      `mcp runtime: WARNING: the authorization server ${wrong.issuer} cannot be used: ${wrong.issuer}/.well-known/oauth-authorization-server names issuer "https://other.example", not ${wrong.issuer}; ` +
        `requests with a token are answered 503 until it can be used (checked once at start)`,
    ]);
    // Read at start, before any request.
    expect(wrong.requests).toEqual(["/.well-known/oauth-authorization-server"]);
    expect((await post(c.url, "a.b.c")).status).toBe(503);
  });

  it("metadata without a jwks_uri: one warning naming the document's URL; a token gets 503", async () => {
    const nokeys = await metadataServer((issuer) => ({ issuer }));
    servers.push(nokeys.server);
    const c = await run(nokeys.issuer);
    expect(await warnings(c, 1)).toEqual([
      `mcp runtime: WARNING: the authorization server ${nokeys.issuer} cannot be used: its metadata (${nokeys.issuer}/.well-known/oauth-authorization-server) has no jwks_uri; ` +
        `requests with a token are answered 503 until it can be used (checked once at start)`,
    ]);
    expect((await post(c.url, "a.b.c")).status).toBe(503);
    // Fetched once: the requests use the metadata read at start.
    expect(nokeys.requests).toEqual(["/.well-known/oauth-authorization-server"]);
  });

  it("a usable issuer: no warning, and its tokens are accepted", async () => {
    const c = await run(as.issuer);
    as.resources.add(c.url);
    const token = await as.clientCredentials(c.url, "tools:read");
    expect((await post(c.url, token)).status).toBe(200);
    expect(await warnings(c, 0)).toEqual([]);
    expect(c.stderr()).not.toContain("WARNING");
  });
});
