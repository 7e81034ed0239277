// What a developer gets around the server in a new project: git, the CI workflow, lint/format, the package manager,
// the printed client configuration with the add-to-client script, and `npm run dev` (real processes throughout).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { detectPackageManager, resolvePackageManager } from "../../generator/package-manager.js";
import { CLI, OUT } from "../helpers.js";
import { copyProject, create, expectOk, npm, run, sharedProject, tempDir, watchOutput } from "./support.js";

const work = tempDir("devx");
const scaffoldWith = (args: string[], env: Record<string, string | undefined> = {}) => run(process.execPath, [CLI, ...args], { env });
const git = (dir: string, args: string[]) => run("git", args, { cwd: dir });

describe("the package manager", () => {
  it("is detected from npm_config_user_agent, the way pnpm create and yarn create run a create- package", () => {
    expect(detectPackageManager("pnpm/9.15.0 npm/? node/v20.18.0 linux x64")).toBe("pnpm");
    expect(detectPackageManager("yarn/1.22.22 npm/? node/v20.18.0 darwin arm64")).toBe("yarn");
    expect(detectPackageManager("yarn/4.5.3 npm/? node/v22.11.0 linux x64")).toBe("yarn");
    expect(detectPackageManager("npm/10.8.2 node/v20.18.0 linux x64 workspaces/false")).toBe("npm");
    expect(detectPackageManager("bun/1.1.38 npm/? node/v22.6.0 linux x64")).toBeUndefined();
    expect(detectPackageManager("")).toBeUndefined();
    expect(detectPackageManager(undefined)).toBeUndefined();
    // The flag wins over the agent; without either it is npm; an unknown flag value is refused with the choices.
    expect(resolvePackageManager("yarn", "pnpm/9.15.0 npm/? node/v20.18.0 linux x64")).toEqual({ packageManager: "yarn" });
    expect(resolvePackageManager(undefined, "bun/1.1.38 npm/? node/v22.6.0 linux x64")).toEqual({ packageManager: "npm" });
    expect(resolvePackageManager("bun", undefined)).toEqual({ error: 'unknown package manager "bun"; choose one of: npm, pnpm, yarn' });
  });

  it("--package-manager with an unknown value is refused in one line, writing nothing", async () => {
    const dir = join(work, "bad-pm");
    const r = await create([dir, "--yes", "--no-install", "--package-manager", "bun"]);
    expect([r.status, r.stdout, r.stderr]).toEqual([1, "", 'create-mcp-server: unknown package manager "bun"; choose one of: npm, pnpm, yarn\n']);
    expect(existsSync(dir)).toBe(false);
  });

  it("run through pnpm create, the project's next steps, README and workflow use pnpm; --package-manager overrides the agent", async () => {
    const agent = { npm_config_user_agent: "pnpm/9.15.0 npm/? node/v20.18.0 linux x64" };
    const dir = join(work, "pnpm-project");
    const r = await scaffoldWith([dir, "--yes", "--no-install", "--no-git"], agent);
    expectOk(r, "create-mcp-server under pnpm");
    expect(r.stdout).toContain("\n  pnpm install\n");
    expect(r.stdout).toContain("  pnpm run build ");
    expect(r.stdout).toContain("  pnpm start --transport http --port 3000 ");
    const workflow = parseYaml(readFileSync(join(dir, ".github", "workflows", "test.yml"), "utf8"));
    expect(workflow.jobs.test.steps.map((s: { run?: string }) => s.run).filter(Boolean)).toEqual(["npm install --global pnpm", "pnpm install --frozen-lockfile", "pnpm run lint", "pnpm test"]);
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain("`pnpm run <script>`");

    const yarn = join(work, "yarn-project");
    const y = await scaffoldWith([yarn, "--yes", "--no-install", "--no-git", "--package-manager", "yarn"], agent);
    expectOk(y, "create-mcp-server --package-manager yarn");
    expect(y.stdout).toContain("\n  yarn install\n");
    expect(y.stdout).not.toContain("pnpm");
  });
});

