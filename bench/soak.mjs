#!/usr/bin/env node
// `npm run bench:soak` (node bench/soak.mjs): a soak of the runtime over Streamable HTTP (serveHttp, default limits
// and quotas, in a child process: bench/servers/soak-server.mjs). 200 client slots of mixed eras for a while, run
// twice on a fresh server each time: once with slot 200 idle (199 ordinary clients), once with slot 200 hostile. The
// report is the ordinary clients' p50/p99 latency in both runs and its ratio (#20's goal: p99 within 1.5x), and the
// server's RSS at start, peak and end of each run. Not a test; see bench/README.md.
//
//   node bench/soak.mjs [--seconds 300] [--clients 200] [--think-ms 100] [--only baseline|hostile] [--json out.json]
//                       [--floods session,task,batch,long-uri] (what the hostile client floods; default all four)
//                       [--rounds N] (N rounds of baseline then hostile, each --seconds/N, latencies pooled per kind)
//                       [--server-flags --cpu-prof,--cpu-prof-dir=/tmp/prof] (node flags for the server)
//
// Ordinary clients (one keep-alive connection each, from 127.0.0.1): half 2025-11-25 legacy sessions (initialize and
// notifications/initialized first, not timed), half 2026-07-28 modern requests (_meta, MCP-Protocol-Version,
// Mcp-Method, Mcp-Name); each loops 80 % tools/call echo, 10 % tools/list, 10 % resources/read, with a random pause of
// 0.5-1.5x --think-ms between calls, every answer checked. The hostile client (connections from 127.0.0.2, so it is a
// caller of its own for the per-address quotas) floods, 8 requests in flight, as fast as the server answers, within
// its quotas: sessions (initialize, never ended: up to limits.sessionsPerCaller, then 429s), tasks (task-augmented
// tools/call in a ring of 20 of its own sessions, never read: up to the stored-task quotas), 2025-03-26 batches of 100
// members (limits.batchMembers), and resources/read of 512 KiB URIs against app://files/{name}.{ext}.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import { percentiles } from "./lib/http.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
const SECONDS = Number(arg("seconds", 300));
const SLOTS = Number(arg("clients", 200));
const THINK_MS = Number(arg("think-ms", 100));
const ONLY = arg("only");
const JSON_OUT = arg("json");
// Interleaved: this many rounds of (baseline, hostile), each run --seconds / --rounds long on a fresh server, the
// latencies of each kind pooled (the machine's load changes less between neighbouring runs than over 10 minutes).
const ROUNDS = Number(arg("rounds", 1));
const FLOODS = arg("floods", "session,task,batch,long-uri").split(",");
// Extra node flags for the server (e.g. --server-flags=--cpu-prof,--cpu-prof-dir=/tmp/prof), comma-separated.
const SERVER_FLAGS = (arg("server-flags", "") || "").split(",").filter(Boolean);
// The hostile client's own process (spawned by run() below), so that its work never delays the ordinary clients'
// event loop: their latencies are the server's, not this process's.
const HOSTILE_CHILD = arg("hostile-child");
const WARMUP_S = Math.min(5, SECONDS / 10);
const LEGACY = "2025-11-25";
const BATCHES = "2025-03-26";
const MODERN = "2026-07-28";
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** The server in a child process: its URL and pid once it listens. */
async function startServer() {
  const child = spawn(
    process.execPath,
    [...SERVER_FLAGS, join(here, "servers", "soak-server.mjs")],
    {
      env: { ...process.env, PORT: "0" },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let err = "";
  const url = await new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => {
      err += d;
      const m = /listening (http:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) =>
      reject(new Error(`soak server exited ${code}: ${err}`)),
    );
  });
  return { child, url, stderr: () => err };
}

/** The server's resident set (MiB), from /proc. */
function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(
    readFileSync(`/proc/${pid}/status`, "utf8"),
  );
  return m ? Number(m[1]) / 1024 : NaN;
}

