/**
 * What a deploying user relies on beyond checkDeploy, on built scaffolded projects as real processes: the Dockerfile's
 * steps executed without docker (docker cannot run here), SIGTERM while a slow request is being answered, and the
 * stdio transport keeping stdout for JSON-RPC while its log goes to stderr.
 */
import { spawn } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createServer, type AddressInfo } from "node:net";
import { basename, dirname, join, posix } from "node:path";
import { expect } from "vitest";
import { modernRequest } from "../runtime/http-helpers.js";
import { expectOk, npm, run, tempDir } from "./support.js";

/** A started `node dist/src/main.js --transport http` with its stderr so far. */
export async function startHttp(project: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [join(project, "dist", "src", "main.js"), "--transport", "http", "--port", "0", ...args], {
    cwd: project,
    env: { ...process.env, MCP_LOG_LEVEL: "", ...env },
  });
  return listening(child);
}

/** Resolves once `child` printed its `listening <url>` line on stderr. */
async function listening(child: ReturnType<typeof spawn>) {
  let stderr = "";
  let stdout = "";
  child.stderr!.on("data", (c) => (stderr += c));
  child.stdout!.on("data", (c) => (stdout += c));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within 10 s:\n${stderr}`)), 10_000);
    child.stderr!.on("data", () => {
      const m = /^listening (http:\/\/\S+\/mcp)$/m.exec(stderr);
      if (!m) return;
      clearTimeout(timer);
      resolve(m[1]);
    });
    void exited.then((code) => reject(new Error(`exited ${code} before listening:\n${stderr}`)));
  });
  return { child, url, exited, stderr: () => stderr, stdout: () => stdout };
}

/** A modern (stateless) MCP request as fetch options. */
export function modern(id: number, method: string, params: Record<string, unknown> = {}): RequestInit {
  const { body, headers } = modernRequest(id, method, params);
  return { method: "POST", headers, body: JSON.stringify(body) };
}

/** The JSON-RPC message of a response that is JSON or an SSE stream (its last data line). */
async function jsonRpcOf(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (!/^text\/event-stream/.test(res.headers.get("content-type") ?? "")) return JSON.parse(text);
  const data = text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .at(-1);
  return JSON.parse(data!.slice(6));
}

/** One request on a connection of its own (no keep-alive pool): status, or the connection error's code. */
function freshRequest(url: string, init: { method: string; headers?: Record<string, string>; body?: string }): Promise<number | string> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: init.method, headers: init.headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode!));
    });
    req.on("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end(init.body);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The Dockerfile, executed without docker.

interface Instruction {
  op: string;
  args: string;
}

/** The instructions of a Dockerfile: comments dropped, `\` continuations joined. */
export function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = "";
  for (const line of text.split("\n")) {
    if (!pending && /^\s*(#|$)/.test(line)) continue;
    if (line.endsWith("\\")) {
      pending += line.slice(0, -1) + " ";
      continue;
    }
    const full = (pending + line).trim();
    pending = "";
    const m = /^(\w+)\s+(.*)$/.exec(full);
    if (!m) throw new Error(`not a Dockerfile instruction: ${full}`);
    out.push({ op: m[1].toUpperCase(), args: m[2] });
  }
  return out;
}

/**
 * A .dockerignore as docker reads it: one pattern a line relative to the context root (a leading or trailing `/`
 * does not matter), `*` and `?` within one path segment, `**` any number of segments, `!` re-includes; the last
 * matching pattern decides, and a path is excluded when it or a folder above it is.
 */
export function dockerignore(text: string): (path: string) => boolean {
  const patterns = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => {
      const negate = l.startsWith("!");
      const clean = posix.normalize(l.slice(negate ? 1 : 0).trim()).replace(/^\/+|\/+$/g, "");
      const source = clean
        .split("/")
        .map((seg) =>
          seg === "**"
            ? "(?:.*)"
            : seg
                .replace(/[.+^${}()|[\]\\]/g, "\\$&")
                .replace(/\*/g, "[^/]*")
                .replace(/\?/g, "[^/]"),
        )
        .join("/")
        .replace(/\(\?:\.\*\)\//g, "(?:.*/)?");
      return { negate, re: new RegExp(`^${source}$`) };
    });
  return (path) => {
    const segments = path.split("/");
    let excluded = false;
    for (const { negate, re } of patterns) {
      for (let i = 1; i <= segments.length; i++) if (re.test(segments.slice(0, i).join("/"))) excluded = !negate;
    }
    return excluded;
  };
}

const GLOB = /[*?[]/;
const globRe = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|\\]/g, "\\$&")
      .replace(/\*/g, "[^/]*")
      .replace(/\?/g, "[^/]")}$`,
  );