describe("git", () => {
  it("a new project is a git repository with one commit of every file, even where git has no identity configured", async () => {
    const dir = join(work, "with-git");
    // An empty HOME and no system configuration: no user.name / user.email, as on a fresh CI machine.
    const home = tempDir("home");
    const r = await scaffoldWith([dir, "--yes", "--no-install", "--transport", "stdio"], { HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: join(home, "none") });
    expectOk(r, "create-mcp-server (git)");
    expect(r.stdout).toMatch(/✔ Initialized a git repository with a first commit \([0-9a-f]{7,}\)\n/);
    const log = await git(dir, ["log", "--format=%an <%ae>|%s"]);
    expect(log.stdout.trim().split("\n")).toEqual(["create-mcp-server <create-mcp-server@localhost>|Initial commit from create-mcp-server"]);
    expect((await git(dir, ["status", "--porcelain"])).stdout, "every scaffolded file is in the commit").toBe("");
    const files = (await git(dir, ["ls-files"])).stdout.trim().split("\n");
    expect(files).toEqual(expect.arrayContaining(["mcp.json", "package.json", ".gitignore", ".github/workflows/test.yml", "src/main.ts"]));
    expect(files.filter((f) => f.startsWith("vendor/"))).toEqual([
      expect.stringMatching(/^vendor\/create-mcp-server-codegen-0\.1\.0-[0-9a-f]{12}\.tgz$/),
      expect.stringMatching(/^vendor\/create-mcp-server-runtime-0\.1\.0-[0-9a-f]{12}\.tgz$/),
    ]);
  });

  it("--no-git leaves git out; a project inside an existing repository is not made a repository of its own", async () => {
    const none = join(work, "no-git");
    const r = await create([none, "--yes", "--no-install", "--no-git"]);
    expectOk(r, "create-mcp-server --no-git");
    expect(existsSync(join(none, ".git"))).toBe(false);
    expect(r.stdout).not.toMatch(/git repository|initializing git/i);

    const mono = join(work, "monorepo");
    mkdirSync(mono);
    expectOk(await git(mono, ["init", "-q"]), "git init");
    const inner = join(mono, "packages", "server");
    const nested = await create([inner, "--yes", "--no-install"]);
    expectOk(nested, "create-mcp-server inside a repository");
    expect(nested.stdout).toContain(`Not initializing git: ${inner} is already inside a git repository\n`);
    expect(existsSync(join(inner, ".git"))).toBe(false);
  });
});

describe("the CI workflow", () => {
  it("is valid YAML that installs, lints and runs npm test on push and pull request", async () => {
    const dir = join(work, "workflow");
    expectOk(await create([dir, "--yes", "--no-install", "--no-git"]), "create-mcp-server");
    const workflow = parseYaml(readFileSync(join(dir, ".github", "workflows", "test.yml"), "utf8"));
    expect(Object.keys(workflow.on)).toEqual(["push", "pull_request"]);
    const steps: { uses?: string; run?: string; with?: Record<string, unknown> }[] = workflow.jobs.test.steps;
    expect(steps.map((s) => s.uses ?? s.run)).toEqual(["actions/checkout@v4", "actions/setup-node@v4", "npm ci", "npm run lint", "npm test"]);
    expect(steps[1].with!["node-version"]).toBe("${{ matrix.node }}");
    expect(workflow.jobs.test.strategy.matrix.node).toEqual([20, 22]);
  });
});

describe("printed client configuration", () => {
  it("--transport both shows the stdio entry, the HTTP URL and the add-to-client command; stdio and http each show theirs", async () => {
    const dir = join(work, "config-both");
    const r = await create([dir, "--yes", "--no-install", "--no-git", "--transport", "both"]);
    expectOk(r, "create-mcp-server --transport both");
    const main = join(dir, "dist", "src", "main.js");
    const stdioBlock = JSON.stringify({ mcpServers: { "config-both": { command: "node", args: [main, "--transport", "stdio"] } } }, null, 2);
    expect(r.stdout).toContain(stdioBlock);
    expect(r.stdout).toContain("Over Streamable HTTP, with `npm start -- --transport http --port 3000` running: http://127.0.0.1:3000/mcp\n");
    expect(r.stdout).toContain(`\n  node ${join(dir, "scripts", "add-to-client.mjs")}\n`);
    expect(r.stdout).toContain(`npx @modelcontextprotocol/inspector node ${main} --transport stdio`);

    const http = await create([join(work, "config-http"), "--yes", "--no-install", "--no-git", "--transport", "http"]);
    expect(http.stdout).toContain('"url": "http://127.0.0.1:3000/mcp"');
    expect(http.stdout).not.toContain("add-to-client");
    const stdio = await create([join(work, "config-stdio"), "--yes", "--no-install", "--no-git", "--transport", "stdio"]);
    expect(stdio.stdout).not.toContain("http://127.0.0.1:3000/mcp");
    expect(stdio.stdout).toContain("add-to-client.mjs");
  });

  it("add-to-client refuses an HTTP-only project: it has no stdio entry to add", async () => {
    const dir = join(work, "config-http");
    const r = await run(process.execPath, [join(dir, "scripts", "add-to-client.mjs"), "--config", join(work, "never.json")], { cwd: dir });
    expect([r.status, r.stderr]).toEqual([1, 'add-to-client: this server does not serve stdio (mcp.json "transports"); connect the client to its HTTP URL instead\n']);
    expect(existsSync(join(work, "never.json"))).toBe(false);
  });
});

