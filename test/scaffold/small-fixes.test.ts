/**
 * The smaller things a new user hits in a scaffolded project (issue 21, section 4), each on real files and, where
 * behaviour must be seen, real processes: --legacy-sse, `npm start` before a build, `npm run dev` keeping legacy
 * sessions across reloads, the Dockerfile per package manager and auth mode, .env.example, CI with frozen lockfiles,
 * local green meaning CI green, the warning about revisions no official client speaks, and `create-mcp-server add`.
 * No project is installed here: the run's installed basic project (support.ts sharedProject) is copied to base, and the
 * others are scaffolded with --no-install and link to its node_modules. The describe blocks are independent (their own
 * folders, servers on free ports), but run one after another: on 2 cores the suite is CPU-bound, and concurrency
 * would only stretch each step towards its timeout.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { McpClient, SseClientTransport, StreamableHttpClientTransport } from "../../runtime/dist/index.js";
import { ROOT } from "../helpers.js";
import { checkDockerfile, startHttp } from "./deploy.js";
import { freePort } from "../deploy/rig.js";
import { copyProject, create, expectOk, linkNodeModules, npm, run, sharedCheck, sharedProject, tempDir, watchOutput } from "./support.js";

const work = tempDir("small");
/** A copy of the run's installed project (basic, both transports, with git: named basic-both): built once here, shared by the tests that run a server. */
const base = join(work, "basic-both");
/** The run's installed basic project itself (read-only). */
let installed: string;
/** A project scaffolded without installing, linked to the installed project's node_modules. */
async function linked(name: string, flags: string[]): Promise<string> {
  const dir = join(work, name);
  expectOk(await create([dir, "--yes", "--no-install", "--no-git", ...flags]), `create-mcp-server ${flags.join(" ")}`);
  linkNodeModules(installed, dir);
  return dir;
}
/** A project scaffolded without installing, for its files only. */
async function filesOf(name: string, flags: string[]): Promise<string> {
  const dir = join(work, name);
  expectOk(await create([dir, "--yes", "--no-install", "--no-git", ...flags]), `create-mcp-server ${flags.join(" ")}`);
  return dir;
}
const read = (dir: string, file: string) => readFileSync(join(dir, file), "utf8");
// eslint-disable-next-line no-control-regex -- ESC starts the colour codes prettier and vitest print.
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "");

let built: Promise<void>;
beforeAll(async () => {
  // With git: the Dockerfile check needs a .git in the build context to leave out.
  installed = (await sharedProject("basic")).dir;
  copyProject(installed, base);
  built = npm(base, ["run", "build"]).then((r) => expectOk(r, "npm run build"));
  await built;
}, 600_000);

describe("--legacy-sse", () => {
  it("serves the 2024-11-05 HTTP+SSE transport at /sse, which an SSE-only client connects to; without it /sse is 404", async () => {
    const plain = await startHttp(base, []);
    try {
      expect((await fetch(plain.url.replace(/\/mcp$/, "/sse"), { headers: { accept: "text/event-stream" } })).status).toBe(404);
    } finally {
      plain.child.kill("SIGTERM");
      await plain.exited;
    }
    for (const [args, env] of [
      [["--legacy-sse"], {}],
      [[], { MCP_LEGACY_SSE: "1" }],
    ] as const) {
      const server = await startHttp(base, [...args], env);
      try {
        const client = await new McpClient({ transport: new SseClientTransport(server.url.replace(/\/mcp$/, "/sse")), revision: "2024-11-05" }).connect();
        try {
          expect(client.revision).toBe("2024-11-05");
          expect((await client.callTool("echo", { text: "over HTTP+SSE" })).content).toEqual([{ type: "text", text: "over HTTP+SSE" }]);
        } finally {
          await client.close();
        }
      } finally {
        server.child.kill("SIGTERM");
        expect(await server.exited).toBe(0);
      }
    }
    // The usage and the README name it.
    expect(read(base, "src/main.ts")).toContain("--legacy-sse");
    expect(read(base, "README.md")).toMatch(/`--legacy-sse` \(or `MCP_LEGACY_SSE=1`\) also serves the deprecated 2024-11-05 HTTP\+SSE transport/);
  }, 60_000);
});