/**
 * Copies `from` (a file, or a folder's contents, as COPY does) to `to`, leaving out what `skip` names (paths
 * relative to the context). An excluded folder is left out whole unless `descend` (a `!` pattern could re-include
 * something under it).
 */
function copyInto(from: string, to: string, rel: string, skip: (path: string) => boolean, toIsDir: boolean, descend = false): void {
  if (statSync(from).isDirectory()) {
    mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from)) {
      const r = rel ? `${rel}/${name}` : name;
      const isDir = statSync(join(from, name)).isDirectory();
      if (skip(r) && (!isDir || !descend)) continue;
      copyInto(join(from, name), join(to, name), r, skip, false, descend);
    }
    return;
  }
  const target = toIsDir ? join(to, basename(from)) : to;
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(from, target);
}

/** The environment of a container process: this one's PATH and npm cache, none of the test runner's own variables. */
function containerEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|VITEST|NODE_ENV$|NODE_OPTIONS$|MCP_)/.test(k)));
  return { ...base, ...env };
}

/**
 * Runs the Dockerfile of a scaffolded HTTP project without docker: each stage is a folder standing for its image's
 * file system, COPY takes from the build context (what .dockerignore leaves) or from an earlier stage, RUN runs in
 * the stage's WORKDIR with its ENV, then the final stage's CMD is started and answers /healthz, MCP, and its
 * HEALTHCHECK; SIGTERM ends it with 0. The base image (node:20-slim) is this machine's Node.
 */