/** The JSON-RPC message of a JSON body, or the last one of an SSE body. */
function lastMessage(res, text) {
  if (!/^text\/event-stream/.test(res.headers["content-type"] ?? ""))
    return text ? JSON.parse(text) : undefined;
  const data = text
    .split("\n")
    .filter((l) => l.startsWith("data: ") && l.length > 6)
    .at(-1);
  return data ? JSON.parse(data.slice(6)) : undefined;
}

async function post(pool, path, headers, body) {
  const res = await pool.request({
    path,
    method: "POST",
    headers: { ...HEADERS, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    sid: res.headers["mcp-session-id"],
    message: lastMessage(res, text),
  };
}

/** A legacy session of `revision` on `pool`: its headers. */
async function openSession(pool, path, revision, name, who) {
  const init = await post(
    pool,
    path,
    { "x-soak-client": who },
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: revision,
        capabilities: {},
        clientInfo: { name, version: "1.0.0" },
      },
    },
  );
  if (init.status !== 200 || !init.sid)
    throw new Error(`initialize: HTTP ${init.status}`);
  const session = { "mcp-session-id": init.sid, "x-soak-client": who };
  if (revision !== BATCHES) session["mcp-protocol-version"] = revision;
  const ack = await post(pool, path, session, {
    jsonrpc: "2.0",
    method: "notifications/initialized",
  });
  if (ack.status !== 202) throw new Error(`initialized: HTTP ${ack.status}`);
  return session;
}

const OPS = [
  ...Array(8).fill(["tools/call", { name: "echo", arguments: {} }]),
  ["tools/list", {}],
  ["resources/read", { uri: "app://files/readme.txt" }],
];
const NAME_FIELD = { "tools/call": "name", "resources/read": "uri" };

/** One ordinary client: its era, its loop, its latencies (ms) after the warm-up. */
async function ordinary(pool, path, c, state) {
  const legacy = c % 2 === 0;
  const session = legacy
    ? await openSession(pool, path, LEGACY, `soak-${c}`, `c${c}`)
    : { "x-soak-client": `c${c}` };
  let id = 1;
  while (!state.stop) {
    const [method, base] = OPS[Math.floor(Math.random() * OPS.length)];
    const params =
      method === "tools/call"
        ? { ...base, arguments: { text: `c${c}-${id}` } }
        : { ...base };
    const headers = { ...session };
    if (!legacy) {
      params._meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {
          name: `soak-${c}`,
          version: "1.0.0",
        },
      };
      headers["mcp-protocol-version"] = MODERN;
      headers["mcp-method"] = method;
      if (NAME_FIELD[method]) headers["mcp-name"] = params[NAME_FIELD[method]];
    }
    const myId = id++;
    const t = performance.now();
    try {
      const r = await post(pool, path, headers, {
        jsonrpc: "2.0",
        id: myId,
        method,
        params,
      });
      const ms = performance.now() - t;
      const ok =
        r.status === 200 &&
        r.message?.id === myId &&
        r.message.result !== undefined &&
        (method !== "tools/call" ||
          r.message.result.content?.[0]?.text === params.arguments.text);
      if (!ok) {
        state.errors++;
        state.firstError ??= `${method}: HTTP ${r.status} ${JSON.stringify(r.message).slice(0, 200)}`;
      } else if (state.counting) state.latencies.push(ms);
    } catch (err) {
      state.errors++;
      state.firstError ??= `${method}: ${err.message}`;
    }
    await new Promise((r) => setTimeout(r, THINK_MS * (0.5 + Math.random())));
  }
}

