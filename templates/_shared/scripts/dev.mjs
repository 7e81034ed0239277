// `npm run dev`: regenerate, type-check and rebuild on every change, and run what was rebuilt.
//
//   - mcp.json changes: `npm run generate` (generated/ follows the manifest);
//   - src/ or generated/ changes: `tsc --watch` type-checks and rebuilds dist/; code with type errors never runs;
//   - a project that serves HTTP: the server (`node dist/src/main.js --transport http`, plus the arguments after
//     `--`, e.g. `npm run dev -- --port 3001`) restarts after each build without errors, keeping its legacy sessions
//     (Mcp-Session-Id) in dist/.dev-sessions.json (MCP_SESSION_STORE=file:…), so a connected client goes on with
//     its session; only its open SSE streams end, and the client reopens them;
//   - a stdio-only project: a stdio client starts the server itself, so the MCP Inspector is started once against
//     dist/src/main.js, and each (re)connection in it runs the latest build. `--no-inspector` (or
//     MCP_DEV_INSPECTOR=0) leaves it out.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, watch } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const win = process.platform === "win32";
const env = { ...process.env, PATH: [join(ROOT, "node_modules", ".bin"), process.env.PATH].join(delimiter) };
const log = (message) => process.stderr.write(`[dev] ${message}\n`);

const args = process.argv.slice(2);
const noInspector = args.includes("--no-inspector") || process.env.MCP_DEV_INSPECTOR === "0";
const serverArgs = args.filter((a) => a !== "--no-inspector");

function transports() {
  try {
    const t = JSON.parse(readFileSync(join(ROOT, "mcp.json"), "utf8")).transports;
    return Array.isArray(t) ? t : ["stdio", "http"];
  } catch {
    return ["stdio", "http"];
  }
}
const http = transports().includes("http");

/** The project's own generate script, whatever it is (`npm run generate` without npm's banner). */
function generate() {
  const command = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts.generate;
  const r = spawnSync(command, { cwd: ROOT, env, shell: true, stdio: "inherit" });
  if (r.status !== 0)
    log(
      "generate failed: do what its output above says (fix mcp.json, or create or delete the handler files it names); the server keeps running until it succeeds",
    );
  return r.status === 0;
}

// ---- the server (HTTP projects) ----
// Legacy sessions live in the server's memory: each restart would drop them all (the client's next request: 404, and
// it must initialize again). A session file carries them over to the next process, unless a store is configured.
const SESSIONS = join(ROOT, "dist", ".dev-sessions.json");
const keepSessions = http && !process.env.MCP_SESSION_STORE && !process.env.MCP_REDIS_URL;
if (keepSessions) env.MCP_SESSION_STORE = `file:${SESSIONS}`;
/** How many unexpired sessions the session file holds. */
function keptSessions() {
  try {
    const now = Date.now();
    return Object.values(JSON.parse(readFileSync(SESSIONS, "utf8"))).filter((s) => s.until >= now).length;
  } catch {
    return 0;
  }
}
let server;
let stopping;
function stopServer() {
  const child = server;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  if (!stopping) {
    stopping = new Promise((done) => {
      // SIGTERM lets it finish in-flight requests; a server that does not end in 5 s is killed.
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      child.once("exit", () => {
        clearTimeout(timer);
        stopping = undefined;
        done();
      });
      child.kill("SIGTERM");
    });
  }
  return stopping;
}
let restarting = Promise.resolve();
function restartServer() {
  restarting = restarting.then(async () => {
    const again = Boolean(server);
    await stopServer();
    if (!again && keepSessions) {
      mkdirSync(dirname(SESSIONS), { recursive: true });
      log(
        `legacy sessions (Mcp-Session-Id) are kept across restarts in ${SESSIONS.slice(ROOT.length + 1)}: a connected client goes on with its session; its open SSE streams end at each restart and it reopens them`,
      );
    } else if (again && keepSessions) {
      const n = existsSync(SESSIONS) ? keptSessions() : 0;
      log(
        `restart keeps ${n} legacy session${n === 1 ? "" : "s"} (${SESSIONS.slice(ROOT.length + 1)}); open SSE streams end`,
      );
    } else if (again) log("restart: legacy sessions are in the store MCP_SESSION_STORE or MCP_REDIS_URL names");
    log(again ? "rebuilt: restarting the server" : "built: starting the server");
    server = spawn(process.execPath, [join(ROOT, "dist", "src", "main.js"), "--transport", "http", ...serverArgs], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "inherit", "inherit"],
    });
  });
}

// ---- the Inspector (stdio-only projects) ----
let inspector;
function startInspector() {
  if (inspector || noInspector) return;
  log("starting the MCP Inspector against dist/src/main.js (reconnect in it after a rebuild to run the new code)");
  inspector = spawn(
    "npx",
    ["--yes", "@modelcontextprotocol/inspector", "node", join(ROOT, "dist", "src", "main.js"), "--transport", "stdio"],
    {
      cwd: ROOT,
      env,
      shell: win,
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  inspector.on("exit", (code) => {
    if (code)
      log(`the MCP Inspector exited with code ${code}; the build watcher goes on (--no-inspector leaves it out)`);
  });
}

// ---- the type-checking build ----
if (!generate()) log("starting anyway: tsc reports what is missing");
const tsc = spawn("tsc", ["-p", "tsconfig.json", "--watch", "--preserveWatchOutput"], {
  cwd: ROOT,
  env,
  shell: win,
  stdio: ["ignore", "pipe", "inherit"],
});
let pending = "";
tsc.stdout.on("data", (chunk) => {
  process.stderr.write(chunk);
  pending += chunk;
  const lines = pending.split("\n");
  pending = lines.pop();
  for (const line of lines) {
    // tsc --watch ends each build with "Found N errors. Watching for file changes."
    const m = /Found (\d+) errors?\. Watching for file changes/.exec(line);
    if (!m) continue;
    if (Number(m[1]) > 0)
      log(
        server
          ? "type errors: the server keeps running the previous build"
          : "type errors: nothing runs until they are fixed",
      );
    else if (http) restartServer();
    else {
      log("built dist/src/main.js");
      startInspector();
    }
  }
});

// ---- mcp.json ----
// The folder is watched, not the file: editors save by writing a new file and renaming it over the old one.
let timer;
watch(ROOT, (_event, file) => {
  if (file !== "mcp.json") return;
  clearTimeout(timer);
  timer = setTimeout(() => {
    log("mcp.json changed: regenerating");
    generate();
  }, 100);
});

let exiting = false;
async function shutdown() {
  if (exiting) return;
  exiting = true;
  tsc.kill("SIGTERM");
  inspector?.kill("SIGTERM");
  await stopServer();
  process.exit(0);
}
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
tsc.on("exit", (code) => {
  if (!exiting) log(`tsc exited with code ${code}`);
  void shutdown();
});
