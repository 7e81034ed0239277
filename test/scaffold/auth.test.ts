// `create-mcp-server --auth oauth`: the HTTP server of the project is an OAuth 2.1 resource server, configured at start
// from MCP_AUTH_ISSUER / MCP_PUBLIC_URL / MCP_AUTH_AUDIENCE / MCP_AUTH_JWKS_URI, with scopes per tool in mcp.json; its
// generated tests (npm test) run the OAuth flow against a real authorization server. stdio never runs OAuth.
// spec/2025-11-25/basic/authorization.mdx
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { copyProject, create, expectOk, npm, passedCount, run, OAUTH_FLAGS, sharedProject, tempDir } from "./support.js";

describe("create-mcp-server --auth oauth", () => {
  const work = tempDir("auth");
  const project = join(work, "oauth-server");
  const main = join(project, "dist", "src", "main.js");

  beforeAll(async () => {
    // A copy of the run's installed --auth oauth project (auth.test.ts and auth-dev.test.ts share its install).
    copyProject((await sharedProject("basic", OAUTH_FLAGS, "oauth-server")).dir, project);
    expectOk(await npm(project, ["run", "build"]), "npm run build");
  }, 600_000);

  it("refuses --auth oauth for a stdio-only server, and an unknown --auth, in one line, writing nothing", async () => {
    const stdio = await create([join(work, "stdio-oauth"), "--yes", "--no-install", "--transport", "stdio", "--auth", "oauth"]);
    expect(stdio.status).toBe(1);
    expect(stdio.stderr.trim()).toMatch(/^create-mcp-server: --auth oauth needs the http transport .*credentials from the environment, never OAuth$/);
    expect(existsSync(join(work, "stdio-oauth"))).toBe(false);
    const bogus = await create([join(work, "bogus"), "--yes", "--no-install", "--auth", "basic"]);
    expect(bogus.status).toBe(1);
    expect(bogus.stderr).toMatch(/unknown --auth "basic"; choose one of: none, oauth/);
  });

  it("writes the configuration: mcp.json's authorization and scopes per tool, the start-up environment in main.ts", () => {
    const mcp = JSON.parse(readFileSync(join(project, "mcp.json"), "utf8"));
    expect(mcp.authorization).toBe("oauth");
    expect(Object.fromEntries(mcp.tools.map((t: { name: string; scopes?: string[] }) => [t.name, t.scopes]))).toEqual({ echo: ["tools:echo"], add: ["tools:add"] });
    const source = readFileSync(join(project, "src", "main.ts"), "utf8");
    for (const v of ["MCP_AUTH_ISSUER", "MCP_PUBLIC_URL", "MCP_AUTH_AUDIENCE", "MCP_AUTH_JWKS_URI"]) expect(source).toContain(v);
    expect(readFileSync(join(project, "generated", "register.ts"), "utf8")).toMatch(/scopes: \["tools:echo"\]/);
    expect(existsSync(join(project, "test", "auth.test.ts"))).toBe(true);
  });

  it("npm test passes, the OAuth flow included (every HTTP test runs with a token of a real authorization server)", async () => {
    const test = await npm(project, ["test"]);
    expectOk(test, "npm test (--auth oauth)");
    // eslint-disable-next-line no-control-regex
    expect(test.stdout.replace(/\x1b\[[0-9;]*m/g, "")).toMatch(/test\/auth\.test\.ts \(4 tests\)/);
    expect(passedCount(test.stdout)).toBeGreaterThan(90);
  }, 600_000);

  it("start-up: no issuer, or a public bind without its public URL, is one line and exit 1; with them it binds without --allow-remote", async () => {
    const start = (args: string[], env: Record<string, string>) => run(process.execPath, [main, "--transport", "http", "--port", "0", ...args], { cwd: project, env, timeoutMs: 5_000 });
    const none = await start([], { MCP_AUTH_ISSUER: "" });
    expect([none.status, none.stderr]).toEqual([
      1,
      "oauth-server: MCP_AUTH_ISSUER is not set: the issuer URL of the OAuth authorization server whose access tokens this server accepts (e.g. https://auth.example.com)\n",
    ]);
    const publicBind = await start(["--host", "0.0.0.0"], { MCP_AUTH_ISSUER: "https://auth.example.com", MCP_PUBLIC_URL: "" });
    expect(publicBind.status).toBe(1);
    expect(publicBind.stderr).toMatch(/^oauth-server: listening on 0\.0\.0\.0 needs MCP_PUBLIC_URL [^\n]+\n$/);
    const badUrl = await start([], { MCP_AUTH_ISSUER: "auth.example.com" });
    expect([badUrl.status, badUrl.stderr]).toEqual([1, 'oauth-server: MCP_AUTH_ISSUER must be an absolute URL, not "auth.example.com"\n']);
    // Given both, it binds the public address (here: killed by the timeout once listening). The issuer is on loopback:
    // the server reads its metadata at start, and tests send traffic to loopback only.
    const bound = await start(["--host", "0.0.0.0"], { MCP_AUTH_ISSUER: "http://127.0.0.1:9", MCP_PUBLIC_URL: "https://mcp.example.com/mcp" });
    expect(bound.stderr).toMatch(/^listening http:\/\/0\.0\.0\.0:\d+\/mcp$/m);
  });

  it("mcp.json scopes that are not OAuth scope names fail npm run generate, naming the tool", async () => {
    const path = join(project, "mcp.json");
    const original = readFileSync(path, "utf8");
    try {
      const mcp = JSON.parse(original);
      mcp.tools[0].scopes = ["has space"];
      writeFileSync(path, JSON.stringify(mcp, null, 2));
      const r = await npm(project, ["run", "generate"]);
      expect(r.status).not.toBe(0);
      expect(r.stdout + r.stderr).toContain('mcp.json: /tools/0/scopes/0: tool "echo": must be an OAuth scope (printable ASCII, no spaces, quotes or backslashes), not "has space"');
    } finally {
      writeFileSync(path, original);
    }
  });

  it("a project without --auth has none of it", async () => {
    const plain = join(work, "plain");
    expectOk(await create([plain, "--yes", "--no-install", "--transport", "http", "--no-git"]), "create-mcp-server (no --auth)");
    expect(existsSync(join(plain, "test", "auth.test.ts"))).toBe(false);
    expect(existsSync(join(plain, "test", "authorization-server.ts"))).toBe(false);
    const mcp = JSON.parse(readFileSync(join(plain, "mcp.json"), "utf8"));
    expect(mcp.authorization).toBeUndefined();
    expect(mcp.tools.some((t: { scopes?: unknown }) => t.scopes)).toBe(false);
    expect(readFileSync(join(plain, "package.json"), "utf8")).not.toContain("oidc-provider");
  });
});