describe("npm start before npm run build", () => {
  it("says in one line to run the build, with no stack trace; once built, start serves", async () => {
    const dir = await filesOf("unbuilt", ["--transport", "stdio"]);
    const r = await npm(dir, ["start", "--silent"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("dist/src/main.js is missing: run npm run build first (mcp.json to generated/, then tsc to dist/)\n");
    expect(r.stdout).toBe("");
    // Built, the check lets start through at once: the server answers --version.
    await built;
    const ok = await npm(base, ["start", "--silent", "--", "--version"]);
    expectOk(ok, "npm start -- --version");
    expect(ok.stdout).toMatch(/^basic-both 0\.1\.0 \(@create-mcp-server\/runtime \d+\.\d+\.\d+/);
  }, 60_000);
});

describe("npm run dev", () => {
  it("keeps a legacy session across the restart after a rebuild, and says so: the same client goes on with the new code", async () => {
    const dir = await linked("dev", ["--transport", "http"]);
    const port = await freePort();
    // Its own process group, so that the whole tree (npm, dev.mjs, tsc, the server) can be ended.
    const child = spawn("npm", ["run", "dev", "--", "--port", String(port)], {
      cwd: dir,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, MCP_SESSION_STORE: "", MCP_REDIS_URL: "" },
    });
    const out = watchOutput(child, 120_000);
    try {
      const [, url] = await out.waitFor(/listening (http:\/\/\S+\/mcp)/, 0);
      expect(out.text).toContain("[dev] legacy sessions (Mcp-Session-Id) are kept across restarts in dist/.dev-sessions.json");
      const transport = new StreamableHttpClientTransport(url);
      const client = await new McpClient({ transport, revision: "2025-11-25" }).connect();
      try {
        expect((await client.callTool("echo", { text: "before" })).content).toEqual([{ type: "text", text: "before" }]);
        const session = transport.sessionId;
        expect(session).toBeTruthy();
        const mark = out.text.length;
        const echo = join(dir, "src", "tools", "echo.ts");
        writeFileSync(echo, read(dir, "src/tools/echo.ts").replace("text }] })", "text: `reloaded: ${text}` }] })"));
        await out.waitFor(/\[dev\] restart keeps 1 legacy session \(dist\/\.dev-sessions\.json\); open SSE streams end\n[\s\S]*listening http/, mark);
        // The same client, the same session, the new build.
        expect((await client.callTool("echo", { text: "after" })).content).toEqual([{ type: "text", text: "reloaded: after" }]);
        expect(transport.sessionId).toBe(session);
      } finally {
        await client.close();
      }
    } finally {
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // already gone
      }
    }
    await new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", () => resolve())));
  }, 300_000);
});

describe("the Dockerfile", () => {
  const LOCKS = { npm: "package-lock.json", pnpm: "pnpm-lock.yaml", yarn: "yarn.lock" };
  const FROZEN = {
    npm: ["npm ci --no-audit --no-fund", "npm ci --omit=dev --no-audit --no-fund"],
    pnpm: ["pnpm install --frozen-lockfile", "pnpm install --prod --frozen-lockfile"],
    yarn: ["yarn install --frozen-lockfile", "yarn install --production --frozen-lockfile"],
  };
  for (const pm of ["npm", "pnpm", "yarn"] as const) {
    for (const auth of ["none", "oauth"] as const) {
      it(`${pm}, --auth ${auth}: installs from ${LOCKS[pm]} exactly, says what the server does about authentication, the real shutdown default, a data folder for the node user`, async () => {
        const dir = await filesOf(`docker-${pm}-${auth}`, ["--transport", "http", "--package-manager", pm, "--auth", auth]);
        const docker = read(dir, "Dockerfile");
        const copies = docker.split("\n").filter((l) => /^COPY package\.json/.test(l));
        expect(copies).toEqual([`COPY package.json ${LOCKS[pm]}* ./`, `COPY package.json ${LOCKS[pm]}* ./`]);
        for (const other of Object.values(LOCKS).filter((l) => l !== LOCKS[pm])) expect(docker).not.toContain(other);
        const runs = docker.split("\n").filter((l) => l.startsWith("RUN "));
        expect(runs.filter((l) => l.startsWith("RUN if "))).toEqual([expect.stringContaining(`then ${FROZEN[pm][0]};`), expect.stringContaining(`then ${FROZEN[pm][1]};`)]);
        expect(runs).toContain(`RUN ${pm} run build`);
        if (pm === "pnpm") expect(runs.filter((l) => l === "RUN npm install --global pnpm --no-audit --no-fund")).toHaveLength(2);
        // The code's default (src/main.ts) is 8000 ms, and the Dockerfile says that.
        expect(read(dir, "src/main.ts")).toContain("process.env.MCP_SHUTDOWN_TIMEOUT_MS || 8_000");
        expect(docker).toMatch(/MCP_SHUTDOWN_TIMEOUT_MS, default\n# 8000;/);
        expect(docker).not.toContain("10000");
        if (auth === "oauth") {
          expect(docker).not.toMatch(/no authentication/);
          expect(docker).toContain("The server is an OAuth 2.1 resource server");
          expect(docker).toContain("-e MCP_AUTH_ISSUER=");
        } else expect(docker).toContain("The server has no authentication");
        // A folder the unprivileged user can write, made before USER switches to it.
        const lines = docker.split("\n");
        const mkdir = lines.indexOf("RUN mkdir -p data && chown 1000:1000 data");
        expect(mkdir).toBeGreaterThan(lines.lastIndexOf("FROM node:20-slim"));
        expect(lines.indexOf("USER node")).toBeGreaterThan(mkdir);
        expect(docker).toContain("MCP_TASK_STORE=sqlite:./data/tasks.db");
        expect(read(dir, "README.md")).toContain("MCP_TASK_STORE=sqlite:./data/tasks.db");
      });
    }
  }

  it("(npm) its steps, run without docker, give an image with a data/ folder owned by the node user, and the image serves", async () => {
    // The same check as the basic template's (projects.ts), of the same installed project: run once for the run.
    await sharedCheck("the Dockerfile of the installed basic project", () => checkDockerfile(installed));
  }, 600_000);
});

describe(".env.example and .gitignore", () => {
  const BASE = ["MCP_LOG_LEVEL", "MCP_REQUEST_STATE_SECRET", "MCP_TASK_STORE", "MCP_DATABASE_URL", "MCP_REDIS_URL", "MCP_REDIS_PREFIX", "MCP_RUNTIME_VALIDATE_RESULTS"];
  const HTTP = ["PORT", "MCP_LEGACY_SSE", "MCP_ALLOWED_HOSTS", "MCP_SHUTDOWN_TIMEOUT_MS", "MCP_SESSION_STORE"];
  const cases = [
    ["stdio", ["--transport", "stdio"], BASE],
    ["http", ["--transport", "http"], [...BASE, ...HTTP, "MCP_ALLOW_REMOTE"]],
    ["oauth", ["--transport", "http", "--auth", "oauth"], [...BASE, ...HTTP, "MCP_AUTH_ISSUER", "MCP_PUBLIC_URL", "MCP_AUTH_AUDIENCE", "MCP_AUTH_JWKS_URI"]],
  ] as const;
  for (const [name, flags, expected] of cases) {
    it(`${name}: .env.example names, commented out, every variable the server reads; .env is git-ignored, .env.example is not`, async () => {
      const dir = join(work, `env-${name}`);
      expectOk(await create([dir, "--yes", "--no-install", ...flags]), `create-mcp-server ${flags.join(" ")}`);
      const example = read(dir, ".env.example");
      const named = [...example.matchAll(/^# ([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
      expect(named.sort()).toEqual([...expected].sort());
      // Nothing is set by copying it: every assignment is commented.
      expect(example.split("\n").filter((l) => l.trim() && !l.startsWith("#"))).toEqual([]);
      // Whatever src/main.ts reads is in it, but the flags' defaults it parses and never uses: a stdio server's HTTP
      // ones, and --allow-remote under OAuth (accepted, changes nothing).
      const unused = name === "stdio" ? ["PORT", "MCP_ALLOW_REMOTE", "MCP_LEGACY_SSE"] : name === "oauth" ? ["MCP_ALLOW_REMOTE"] : [];
      for (const [, v] of read(dir, "src/main.ts").matchAll(/process\.env\.([A-Z_]+)/g)) if (!unused.includes(v)) expect(named, v).toContain(v);
      const ignored = await run("git", ["check-ignore", ".env", ".env.local", ".env.example"], { cwd: dir });
      expect(ignored.stdout.split("\n").filter(Boolean)).toEqual([".env", ".env.local"]);
      expect(read(dir, "README.md")).toContain("`.env.example` lists them");
    });
  }
});

describe("the CI workflow", () => {
  const STEPS = {
    npm: ["npm ci", "npm run lint", "npm test"],
    pnpm: ["npm install --global pnpm", "pnpm install --frozen-lockfile", "pnpm run lint", "pnpm test"],
    yarn: ["npm install --global yarn", "yarn install --frozen-lockfile", "yarn run lint", "yarn test"],
  };
  for (const pm of ["npm", "pnpm", "yarn"] as const) {
    it(`${pm}: installs exactly what the lock file says (${STEPS[pm].find((s) => s.includes(" ci") || s.includes("frozen"))})`, async () => {
      const dir = await filesOf(`ci-${pm}`, ["--package-manager", pm]);
      const workflow = parseYaml(read(dir, ".github/workflows/test.yml"));
      expect(workflow.jobs.test.steps.map((s: { run?: string }) => s.run).filter(Boolean)).toEqual(STEPS[pm]);
    });
  }
});

describe("local green means CI green", () => {
  it("npm test checks the formatting as CI's npm run lint does: a misformatted handler fails it, naming the file and npm run format", async () => {
    const dir = await linked("lint", ["--transport", "stdio"]);
    const echo = join(dir, "src", "tools", "echo.ts");
    const original = read(dir, "src/tools/echo.ts");
    // Valid TypeScript that builds, but not in the project's style (single quotes).
    writeFileSync(echo, original.replace(/"/g, "'"));
    const test = await npm(dir, ["test"]);
    expect(test.status).not.toBe(0);
    const output = plain(test.stdout + test.stderr);
    expect(output, output).toContain("[warn] src/tools/echo.ts");
    // The hint after prettier's list, on stderr as it is.
    expect(plain(test.stderr)).toMatch(/\[warn\] src\/tools\/echo\.ts\n[\s\S]*lint: npm run format fixes the files named above\n/);
    expect(output, "the tests did not run").not.toMatch(/Test Files/);
    expectOk(await npm(dir, ["run", "format"]), "npm run format");
    expect(read(dir, "src/tools/echo.ts")).toBe(original);
    expectOk(await npm(dir, ["run", "lint"]), "npm run lint after format");
  }, 300_000);
});

describe("served revisions that today's official clients do not speak", () => {
  it("the list of what they speak is the installed SDKs' own (1.x SUPPORTED_PROTOCOL_VERSIONS, 2.x by default), in the scaffolder and the codegen alike", async () => {
    const known = (JSON.parse(readFileSync(join(ROOT, "out", "rules.json"), "utf8")) as { revisions: { id: string }[] }).revisions.map((r) => r.id);
    const sdk1 = (await import("@modelcontextprotocol/sdk/types.js")).SUPPORTED_PROTOCOL_VERSIONS as string[];
    const sdk2 = (await import("@modelcontextprotocol/client")).SUPPORTED_PROTOCOL_VERSIONS as string[];
    const published = (list: string[]) => list.filter((r) => known.includes(r)).sort();
    expect(published(sdk1)).toEqual(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]);
    expect(published(sdk2)).toEqual(published(sdk1));
    const { OFFICIAL_CLIENT_REVISIONS: scaffolder } = await import("../../generator/overlay-clients.js");
    const { OFFICIAL_CLIENT_REVISIONS: codegen } = await import("../../codegen/src/clients.js");
    expect([...scaffolder]).toEqual(published(sdk1));
    expect([...codegen]).toEqual(published(sdk1));
  });

  it("scaffolding --revisions 2026-07-28 warns, naming what the clients speak; with a legacy revision too it does not", async () => {
    const only = await create([join(work, "modern-only"), "--yes", "--no-install", "--no-git", "--revisions", "2026-07-28"]);
    expectOk(only, "create-mcp-server --revisions 2026-07-28");
    expect(only.stderr).toBe(
      'create-mcp-server: warning: --revisions 2026-07-28 has none that the official TypeScript SDK\'s clients speak by default today (SDK 1.x: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25; SDK 2.x: the same, and 2026-07-28 only when the client opts in), so they cannot connect: add one of those (--revisions, or "revisions" in mcp.json)\n',
    );
    const both = await create([join(work, "modern-and-legacy"), "--yes", "--no-install", "--no-git", "--revisions", "2025-11-25,2026-07-28"]);
    expectOk(both, "create-mcp-server --revisions 2025-11-25,2026-07-28");
    expect(both.stderr).toBe("");
  });

  it("npm run generate warns the same way (exit 0), and not once mcp.json serves a revision they speak", async () => {
    const dir = await linked("generate-modern", ["--revisions", "2026-07-28"]);
    const warned = await npm(dir, ["run", "generate"]);
    expectOk(warned, "npm run generate");
    expect(warned.stderr).toContain(
      "generate: warning: mcp.json's \"revisions\" (2026-07-28) has none that the official TypeScript SDK's clients speak by default today (SDK 1.x: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25; SDK 2.x: the same, and 2026-07-28 only when the client opts in): add one of those for them to connect\n",
    );
    const manifest = JSON.parse(read(dir, "mcp.json"));
    manifest.revisions = ["2025-06-18", "2026-07-28"];
    writeFileSync(join(dir, "mcp.json"), JSON.stringify(manifest, null, 2));
    const quiet = await npm(dir, ["run", "generate"]);
    expectOk(quiet, "npm run generate");
    expect(quiet.stderr).not.toContain("warning");
  }, 120_000);
});

describe("create-mcp-server add tool|prompt|resource NAME", () => {
  it("writes the formatted mcp.json entry, the handler stub and a test, regenerates; the project builds, lints and its new tests pass; a taken or invalid name is refused in one line", async () => {
    const dir = await linked("add", []);
    const tool = await create(["add", "tool", "get_weather"], dir);
    expectOk(tool, "create-mcp-server add tool get_weather");
    expect(tool.stdout.split("\n")[0]).toBe('Added tool "get_weather": mcp.json, src/tools/get_weather.ts, test/tools/get_weather.test.ts');
    expect(tool.stdout).toMatch(/\ngenerated\/: \d+ files from mcp\.json \(4 tools, 1 prompt, 2 resources\)/);
    const manifest = JSON.parse(read(dir, "mcp.json"));
    expect(manifest.tools.at(-1)).toEqual({
      name: "get_weather",
      description: "TODO: what get_weather does.",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
    });
    expect(read(dir, "src/tools/get_weather.ts")).toBe(
      'import type { GetWeatherTool } from "../../generated/handlers.js";\n\n/** TODO: what get_weather does. */\nexport const handler: GetWeatherTool = (args, ctx) => ({ content: [{ type: "text", text: "…" }] });\n',
    );
    expect(read(dir, "test/tools/get_weather.test.ts")).toContain('await get().client.callTool("get_weather", {});');
    expectOk(await create(["add", "prompt", "plan-trip"], dir), "add prompt");
    expect(JSON.parse(read(dir, "mcp.json")).prompts.at(-1)).toEqual({ name: "plan-trip", description: "TODO: what plan-trip does.", arguments: [] });
    expect(read(dir, "src/prompts/plan-trip.ts")).toContain('export const get: PlanTripPrompt["get"] = (args, ctx) => ({ messages: [] });');
    expectOk(await create(["add", "resource", "forecast"], join(dir, "src")), "add resource (from a folder of the project)");
    expect(JSON.parse(read(dir, "mcp.json")).resources.at(-1)).toEqual({ uri: "app://forecast", name: "forecast", description: "TODO: what forecast does.", mimeType: "text/plain" });

    const before = read(dir, "mcp.json");
    for (const [args, line] of [
      [["tool", "echo"], 'add: mcp.json already declares tool "echo"'],
      [["resource", "greeting"], 'add: mcp.json already declares a resource or resource template "greeting"'],
      [["tool", "has space"], 'add: "has space" is not a valid tool name: 1-128 characters of A-Z, a-z, 0-9, _, - and .'],
      [["widget", "x"], 'add: unknown kind "widget": add tool|prompt|resource NAME'],
    ] as const) {
      const r = await create(["add", ...args], dir);
      expect([r.status, r.stdout, r.stderr], args.join(" ")).toEqual([1, "", `${line}\n`]);
    }
    expect(read(dir, "mcp.json"), "a refusal writes nothing").toBe(before);

    // What CI runs passes: the build, the formatting check, and the new tests (in every revision served).
    expectOk(await npm(dir, ["run", "build"]), "npm run build");
    expectOk(await npm(dir, ["run", "lint"]), "npm run lint");
    const tests = await npm(dir, ["exec", "--", "vitest", "run", "test/tools", "test/prompts", "test/resources"]);
    expectOk(tests, "the added tests");
    expect(plain(tests.stdout)).toMatch(/Test Files\s+3 passed \(3\)/);
  }, 300_000);

  it("`ad` is taken for `add`, but a project named `app` or `api` is still a project", async () => {
    const cwd = join(work, "names");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(cwd);
    const typo = await create(["ad", "tool", "x"], cwd);
    expect([typo.status, typo.stderr]).toEqual([1, "create-mcp-server: 'ad' is not a command (did you mean 'add'?); to create a project with that name, pass ./ad\n"]);
    for (const name of ["app", "api"]) expectOk(await create([name, "--yes", "--no-install", "--no-git"], cwd), `create-mcp-server ${name}`);
  });

  it("outside a project it says so in one line", async () => {
    const r = await create(["add", "tool", "x"], work);
    expect([r.status, r.stderr]).toEqual([1, `create-mcp-server: add: no mcp.json in ${work} or above: run it inside a project made by create-mcp-server\n`]);
  });
});