/** The server's tool names over Streamable HTTP, by the initialize handshake of the newest legacy revision it serves. */
async function toolNames(url: string): Promise<string[]> {
  const rules = JSON.parse(readFileSync(join(OUT, "rules.json"), "utf8")) as { revisions: { id: string; era: string }[] };
  const revision = rules.revisions.filter((r) => r.era === "legacy").at(-1)!.id;
  const post = async (body: object, session?: string) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(session ? { "mcp-session-id": session, "mcp-protocol-version": revision } : {}) },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    const json = res.headers.get("content-type")?.includes("text/event-stream")
      ? text
          .split("\n")
          .find((l) => l.startsWith("data: "))
          ?.slice(6)
      : text;
    return { session: res.headers.get("mcp-session-id") ?? undefined, message: json ? JSON.parse(json) : undefined };
  };
  const init = await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: "devx-test", version: "1" } } });
  await post({ jsonrpc: "2.0", method: "notifications/initialized" }, init.session);
  const list = await post({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }, init.session);
  return (list.message.result.tools as { name: string }[]).map((t) => t.name);
}

/** `npm run dev` in its own process group, so that the whole tree (npm, dev.mjs, tsc, the server) can be ended. */
function startDev(dir: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.platform === "win32" ? "npm.cmd" : "npm", ["run", "dev", "--", ...args], {
    cwd: dir,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  const stop = () => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // already gone
    }
  };
  return { child, out: watchOutput(child), stop };
}

const SHOUT_HANDLER =
  'import type { ShoutTool } from "../../generated/handlers.js";\n\nexport const handler: ShoutTool = ({ text = "" }) => ({ content: [{ type: "text", text: text.toUpperCase() }] });\n';
const addShout = (dir: string) => {
  const manifest = JSON.parse(readFileSync(join(dir, "mcp.json"), "utf8"));
  manifest.tools.push({ name: "shout", description: "Upper-cases a text", inputSchema: { type: "object", properties: { text: { type: "string" } } } });
  writeFileSync(join(dir, "mcp.json"), JSON.stringify(manifest, null, 2) + "\n");
};