/** The hostile client: 8 loops, each flooding one kind after another; counts of what it got, by kind and status. */
async function hostile(url, path, state) {
  const pool = new Pool(url, { connections: 8, localAddress: "127.0.0.2" });
  const counts = {};
  const count = (kind, status) => {
    const k = `${kind} ${status}`;
    counts[k] = (counts[k] ?? 0) + 1;
  };
  const ring = [];
  for (let i = 0; i < 20; i++)
    ring.push(await openSession(pool, path, LEGACY, `hostile-${i}`, "hostile"));
  const batchSession = await openSession(
    pool,
    path,
    BATCHES,
    "hostile-batch",
    "hostile",
  );
  const longUri = `app://files/${"a".repeat(512 * 1024)}.txt`;
  const batch = JSON.stringify(
    Array.from({ length: 100 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text: `b${i}` } },
    })),
  );
  const floods = {
    session: async () => {
      const r = await post(
        pool,
        path,
        { "x-soak-client": "hostile" },
        {
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: LEGACY,
            capabilities: {},
            clientInfo: { name: "hostile", version: "1" },
          },
        },
      );
      count("session", r.status);
    },
    task: async (n) => {
      const r = await post(pool, path, ring[n % ring.length], {
        jsonrpc: "2.0",
        id: n,
        method: "tools/call",
        params: { name: "work", arguments: {}, task: {} },
      });
      count("task", r.status);
    },
    batch: async () => {
      const r = await post(pool, path, batchSession, batch);
      count("batch", r.status);
    },
    "long-uri": async (n) => {
      const r = await post(pool, path, ring[n % ring.length], {
        jsonrpc: "2.0",
        id: n,
        method: "resources/read",
        params: { uri: longUri },
      });
      count("long-uri", r.status);
    },
  };
  const chosen = FLOODS.map((f) => floods[f]);
  let n = 0;
  await Promise.all(
    Array.from({ length: 8 }, async (_, loop) => {
      for (let i = loop; !state.stop; i++) {
        try {
          await chosen[i % chosen.length](n++);
        } catch (err) {
          count("error", err.code ?? err.message);
        }
      }
    }),
  );
  await pool.close();
  return counts;
}

/** The hostile client in a child process (this script with --hostile-child): stop() ends it; `counts` is what it got. */
function hostileProcess(origin, path) {
  const child = spawn(
    process.execPath,
    [
      fileURLToPath(import.meta.url),
      "--hostile-child",
      origin,
      "--path",
      path,
      "--floods",
      FLOODS.join(","),
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const counts = new Promise((resolve) =>
    child.once("exit", () => {
      try {
        resolve(JSON.parse(out));
      } catch {
        resolve({ error: out.slice(0, 200) });
      }
    }),
  );
  return { stop: () => child.stdin.end(), counts };
}

/** One run on a fresh server: `withHostile` or not. */
async function run(withHostile) {
  const server = await startServer();
  const u = new URL(server.url);
  const origin = `${u.protocol}//${u.host}`;
  const path = u.pathname;
  const rss = { start: rssMb(server.child.pid), peak: 0, end: 0 };
  const loadStart = os.loadavg()[0].toFixed(1);
  rss.peak = rss.start;
  const sampler = setInterval(() => {
    try {
      rss.peak = Math.max(rss.peak, rssMb(server.child.pid));
    } catch {
      /* gone */
    }
  }, 250);
  const ordinaryClients = SLOTS - 1;
  const pool = new Pool(origin, { connections: ordinaryClients });
  const state = {
    stop: false,
    counting: false,
    latencies: [],
    errors: 0,
    firstError: undefined,
  };
  const clients = Array.from({ length: ordinaryClients }, (_, c) =>
    ordinary(pool, path, c, state),
  );
  const hostileRun = withHostile ? hostileProcess(origin, path) : undefined;
  await new Promise((r) => setTimeout(r, WARMUP_S * 1000));
  state.counting = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, (SECONDS / ROUNDS) * 1000));
  state.counting = false;
  const elapsed = (performance.now() - t0) / 1000;
  state.stop = true;
  hostileRun?.stop();
  await Promise.all(clients);
  const hostileCounts = hostileRun ? await hostileRun.counts : undefined;
  await pool.close();
  clearInterval(sampler);
  rss.end = rssMb(server.child.pid);
  rss.peak = Math.max(rss.peak, rss.end);
  server.child.kill("SIGTERM");
  const p = percentiles(state.latencies);
  return {
    latencies: state.latencies,
    load: [loadStart, os.loadavg()[0].toFixed(1)],
    run: withHostile ? "hostile" : "baseline",
    seconds: SECONDS / ROUNDS,
    ordinaryClients,
    calls: state.latencies.length,
    callsPerSecond: Math.round(state.latencies.length / elapsed),
    errors: state.errors,
    firstError: state.firstError,
    p50: p.p50Ms,
    p99: p.p99Ms,
    rssMb: {
      start: Math.round(rss.start),
      peak: Math.round(rss.peak),
      end: Math.round(rss.end),
    },
    hostile: hostileCounts,
  };
}