export async function checkDockerfile(context: string): Promise<void> {
  const steps = parseDockerfile(readFileSync(join(context, "Dockerfile"), "utf8"));
  const ignored = dockerignore(readFileSync(join(context, ".dockerignore"), "utf8"));
  const descend = /^\s*!/m.test(readFileSync(join(context, ".dockerignore"), "utf8"));
  const work = tempDir("docker");
  type Stage = { root: string; workdir: string; env: Record<string, string>; user?: string; expose: string[]; cmd?: string[]; healthcheck?: string[] };
  const stages: Stage[] = [];
  const named = new Map<string, Stage>();
  const inStage = (s: Stage, p: string) => join(s.root, posix.resolve(s.workdir, p));
  for (const { op, args } of steps) {
    const stage = stages.at(-1)!;
    if (op !== "FROM" && !stage) throw new Error(`${op} before FROM`);
    switch (op) {
      case "FROM": {
        const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
        expect(m[1], "the base image is Node 20, which these steps run on").toMatch(/^node:20(\W|$)/);
        const s: Stage = { root: join(work, `stage-${stages.length}`), workdir: "/", env: {}, expose: [] };
        mkdirSync(s.root);
        stages.push(s);
        if (m[2]) named.set(m[2], s);
        break;
      }
      case "WORKDIR":
        stage.workdir = posix.resolve(stage.workdir, args);
        mkdirSync(join(stage.root, stage.workdir), { recursive: true });
        break;
      case "ENV": {
        const m = /^(\w+)[= ](.*)$/.exec(args)!;
        stage.env[m[1]] = m[2];
        break;
      }
      case "COPY": {
        const words = args.split(/\s+/);
        const from = words[0].startsWith("--from=") ? named.get(words.shift()!.slice(7)) : undefined;
        if (words[0]?.startsWith("--")) throw new Error(`COPY option not simulated: ${words[0]}`);
        const dest = words.pop()!;
        const destIsDir = dest.endsWith("/") || dest === "." || words.length > 1;
        const target = inStage(stage, dest);
        let copied = 0;
        for (const src of words) {
          // From the context: relative to its root, through .dockerignore. From a stage: that stage's file system.
          const base = from ? from.root : context;
          const rel = from ? posix.resolve(from.workdir, src).slice(1) : posix.normalize(src).replace(/^\.\/?|^\/+/, "");
          const matches = GLOB.test(basename(rel))
            ? readdirSync(join(base, dirname(rel)))
                .filter((n) => globRe(basename(rel)).test(n))
                .map((n) => posix.join(dirname(rel), n))
            : [rel];
          for (const m of matches) {
            const path = join(base, m);
            if (!existsSync(path) || (!from && m && m !== "." && ignored(m))) {
              if (GLOB.test(src)) continue;
              throw new Error(`COPY ${src}: not in the ${from ? "stage" : "build context"}`);
            }
            const isDir = statSync(path).isDirectory();
            if (from && isDir) cpSync(path, target, { recursive: true, verbatimSymlinks: true });
            else copyInto(path, target, m === "." ? "" : m, from ? () => false : ignored, destIsDir && !isDir, descend);
            copied++;
          }
        }
        if (!copied) throw new Error(`COPY ${args}: nothing to copy`);
        break;
      }
      case "RUN": {
        const r = await run("sh", ["-c", args], { cwd: join(stage.root, stage.workdir), env: containerEnv(stage.env), timeoutMs: 300_000 });
        expectOk(r, `RUN ${args}`);
        break;
      }
      case "USER":
        stage.user = args;
        break;
      case "EXPOSE":
        stage.expose.push(...args.split(/\s+/));
        break;
      case "CMD":
        stage.cmd = JSON.parse(args);
        break;
      case "HEALTHCHECK": {
        const m = /\bCMD\s+(\[.*\])$/.exec(args)!;
        stage.healthcheck = JSON.parse(m[1]);
        break;
      }
      default:
        throw new Error(`Dockerfile instruction not simulated: ${op}`);
    }
  }
  expect(stages.length, "multi-stage: build, production dependencies, image").toBe(3);
  // What .dockerignore leaves out never reached the build stage (node_modules/, dist/ and generated/ there are its own).
  const built = join(stages[0].root, stages[0].workdir);
  for (const left of [".git", ".dockerignore", "Dockerfile"]) expect(existsSync(join(built, left)), left).toBe(false);
  expect(existsSync(join(context, ".git")), "the context has a .git to leave out").toBe(true);
  const final = stages.at(-1)!;
  const app = join(final.root, final.workdir);
  // The image holds what runs, nothing else: no sources, no generated/, no devDependencies.
  expect(readdirSync(app).sort()).toEqual(["data", "dist", "node_modules", "package.json"]);
  // data/ is the one folder the `node` user (uid 1000 in the official image) may write: empty, and its own.
  expect([readdirSync(join(app, "data")), statSync(join(app, "data")).uid]).toEqual([[], 1000]);
  // npm ci --omit=dev: no devDependency, so none of the code generator (its package, prettier, json-schema-to-typescript).
  for (const dev of ["typescript", "@create-mcp-server/codegen", "prettier", "json-schema-to-typescript"]) expect(existsSync(join(app, "node_modules", dev)), dev).toBe(false);
  expect(existsSync(join(app, "node_modules", "@create-mcp-server", "runtime", "package.json"))).toBe(true);
  // The tests run as root, so USER cannot be switched to here; what can be checked is that the image names one that is not root.
  expect(final.user).toBeDefined();
  expect(final.user).not.toMatch(/^(root|0)(:|$)/);
  expect(final.cmd).toEqual(["node", "dist/src/main.js", "--transport", "http", "--host", "0.0.0.0", "--allow-remote"]);
  expect(final.expose).toEqual([final.env.PORT]);

  // The CMD exactly as the image runs it (it listens on every interface, as in a container; traffic goes only to
  // 127.0.0.1), with PORT set as `docker run -e PORT=...` would: a free port, since 3000 may be taken on this machine.
  const port = await freePort();
  const env = containerEnv({ ...final.env, PORT: String(port) });
  const child = spawn(final.cmd![0] === "node" ? process.execPath : final.cmd![0], final.cmd!.slice(1), { cwd: app, env });
  const server = await listening(child);
  try {
    expect(server.url).toBe(`http://0.0.0.0:${port}/mcp`);
    const base = `http://127.0.0.1:${port}`;
    const health = await fetch(`${base}/healthz`);
    expect([health.status, await health.text()]).toEqual([200, '{"status":"ok"}']);
    const discover = await fetch(`${base}/mcp`, modern(1, "server/discover"));
    expect(discover.status).toBe(200);
    expect(await jsonRpcOf(discover)).toMatchObject({ jsonrpc: "2.0", id: 1, result: { _meta: { "io.modelcontextprotocol/serverInfo": { name: basename(context) } } } });
    // HEALTHCHECK's command, as docker runs it inside the container.
    const check = await run(process.execPath, final.healthcheck!.slice(1), { cwd: app, env, timeoutMs: 10_000 });
    expect(final.healthcheck![0]).toBe("node");
    expect(check.status, check.stderr).toBe(0);
  } finally {
    child.kill("SIGTERM");
  }
  expect(await server.exited).toBe(0);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// SIGTERM while a slow request is being answered.

const SLOW_MS = 1500;

/** Declares a tool `slow` (answers after SLOW_MS), `broken` (throws) and `refuses` (throws an McpError) in a scaffolded project, and builds it. */
export async function addSlowTool(project: string): Promise<void> {
  const manifest = JSON.parse(readFileSync(join(project, "mcp.json"), "utf8"));
  manifest.tools.push({ name: "slow", description: `Answers after ${SLOW_MS} ms`, inputSchema: { type: "object", properties: {} } });
  writeFileSync(join(project, "mcp.json"), JSON.stringify(manifest, null, 2) + "\n");
  writeFileSync(
    join(project, "src", "tools", "slow.ts"),
    `import type { SlowTool } from "../../generated/handlers.js";\n\nexport const handler: SlowTool = async () => {\n  await new Promise((r) => setTimeout(r, ${SLOW_MS}));\n  return { content: [{ type: "text", text: "done slowly" }] };\n};\n`,
  );
  // And one whose handler fails, for checkHandlerFailureLog.
  manifest.tools.push({ name: "broken", description: "Throws", inputSchema: { type: "object", properties: {} } });
  writeFileSync(join(project, "mcp.json"), JSON.stringify(manifest, null, 2) + "\n");
  writeFileSync(
    join(project, "src", "tools", "broken.ts"),
    `import type { BrokenTool } from "../../generated/handlers.js";\n\nexport const handler: BrokenTool = async () => {\n  throw new Error("the weather API key is missing");\n};\n`,
  );
  // And one that refuses on purpose (an McpError: meant for the client, logged at info).
  manifest.tools.push({ name: "refuses", description: "Throws an McpError", inputSchema: { type: "object", properties: {} } });
  writeFileSync(join(project, "mcp.json"), JSON.stringify(manifest, null, 2) + "\n");
  writeFileSync(
    join(project, "src", "tools", "refuses.ts"),
    `import { McpError } from "@create-mcp-server/runtime";\nimport type { RefusesTool } from "../../generated/handlers.js";\n\nexport const handler: RefusesTool = () => {\n  throw new McpError(-32602, "this city is not served");\n};\n`,
  );
  expectOk(await npm(project, ["run", "build"]), "npm run build (with the slow, broken and refuses tools)");
}

/**
 * Handler failures in the generated main.ts's log (its --log-level logger, not the runtime's default, which leaves out
 * info records): a tool that throws is one JSON line on stderr at `error` with the tool, the request id, the error's
 * message and stack and its errorId, and under NODE_ENV=production the client's isError text is "Internal error (id
 * <that errorId>)", never the exception text; an McpError a tool throws is one line at `info`, its message sent as it is.
 */
export async function checkHandlerFailureLog(project: string): Promise<void> {
  const server = await startHttp(project, ["--log-level", "info"], { NODE_ENV: "production" });
  const broken = await jsonRpcOf(await fetch(server.url, modern(9, "tools/call", { name: "broken", arguments: {} })));
  const refused = await jsonRpcOf(await fetch(server.url, modern(10, "tools/call", { name: "refuses", arguments: {} })));
  server.child.kill("SIGTERM");
  expect(await server.exited).toBe(0);
  const records = server
    .stderr()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l))
    .filter((r) => r.msg !== "request" && r.msg !== "listening" && r.msg !== "shutting down" && r.msg !== "stopped");
  expect(records, server.stderr()).toHaveLength(2);
  const [failed, answered] = records;
  expect(failed).toMatchObject({ level: "error", msg: "handler failed", method: "tools/call", tool: "broken", requestId: 9, error: { message: "the weather API key is missing" } });
  expect(failed.time).toMatch(/^\d{4}-\d\d-\d\dT/);
  expect(failed.error.stack).toContain("broken.js");
  expect(failed.errorId).toMatch(/^[0-9a-f]{16}$/);
  expect(broken).toMatchObject({ id: 9, result: { content: [{ type: "text", text: `Internal error (id ${failed.errorId})` }], isError: true } });
  expect(JSON.stringify(broken)).not.toContain("API key");
  expect(answered).toMatchObject({ level: "info", msg: "handler answered an error", tool: "refuses", requestId: 10, error: { message: "this city is not served" } });
  expect(refused).toMatchObject({ id: 10, error: { code: -32602, message: "this city is not served" } });
}

