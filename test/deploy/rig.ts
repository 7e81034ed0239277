/**
 * The scale-out rig: one scaffolded project (the everything template, HTTP) run as N processes on 127.0.0.1, with
 * the shared stores of this machine (PostgreSQL task store, the Redis URL for the bus), behind nginx started from
 * nginx.conf.template (round-robin, no stickiness). Used by scale-out.test.ts and bench/scale.mjs (through the
 * RIG_* environment of `rig-cli.ts`); everything it starts it stops.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect, createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { ROOT } from "../helpers.js";
import { create, expectOk, npm, tempDir } from "../scaffold/support.js";
import { NGINX } from "../services.js";

export const TEMPLATE = join(ROOT, "test", "deploy", "nginx.conf.template");

/**
 * Tools the rig adds to the generated server in code (src/rig-tools.ts, registered by src/server.ts), as a user adds
 * what mcp.json cannot declare (a task tool): each names the process that answered, so a test sees where a request
 * went. rig_echo echoes its arguments; rig_ask elicits a name (MRTR; in a legacy session an elicitation/create request)
 * saying which process asked; rig_work runs as a task for `ms` milliseconds, its statusMessage naming the process that
 * runs it; rig_update announces notifications/resources/updated for `uri` (the everything template has no tool that does).
 */
const RIG_TOOLS = `import type { McpServer } from "@create-mcp-server/runtime";

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });
const text = (value: unknown) => ({ content: [{ type: "text" as const, text: JSON.stringify(value) }] });

export function addRigTools(server: McpServer): McpServer {
  server.tool({
    name: "rig_echo",
    description: "Echoes its arguments and the pid of the process that answered",
    inputSchema: { type: "object" },
    annotations: { readOnlyHint: true },
    handler: (args) => text({ pid: process.pid, args }),
  });
  server.tool({
    name: "rig_ask",
    description: "Elicits a name; the question names the process that asked, the answer the one that answered",
    inputSchema: { type: "object", properties: { tag: { type: "string" } } },
    handler: async (args, ctx) => {
      const answer = await ctx.elicit(
        { message: \`asked by \${process.pid}\`, requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
        { key: "name" },
      );
      return text({ answeredBy: process.pid, tag: args.tag, name: (answer.content as { name?: string } | undefined)?.name });
    },
  });
  server.tool({
    name: "rig_work",
    description: "Works for ms milliseconds as a task; its statusMessage names the process running it",
    taskSupport: "optional",
    inputSchema: { type: "object", properties: { ms: { type: "integer" }, tag: { type: "string" } }, required: ["ms"] },
    handler: async (args, ctx) => {
      ctx.task?.status(\`running on \${process.pid}\`);
      await sleep(Number(args.ms), ctx.signal);
      return text({ pid: process.pid, tag: args.tag });
    },
  });
  server.tool({
    name: "rig_update",
    description: "Announces notifications/resources/updated for uri to its subscribers (on every process)",
    inputSchema: { type: "object", properties: { uri: { type: "string" } }, required: ["uri"] },
    handler: (args) => {
      server.notifyResourceUpdated(String(args.uri));
      return text({ pid: process.pid, updated: args.uri });
    },
  });
  return server;
}
`;

/**
 * Scaffolds the everything template (HTTP), installs the shared stores' clients as a user would (`npm install pg
 * ioredis`), adds the rig's tools and a task lease from RIG_TASK_LEASE_MS, and builds. Returns the project folder.
 */
export async function scaffoldRigProject(): Promise<string> {
  const project = join(tempDir("rig"), "rig-server");
  expectOk(await create([project, "--yes", "--template", "everything", "--transport", "http"]), "create-mcp-server everything --transport http");
  expectOk(await npm(project, ["install", "--no-audit", "--no-fund", "pg@8", "ioredis@5"]), "npm install pg ioredis");
  writeFileSync(join(project, "src", "rig-tools.ts"), RIG_TOOLS);
  const serverTs = join(project, "src", "server.ts");
  const source = readFileSync(serverTs, "utf8");
  const patched = source
    .replace('import { register } from "../generated/register.js";', 'import { register } from "../generated/register.js";\nimport { addRigTools } from "./rig-tools.js";')
    .replace(
      "current = register(createServer({ ...options, ...serverInfo, revisions }));",
      "current = addRigTools(register(createServer({ ...options, ...serverInfo, revisions, tasks: { leaseMs: Number(process.env.RIG_TASK_LEASE_MS) || undefined, pollIntervalMs: 200 } })));",
    );
  if (patched === source || !patched.includes("addRigTools(register(")) throw new Error(`src/server.ts is not what the rig expects:\n${source}`);
  writeFileSync(serverTs, patched);
  expectOk(await npm(project, ["run", "build"]), "npm run build (rig)");
  return project;
}