if (HOSTILE_CHILD) {
  // The hostile child: floods until its stdin closes, then prints its counts.
  const state = { stop: false };
  process.stdin.resume();
  process.stdin.once("end", () => (state.stop = true));
  const counts = await hostile(HOSTILE_CHILD, arg("path"), state);
  process.stdout.write(JSON.stringify(counts));
  process.exit(0);
}

/** The runs of one kind pooled: its latencies together, its RSS the first start, the highest peak, the last end. */
function pooled(runs) {
  const latencies = runs.flatMap((r) => r.latencies);
  const p = percentiles(latencies);
  const sum = (k) => runs.reduce((n, r) => n + r[k], 0);
  return {
    run: runs[0].run,
    seconds: sum("seconds"),
    rounds: runs.length,
    ordinaryClients: runs[0].ordinaryClients,
    calls: latencies.length,
    callsPerSecond: Math.round(latencies.length / sum("seconds")),
    errors: sum("errors"),
    firstError: runs.find((r) => r.firstError)?.firstError,
    p50: p.p50Ms,
    p99: p.p99Ms,
    rssMb: {
      start: runs[0].rssMb.start,
      peak: Math.max(...runs.map((r) => r.rssMb.peak)),
      end: runs.at(-1).rssMb.end,
    },
    hostile: runs[0].hostile && runs.map((r) => r.hostile),
    load: runs.map((r) => r.load),
  };
}

const kinds = [false, true].filter(
  (h) => !ONLY || ONLY === (h ? "hostile" : "baseline"),
);
const byKind = new Map(kinds.map((h) => [h, []]));
for (let round = 0; round < ROUNDS; round++)
  for (const withHostile of kinds) {
    const r = await run(withHostile);
    byKind.get(withHostile).push(r);
    if (ROUNDS > 1)
      console.log(
        `  round ${round + 1} ${r.run}: p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, load ${r.load.join("/")}`,
      );
  }
const results = [];
for (const runs of byKind.values()) {
  const r = pooled(runs);
  results.push(r);
  console.log(
    `${r.run.padEnd(8)} ${r.ordinaryClients} ordinary clients, ${r.seconds} s${r.rounds > 1 ? ` in ${r.rounds} rounds` : ""}: ${r.calls} calls (${r.callsPerSecond}/s), ${r.errors} errors, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms; server RSS start ${r.rssMb.start} MiB, peak ${r.rssMb.peak}, end ${r.rssMb.end}; load average ${r.load.join(", ")}`,
  );
  if (r.firstError) console.log(`  first error: ${r.firstError}`);
  if (r.hostile)
    console.log(
      `  hostile got: ${JSON.stringify(r.hostile.length === 1 ? r.hostile[0] : r.hostile)}`,
    );
}
if (results.length === 2) {
  const [b, h] = results;
  console.log(
    `ratio with/without the hostile client: p50 ${(h.p50 / b.p50).toFixed(2)}x, p99 ${(h.p99 / b.p99).toFixed(2)}x (goal: p99 within 1.5x)`,
  );
}
if (JSON_OUT)
  writeFileSync(
    JSON_OUT,
    JSON.stringify(results, (k, v) => (k === "latencies" ? undefined : v), 2),
  );
process.exitCode = results.some((r) => r.errors > 0) ? 1 : 0;