/**
 * SIGTERM while `slow` runs: the server stops accepting (a new connection is refused, or answered 503), the slow
 * request still gets its result, and the process exits 0 as soon as it is done, within MCP_SHUTDOWN_TIMEOUT_MS.
 */
export async function checkSlowShutdown(project: string): Promise<void> {
  const drainMs = 5000;
  const server = await startHttp(project, [], { MCP_SHUTDOWN_TIMEOUT_MS: String(drainMs), MCP_LOG_LEVEL: "info" });
  let exitedAt = 0;
  void server.exited.then(() => (exitedAt = performance.now()));
  const started = performance.now();
  const slow = fetch(server.url, modern(7, "tools/call", { name: "slow", arguments: {} })).then(async (res) => ({ status: res.status, message: await jsonRpcOf(res), at: performance.now() }));
  await new Promise((r) => setTimeout(r, 300));
  const term = performance.now();
  server.child.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 100));
  // New requests, each on a new connection, while the slow one is still being answered.
  const { body, headers } = modernRequest(8, "tools/list");
  const refused = [await freshRequest(server.url, { method: "POST", headers, body: JSON.stringify(body) }), await freshRequest(server.url.replace(/\/mcp$/, "/healthz"), { method: "GET" })];
  for (const r of refused) expect(["ECONNREFUSED", 503]).toContain(r);
  const answered = await slow;
  expect(answered.at - started, "the request ran its full time").toBeGreaterThanOrEqual(SLOW_MS - 50);
  expect(answered.status).toBe(200);
  expect(answered.message).toMatchObject({ id: 7, result: { content: [{ type: "text", text: "done slowly" }] } });
  expect(await server.exited, server.stderr()).toBe(0);
  expect(exitedAt, "exits after the slow request was answered").toBeGreaterThanOrEqual(answered.at - 5);
  expect(exitedAt - term, "exits within MCP_SHUTDOWN_TIMEOUT_MS").toBeLessThan(drainMs);
  const records = server
    .stderr()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
  expect(records.map((r) => r.msg)).toEqual(["listening", "shutting down", "request", "stopped"]);
  expect(records[2]).toMatchObject({ status: 200, mcpMethod: "tools/call" });
  expect(records[2].aborted).toBeUndefined();
}