export interface McpProcess {
  index: number;
  port: number;
  child: ChildProcess;
  pid: number;
  exited: Promise<number | null>;
  stderr(): string;
  /** The request log lines (MCP_LOG_LEVEL=info: one JSON line per HTTP request). */
  requests(): Record<string, unknown>[];
}

/** The environment every process of the rig shares. */
export function sharedEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    MCP_REQUEST_STATE_SECRET: randomBytes(32).toString("base64"),
    MCP_LOG_LEVEL: "info",
    ...extra,
  };
}

/** Starts `node dist/src/main.js --transport http --port 0` and resolves once it printed its listening line. */
export async function startProcess(project: string, index: number, env: Record<string, string>): Promise<McpProcess> {
  const child = spawn(process.execPath, [join(project, "dist", "src", "main.js"), "--transport", "http", "--port", "0"], {
    cwd: project,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (c: string) => (stderr += c));
  child.stdout!.resume();
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`process ${index}: no listening line within 15 s:\n${stderr}`)), 15_000);
    const check = () => {
      const m = /^listening (http:\/\/\S+\/mcp)$/m.exec(stderr);
      if (!m) return;
      clearTimeout(timer);
      child.stderr!.off("data", check);
      resolve(m[1]);
    };
    child.stderr!.on("data", check);
    void exited.then((code) => reject(new Error(`process ${index} exited ${code} before listening:\n${stderr}`)));
  });
  const requests = () =>
    stderr
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((r) => r.msg === "request");
  return { index, port: Number(new URL(url).port), child, pid: child.pid!, exited, stderr: () => stderr, requests };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

export interface Nginx {
  /** The MCP endpoint through nginx. */
  url: string;
  port: number;
  dir: string;
  config: string;
  child: ChildProcess;
  errorLog(): string;
  stop(): Promise<void>;
}

/** The nginx configuration of nginx.conf.template for these process ports. */
export function nginxConfig(dir: string, listen: string, ports: number[], workers: number | "auto" = 1): string {
  const line = (p: number) => `        server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`;
  return readFileSync(TEMPLATE, "utf8").replaceAll("{{dir}}", dir).replaceAll("{{listen}}", listen).replaceAll("{{servers}}", ports.map(line).join("\n")).replaceAll("{{workers}}", String(workers));
}

/**
 * nginx in the foreground (`-g 'daemon off;'`) with its config, pid file, error log and temp folders in a temp
 * folder of its own, listening on 127.0.0.1 at a free port; resolves once it accepts connections. stop() is nginx's
 * fast shutdown (SIGTERM), awaited.
 */
export async function startNginx(ports: number[], options: { workers?: number | "auto" } = {}): Promise<Nginx> {
  for (let attempt = 0; ; attempt++) {
    const dir = tempDir("nginx");
    // Run as root, nginx's workers are `nobody`: they need to reach their temp folders here.
    chmodSync(dir, 0o755);
    for (const d of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(dir, d));
    const port = await freePort();
    const config = join(dir, "nginx.conf");
    writeFileSync(config, nginxConfig(dir, `127.0.0.1:${port}`, ports, options.workers));
    const child = spawn(NGINX, ["-p", dir, "-e", join(dir, "error.log"), "-c", config, "-g", "daemon off;"], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout!.on("data", (c) => (output += c));
    child.stderr!.on("data", (c) => (output += c));
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    let up = false;
    for (let i = 0; i < 100 && child.exitCode === null; i++) {
      if ((up = await accepts(port))) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const errorLog = () => {
      try {
        return readFileSync(join(dir, "error.log"), "utf8");
      } catch {
        return "";
      }
    };
    if (!up) {
      child.kill("SIGKILL");
      await exited;
      // Another process may have taken the free port between freePort and nginx's bind: try another.
      if (attempt < 3 && /Address already in use/.test(output + errorLog())) continue;
      throw new Error(`nginx did not start:\n${output}\n${errorLog()}`);
    }
    return {
      url: `http://127.0.0.1:${port}/mcp`,
      port,
      dir,
      config,
      child,
      errorLog,
      stop: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill("SIGTERM");
        await exited;
      },
    };
  }
}

export interface Rig {
  nginx: Nginx;
  processes: McpProcess[];
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** N processes of `project` with `env`, and nginx in front of them. */
export async function startRig(project: string, n: number, env: Record<string, string>, options: { workers?: number | "auto" } = {}): Promise<Rig> {
  const processes = await Promise.all(Array.from({ length: n }, (_, i) => startProcess(project, i, env)));
  const nginx = await startNginx(
    processes.map((p) => p.port),
    options,
  ).catch(async (err) => {
    for (const p of processes) p.child.kill("SIGKILL");
    throw err;
  });
  return {
    nginx,
    processes,
    env,
    stop: async () => {
      await nginx.stop();
      await Promise.all(
        processes.map(async (p) => {
          if (p.child.exitCode !== null || p.child.signalCode !== null) return;
          p.child.kill("SIGTERM");
          await p.exited;
        }),
      );
    },
  };
}
