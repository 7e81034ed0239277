// `npm run auth:dev` of an `--auth oauth` project: a local authorization server (oidc-provider) that prints the three
// lines a user needs. They are run here exactly as printed (bash -c with the printed text): the server started with the
// printed MCP_AUTH_ISSUER, the curl that gets a client-credentials token, the call with it. Then the code flow an MCP
// client runs (dynamic registration, PKCE, the resource indicator) through the dev login, and the start-up warning of
// a server whose issuer cannot be used. spec/2025-11-25/basic/authorization.mdx
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { copyProject, create, expectOk, npm, run, OAUTH_FLAGS, sharedProject, tempDir } from "./support.js";

/** A port on 127.0.0.1 that nothing listens on now (taken, then closed). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
}
const started: Started[] = [];

/** `command` in its own process group (npm's children go with it), until `ready` matches its stdout or stderr. */
async function startUntil(command: string, args: string[], cwd: string, ready: RegExp, env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(command, args, { cwd, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let out = "";
  let err = "";
  const s: Started = { child, stdout: () => out, stderr: () => err };
  started.push(s);
  await new Promise<void>((resolve, reject) => {
    const check = () => (ready.test(out) || ready.test(err)) && resolve();
    child.stdout!.on("data", (c) => ((out += c), check()));
    child.stderr!.on("data", (c) => ((err += c), check()));
    child.once("exit", (code) => reject(new Error(`${command} ${args.join(" ")} exited ${code}\n--- stdout\n${out}\n--- stderr\n${err}`)));
  });
  return s;
}

const stop = (s: Started) => {
  try {
    process.kill(-s.child.pid!, "SIGTERM");
  } catch {
    // Gone already.
  }
};

/** The claims of a JWT (its header and payload), as base64url JSON. */
const decode = (jwt: string) => jwt.split(".", 2).map((part) => JSON.parse(Buffer.from(part, "base64url").toString("utf8")));

/** Follow an authorization URL through the dev login (user, password) to the redirect back to the client. */
async function devLogin(start: string, user: string, password: string): Promise<{ url: URL; status?: number }> {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const keep = (r: Response) => {
    for (const c of r.headers.getSetCookie()) {
      const [pair] = c.split(";");
      jar.set(pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1));
    }
  };
  let url = new URL(start);
  const issuer = url.origin;
  for (let hop = 0; hop < 20 && url.origin === issuer; hop++) {
    let r = await fetch(url, { redirect: "manual", headers: { cookie: cookie() } });
    keep(r);
    if (r.status === 200 && url.pathname.startsWith("/interaction/")) {
      const action = /<form method="post" action="([^"]+)"/.exec(await r.text())?.[1];
      if (!action) throw new Error(`no login form at ${url}`);
      const form = new URLSearchParams({ username: user, password });
      r = await fetch(new URL(action, url), { method: "POST", redirect: "manual", headers: { cookie: cookie(), "content-type": "application/x-www-form-urlencoded" }, body: form.toString() });
      keep(r);
      if (r.status !== 302 && r.status !== 303) return { url, status: r.status };
    }
    const location = r.headers.get("location");
    if (!location) throw new Error(`the login stopped at ${url} with HTTP ${r.status}`);
    url = new URL(location, url);
  }
  return { url };
}