// ---------------------------------------------------------------------------------------------------------------
// stdio: stdout is the protocol's.

/**
 * `--transport stdio --log-level debug`: every stdout line is a JSON-RPC response to what was sent (also for a line
 * that is not JSON and an unknown method), and the log's JSON lines are on stderr.
 */
export async function checkStdioLog(project: string): Promise<void> {
  const child = spawn(process.execPath, [join(project, "dist", "src", "main.js"), "--transport", "stdio", "--log-level", "debug"], { cwd: project, env: { ...process.env, MCP_LOG_LEVEL: "" } });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const lines = () => stdout.split("\n").filter(Boolean);
  const gotAll = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not 4 answers within 10 s:\n${stdout}\n--- stderr\n${stderr}`)), 10_000);
    child.stdout.on("data", (c) => {
      stdout += c;
      if (lines().length >= 4) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const send = (m: unknown) => child.stdin.write((typeof m === "string" ? m : JSON.stringify(m)) + "\n");
  send(modernRequest(1, "server/discover").body);
  send(modernRequest(2, "tools/list").body);
  send("{not json");
  send(modernRequest(3, "no/such/method").body);
  await gotAll;
  child.stdin.end();
  const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("running"), 5000))]);
  if (code === "running") child.kill("SIGTERM");
  const messages = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const m of messages) {
    expect(m.jsonrpc).toBe("2.0");
    expect("result" in m !== "error" in m, JSON.stringify(m)).toBe(true);
  }
  // The answer to a line that is not JSON has no id to echo: the schema lets it leave `id` out
  // (spec/2026-07-28/schema.mdx#jsonrpcerrorresponse-id).
  expect(messages.map((m) => m.id ?? null).sort()).toEqual([1, 2, 3, null].sort());
  expect(messages.find((m) => (m.id ?? null) === null)).toMatchObject({ error: { code: -32700 } });
  expect(messages.find((m) => m.id === 3)).toMatchObject({ error: { code: -32601 } });
  expect(code, "the end of stdin ends the server").toBe(0);
  const logged = stderr.split("\n").filter(Boolean);
  expect(logged.length).toBeGreaterThan(0);
  const records = logged.map((l) => JSON.parse(l));
  expect(records[0]).toMatchObject({ level: "info", msg: "serving stdio" });
  for (const r of records) expect(["error", "warn", "info", "debug"]).toContain(r.level);
}