describe("an installed project (--transport both)", () => {
  // A copy of the run's installed basic project (the default template and transport, with git), so that its edits
  // stay here; its node_modules is linked.
  const dir = join(work, "installed", "basic-both");
  beforeAll(async () => {
    copyProject((await sharedProject("basic")).dir, dir);
  }, 600_000);

  it("the first commit has the lock file; npm run lint passes as scaffolded and after a build, fails on a misformatted file, and npm run format fixes it", async () => {
    expect((await git(dir, ["ls-files", "package-lock.json"])).stdout.trim()).toBe("package-lock.json");
    expectOk(await npm(dir, ["run", "lint"]), "npm run lint (fresh)");
    expectOk(await npm(dir, ["run", "build"]), "npm run build");
    expectOk(await npm(dir, ["run", "lint"]), "npm run lint (after the build: generated/ and dist/ are not the project's style to check)");
    const echo = join(dir, "src", "tools", "echo.ts");
    const original = readFileSync(echo, "utf8");
    writeFileSync(echo, original.replace(/;\n/g, "\n").replace(/"/g, "'"));
    const lint = await npm(dir, ["run", "lint"]);
    expect(lint.status).not.toBe(0);
    expect(lint.stdout + lint.stderr).toContain("src/tools/echo.ts");
    expectOk(await npm(dir, ["run", "format"]), "npm run format");
    expect(readFileSync(echo, "utf8")).toBe(original);
    expectOk(await npm(dir, ["run", "lint"]), "npm run lint (after format)");
  }, 300_000);

  it("add-to-client adds the stdio entry to a client's configuration file, keeping what is there, and never replaces a file it cannot read", async () => {
    expectOk(await npm(dir, ["run", "build"]), "npm run build");
    const config = join(work, "client", "config.json");
    mkdirSync(join(work, "client"), { recursive: true });
    writeFileSync(config, JSON.stringify({ theme: "dark", mcpServers: { other: { command: "other-server" } } }));
    const script = join(dir, "scripts", "add-to-client.mjs");
    const r = await run(process.execPath, [script, "--config", config], { cwd: work });
    expectOk(r, "add-to-client");
    expect(r.stdout).toBe(`Added "basic-both" in ${config}; restart the client to load it\n`);
    expect(JSON.parse(readFileSync(config, "utf8"))).toEqual({
      theme: "dark",
      mcpServers: { other: { command: "other-server" }, "basic-both": { command: process.execPath, args: [join(dir, "dist", "src", "main.js"), "--transport", "stdio"] } },
    });
    expect((await run(process.execPath, [script, "--config", config], { cwd: work })).stdout).toMatch(/^Replaced "basic-both"/);
    // The entry it wrote starts a server that answers over stdio.
    const entry = JSON.parse(readFileSync(config, "utf8")).mcpServers["basic-both"];
    const help = await run(entry.command, [...entry.args, "--help"], { timeoutMs: 20_000 });
    expect([help.status, help.stdout]).toEqual([0, expect.stringMatching(/^Usage: basic-both /)]);

    writeFileSync(config, "{ not json");
    const broken = await run(process.execPath, [script, "--config", config], { cwd: work });
    expect(broken.status).toBe(1);
    expect(broken.stderr).toMatch(/^add-to-client: .*config\.json is not valid JSON .*nothing was changed\n$/);
    expect(readFileSync(config, "utf8")).toBe("{ not json");
    if (process.platform === "linux") {
      const linux = await run(process.execPath, [script], { cwd: work });
      expect([linux.status, linux.stderr]).toEqual([1, "add-to-client: no known desktop client configuration file on linux; pass --config <file>\n"]);
    }
  }, 300_000);

  it("npm run dev serves HTTP, and an edit of mcp.json with its new handler regenerates, type-checks and restarts it with the new tool", async () => {
    expectOk(await npm(dir, ["run", "build"]), "npm run build");
    const dev = startDev(dir, ["--port", "0"]);
    try {
      const first = await dev.out.waitFor(/listening (http:\/\/\S+\/mcp)/, 0);
      expect(await toolNames(first[1])).not.toContain("shout");
      // A declared tool without its handler is a type error: the running server is kept.
      let mark = dev.out.text.length;
      addShout(dir);
      await dev.out.waitFor(/mcp\.json changed: regenerating[\s\S]*Found [1-9]\d* errors?\. Watching[\s\S]*type errors: the server keeps running the previous build/, mark);
      expect(await toolNames(first[1]), "the previous build still serves").not.toContain("shout");
      mark = dev.out.text.length;
      writeFileSync(join(dir, "src", "tools", "shout.ts"), SHOUT_HANDLER);
      const next = await dev.out.waitFor(/rebuilt: restarting the server\s+listening (http:\/\/\S+\/mcp)/, mark);
      expect(await toolNames(next[1])).toContain("shout");
    } finally {
      dev.stop();
    }
    await new Promise<void>((resolve) => (dev.child.exitCode !== null ? resolve() : dev.child.once("exit", () => resolve())));
  }, 300_000);

  it("npm run dev in a stdio-only project runs no server itself: it rebuilds dist/ on each change (the Inspector left out here)", async () => {
    const stdio = join(work, "installed", "devx-stdio");
    expectOk(await create([stdio, "--yes", "--no-install", "--no-git", "--transport", "stdio"]), "create-mcp-server --transport stdio");
    const { symlinkSync } = await import("node:fs");
    symlinkSync(join(dir, "node_modules"), join(stdio, "node_modules"));
    const dev = startDev(stdio, [], { MCP_DEV_INSPECTOR: "0" });
    try {
      await dev.out.waitFor(/\[dev\] built dist\/src\/main\.js/, 0);
      expect(dev.out.text).not.toMatch(/listening|Inspector/);
      const mark = dev.out.text.length;
      writeFileSync(join(stdio, "src", "tools", "shout.ts"), SHOUT_HANDLER);
      addShout(stdio);
      await dev.out.waitFor(/mcp\.json changed: regenerating[\s\S]*\[dev\] built dist\/src\/main\.js/, mark);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const main = join(stdio, "dist", "src", "main.js");
      expect(existsSync(join(stdio, "dist", "src", "tools", "shout.js")), "the new handler is built").toBe(true);
      expect(readFileSync(join(stdio, "dist", "generated", "register.js"), "utf8")).toContain("shout");
      expect(existsSync(main)).toBe(true);
    } finally {
      dev.stop();
    }
    await new Promise<void>((resolve) => (dev.child.exitCode !== null ? resolve() : dev.child.once("exit", () => resolve())));
  }, 300_000);
});