describe("npm run auth:dev (--auth oauth)", () => {
  const work = tempDir("auth-dev");
  const project = join(work, "oauth-server");

  beforeAll(async () => {
    // A copy of the run's installed --auth oauth project (auth.test.ts and auth-dev.test.ts share its install).
    copyProject((await sharedProject("basic", OAUTH_FLAGS, "oauth-server")).dir, project);
    expectOk(await npm(project, ["run", "build"]), "npm run build");
  }, 600_000);
  afterAll(() => started.forEach(stop));

  /** auth:dev for the server at `mcpUrl`, with the printed lines. */
  async function authDev(mcpUrl: string) {
    const as = await startUntil("npm", ["run", "auth:dev", "--", "--port", "0", "--resource", mcpUrl], project, /^curl .*$/m);
    const lines = as.stdout().split("\n");
    const issuer = /at (http:\/\/127\.0\.0\.1:\d+) /.exec(lines.find((l) => l.startsWith("auth:dev: a local OAuth authorization server"))!)![1];
    return {
      as,
      issuer,
      start: lines.find((l) => l.startsWith("MCP_AUTH_ISSUER="))!,
      token: lines.find((l) => l.startsWith("TOKEN=$(curl "))!,
      call: lines.find((l) => l.startsWith("curl "))!,
    };
  }

  it("prints the issuer, a token curl and a call; run exactly as printed, they work, and without a token it is 401", async () => {
    const port = await freePort();
    const mcpUrl = `http://127.0.0.1:${port}/mcp`;
    const { as, issuer, start, token, call } = await authDev(mcpUrl);
    expect(as.stdout()).toContain("alice / alice-password (every scope), bob / bob-password");
    expect(as.stdout()).toContain("pre-registered client: dev-client / dev-client-secret");
    expect(as.stdout()).toContain(`scopes (from mcp.json): tools:echo tools:add; tokens are for ${mcpUrl}`);
    // oidc-provider's notes about Node 20 and its in-memory store are left out; nothing else is on stderr.
    expect(as.stderr()).not.toMatch(/oidc-provider WARNING/);
    expect(start).toBe(`MCP_AUTH_ISSUER=${issuer} npm start -- --transport http --port ${port}`);

    // 1. The server, started by the printed line (request lines at info, to see the call's status).
    const server = await startUntil("bash", ["-c", start], project, new RegExp(`^listening ${mcpUrl}$`, "m"), { MCP_LOG_LEVEL: "info" });
    const bare = await fetch(mcpUrl, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"`);

    // 2. The token: an RFC 9068 JWT access token for this server, with mcp.json's scopes.
    const got = await run("bash", ["-c", `${token}\nprintf '%s' "$TOKEN"`], { cwd: project });
    expectOk(got, "the printed token curl");
    const [header, claims] = decode(got.stdout);
    expect(header).toMatchObject({ alg: "ES256", typ: "at+jwt" });
    expect(claims).toMatchObject({ iss: issuer, aud: mcpUrl, sub: "dev-client", client_id: "dev-client", scope: "tools:echo tools:add" });

    // A browser-based client on a loopback origin may call the token endpoint; a web page may not.
    const fromOrigin = (origin: string) =>
      fetch(`${issuer}/token`, {
        method: "POST",
        headers: { origin, "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa("dev-client:dev-client-secret")}` },
        body: new URLSearchParams({ grant_type: "client_credentials", resource: mcpUrl }).toString(),
      });
    const local = await fromOrigin("http://localhost:6274");
    expect([local.status, local.headers.get("access-control-allow-origin")]).toEqual([200, "http://localhost:6274"]);
    const page = await fromOrigin("https://evil.example");
    expect([page.status, page.headers.get("access-control-allow-origin"), (await page.json()).error]).toEqual([400, null, "invalid_request"]);

    // 3. The call with it: tools/list answered 200 with every tool (the token has every scope).
    const answered = await run("bash", ["-c", `${token}\n${call}`], { cwd: project });
    expectOk(answered, "the printed call");
    const body = JSON.parse(answered.stdout);
    expect(body.id).toBe(1);
    expect(body.result.tools.map((t: { name: string }) => t.name)).toEqual(["echo", "add", "countdown"]);
    expect(body.result.cacheScope).toBe("private");
    // The request line is written when the response has finished, so it may reach stderr after curl exits.
    const requestLines = () =>
      server
        .stderr()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l))
        .filter((l) => l.msg === "request");
    await vi.waitFor(() => expect(requestLines()).toHaveLength(2), { timeout: 5000 });
    const requests = requestLines();
    expect(requests.map((l) => [l.method, l.path, l.status, l.mcpMethod])).toEqual([
      ["POST", "/mcp", 401, undefined],
      ["POST", "/mcp", 200, "tools/list"],
    ]);
    expect(server.stderr()).not.toContain("WARNING");
    stop(server);
    stop(as);
  });

  it("an MCP client from nothing: dynamic registration, the dev login with PKCE and the resource; alice sees every tool, bob only those without scopes", async () => {
    const port = await freePort();
    const mcpUrl = `http://127.0.0.1:${port}/mcp`;
    const { as, issuer } = await authDev(mcpUrl);
    const server = await startUntil(process.execPath, ["dist/src/main.js", "--transport", "http", "--port", String(port)], project, /^listening /m, { MCP_AUTH_ISSUER: issuer });
    const toolsOf = async (user: string, password: string) => {
      let redirected: URL | undefined;
      const state: { info?: OAuthClientInformationMixed; tokens?: OAuthTokens; verifier?: string } = {};
      const redirectUrl = "http://127.0.0.1:1/callback";
      const provider: OAuthClientProvider = {
        redirectUrl,
        clientMetadata: { client_name: "auth-dev test", redirect_uris: [redirectUrl], token_endpoint_auth_method: "none" },
        clientInformation: () => state.info,
        saveClientInformation: (info) => void (state.info = info),
        tokens: () => state.tokens,
        saveTokens: (tokens) => void (state.tokens = tokens),
        redirectToAuthorization: (url) => void (redirected = url),
        saveCodeVerifier: (v) => void (state.verifier = v),
        codeVerifier: () => state.verifier!,
      };
      const first = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
      await expect(new Client({ name: "t", version: "1" }).connect(first)).rejects.toThrow();
      // What the client asked: a registered client, PKCE (S256) and this server as the resource.
      expect(redirected!.origin).toBe(issuer);
      expect(redirected!.searchParams.get("code_challenge_method")).toBe("S256");
      expect(redirected!.searchParams.get("resource")).toBe(mcpUrl);
      expect(state.info?.client_id).toBeTruthy();
      const wrong = await devLogin(redirected!.href, user, "not-the-password");
      expect(wrong.status).toBe(401);
      const back = await devLogin(redirected!.href, user, password);
      expect(back.url.origin).toBe("http://127.0.0.1:1");
      await first.finishAuth(back.url.searchParams.get("code")!);
      expect(decode(state.tokens!.access_token)[1]).toMatchObject({ iss: issuer, aud: mcpUrl, sub: user });
      const client = new Client({ name: "t", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
      try {
        return (await client.listTools()).tools.map((t) => t.name);
      } finally {
        await client.close();
      }
    };
    expect(await toolsOf("alice", "alice-password")).toEqual(["echo", "add", "countdown"]);
    expect(await toolsOf("bob", "bob-password")).toEqual(["countdown"]);
    stop(server);
    stop(as);
  });

  it("a project serving legacy revisions only: the printed call is initialize, and it works as printed", async () => {
    const path = join(project, "mcp.json");
    const original = readFileSync(path, "utf8");
    try {
      writeFileSync(path, JSON.stringify({ ...JSON.parse(original), revisions: ["2025-06-18", "2025-11-25"] }, null, 2));
      expectOk(await npm(project, ["run", "build"]), "npm run build (legacy revisions)");
      const port = await freePort();
      const { as, start, token, call } = await authDev(`http://127.0.0.1:${port}/mcp`);
      expect(call).toContain(`"method":"initialize","params":{"protocolVersion":"2025-11-25"`);
      const server = await startUntil("bash", ["-c", start], project, /^listening /m);
      const answered = await run("bash", ["-c", `${token}\n${call}`], { cwd: project });
      expectOk(answered, "the printed call");
      // An SSE or JSON answer, as the server chooses: the initialize result either way.
      const json = /^data: (.+)$/m.exec(answered.stdout)?.[1] ?? answered.stdout;
      expect(JSON.parse(json).result).toMatchObject({ protocolVersion: "2025-11-25", serverInfo: { name: "oauth-server" } });
      stop(server);
      stop(as);
    } finally {
      writeFileSync(path, original);
      expectOk(await npm(project, ["run", "build"]), "npm run build (restored)");
    }
  }, 300_000);

  it("a project without --auth has no auth:dev", async () => {
    const plain = join(work, "plain");
    expectOk(await create([plain, "--yes", "--no-install", "--transport", "http", "--no-git"]), "create-mcp-server (no --auth)");
    expect(existsSync(join(plain, "scripts", "auth-dev.mjs"))).toBe(false);
    expect(JSON.parse(readFileSync(join(plain, "package.json"), "utf8")).scripts["auth:dev"]).toBeUndefined();
    expect(JSON.parse(readFileSync(join(project, "package.json"), "utf8")).scripts["auth:dev"]).toBe("node scripts/auth-dev.mjs");
  });

  it("the server started with an issuer that cannot be reached says so in one line at start, and a token gets 503", async () => {
    const issuer = `http://127.0.0.1:${await freePort()}`;
    const server = await startUntil(process.execPath, ["dist/src/main.js", "--transport", "http", "--port", "0"], project, /^mcp runtime: WARNING: the authorization server/m, {
      MCP_AUTH_ISSUER: issuer,
    });
    const warnings = server
      .stderr()
      .split("\n")
      .filter((l) => l.includes("WARNING"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      new RegExp(
        `^mcp runtime: WARNING: the authorization server ${issuer} cannot be used: no metadata for issuer ${issuer} \\(${issuer}/\\.well-known/oauth-authorization-server: connect ECONNREFUSED `,
      ),
    );
    const url = /^listening (\S+)$/m.exec(server.stderr())![1];
    const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: "Bearer a.b.c" }, body: "{}" });
    expect(r.status).toBe(503);
    stop(server);
  });
});
