#!/usr/bin/env node
// `npm run bench:scale` (tsx bench/scale.mjs): tools/call throughput and latency of a generated server (the scale-out
// rig's project: the everything template plus rig_echo) as one process without nginx, one behind nginx, and three
// behind nginx (test/deploy/nginx.conf.template, round-robin), in both eras: modern (2026-07-28, stateless) and
// legacy (2025-11-25 sessions as the SDK 1.x client makes them: initialize, notifications/initialized, then every
// call with Mcp-Session-Id, which round-robin sends to any process; the session store is Redis). The shared stores
// are configured as in the rig (PostgreSQL task store, shared requestState secret, MCP_REDIS_URL). Every answer is
// checked against its own request (id, client and sequence number). Not a test; see bench/README.md.
//
//   env: BENCH_SCALE_CLIENTS (200 virtual clients, one keep-alive connection each), BENCH_SCALE_SECONDS (30),
//        BENCH_SCALE_WARMUP (3), BENCH_SCALE_ROUNDS (3 interleaved rounds), BENCH_NGINX_WORKERS (auto),
//        BENCH_SCALE_ONLY (e.g. "direct-1,nginx-3,legacy-nginx-3")
import { readdirSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import { percentiles } from "./lib/http.mjs";
import {
  scaffoldRigProject,
  sharedEnv,
  startProcess,
  startRig,
} from "../test/deploy/rig.ts";
import {
  POSTGRES_URL,
  REDIS_URL,
  hasNginx,
  hasPostgres,
} from "../test/services.ts";

const CLIENTS = Number(process.env.BENCH_SCALE_CLIENTS ?? 200);
const SECONDS = Number(process.env.BENCH_SCALE_SECONDS ?? 30);
const WARMUP = Number(process.env.BENCH_SCALE_WARMUP ?? 3);
const WORKERS = process.env.BENCH_NGINX_WORKERS ?? "auto";
const ONLY = process.env.BENCH_SCALE_ONLY?.split(",");
const ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 3);
const REVISION = "2026-07-28";
const LEGACY = "2025-11-25";
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** The JSON-RPC message of a JSON body, or the last of an SSE body. */
function lastMessage(res, text) {
  return /^text\/event-stream/.test(res.headers["content-type"])
    ? JSON.parse(
        text
          .split("\n")
          .filter((l) => l.startsWith("data: ") && l.length > 6)
          .at(-1)
          .slice(6),
      )
    : JSON.parse(text);
}

/** A legacy session as the SDK 1.x client opens one: initialize, then notifications/initialized. Returns its id. */
async function openSession(pool, path, c) {
  const init = await pool.request({
    path,
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: `bench-${c}`, version: "1.0.0" },
      },
    }),
  });
  const sid = init.headers["mcp-session-id"];
  const text = await init.body.text();
  if (!sid || lastMessage(init, text).result?.protocolVersion !== LEGACY)
    throw new Error(
      `initialize: HTTP ${init.statusCode} ${text.slice(0, 200)}`,
    );
  const session = { "mcp-session-id": sid, "mcp-protocol-version": LEGACY };
  const ack = await pool.request({
    path,
    method: "POST",
    headers: { ...HEADERS, ...session },
    body: JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/initialized",
    }),
  });
  await ack.body.dump();
  if (ack.statusCode !== 202)
    throw new Error(`initialized: HTTP ${ack.statusCode}`);
  return session;
}

/**
 * CLIENTS virtual clients looping tools/call rig_echo for `sec` seconds; each answer must echo its own arguments.
 * Legacy: each client opens its session first (not timed) and ends it with DELETE after the window.
 */
async function window(pool, path, sec, counting, era = "modern") {
  let stop = false;
  let calls = 0;
  let errors = 0;
  let firstError;
  const latencies = [];
  let nextId = 1;
  const sessions =
    era === "legacy"
      ? await Promise.all(
          Array.from({ length: CLIENTS }, (_, c) => openSession(pool, path, c)),
        )
      : [];
  const client = async (c) => {
    for (let seq = 0; !stop; seq++) {
      const id = nextId++;
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          name: "rig_echo",
          arguments: { client: c, seq },
          ...(era === "legacy"
            ? {}
            : {
                _meta: {
                  "io.modelcontextprotocol/protocolVersion": REVISION,
                  "io.modelcontextprotocol/clientCapabilities": {},
                },
              }),
        },
      });
      const t = performance.now();
      try {
        const res = await pool.request({
          path,
          method: "POST",
          headers:
            era === "legacy"
              ? { ...HEADERS, ...sessions[c] }
              : {
                  ...HEADERS,
                  "mcp-protocol-version": REVISION,
                  "mcp-method": "tools/call",
                  "mcp-name": "rig_echo",
                },
          body,
        });
        const text = await res.body.text();
        const json = lastMessage(res, text);
        const echoed = JSON.parse(json.result?.content?.[0]?.text ?? "null");
        if (
          json.id !== id ||
          echoed?.args?.client !== c ||
          echoed?.args?.seq !== seq
        )
          throw new Error(
            `HTTP ${res.statusCode}: not the answer to ${id} (${c}/${seq}): ${text.slice(0, 200)}`,
          );
        if (counting()) {
          latencies.push(performance.now() - t);
          calls++;
        }
      } catch (err) {
        errors++;
        firstError ??= err;
      }
    }
  };
  const t0 = performance.now();
  const loops = Array.from({ length: CLIENTS }, (_, c) => client(c));
  await new Promise((r) => setTimeout(r, sec * 1000));
  stop = true;
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(loops);
  await Promise.all(
    sessions.map(async (session) => {
      const res = await pool.request({
        path,
        method: "DELETE",
        headers: session,
      });
      await res.body.dump();
    }),
  );
  return { calls, seconds, latencies, errors, firstError };
}

/** CPU seconds (user + system) used so far by these pids and their children one level down (nginx's workers). */
function cpuSeconds(pids) {
  const stat = (pid) => {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, "utf8");
      const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
      return {
        ppid: Number(rest[1]),
        ticks: Number(rest[11]) + Number(rest[12]),
      };
    } catch {
      return undefined;
    }
  };
  let ticks = 0;
  const wanted = new Set(pids);
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    const st = stat(d);
    if (st && (wanted.has(Number(d)) || wanted.has(st.ppid))) ticks += st.ticks;
  }
  return ticks / 100; // USER_HZ
}

/** A keep-alive pool of one connection per virtual client. */
function poolFor(url) {
  return new Pool(new URL(url).origin, {
    connections: CLIENTS,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
  });
}

function report(name, windows) {
  const calls = windows.reduce((a, w) => a + w.calls, 0);
  const seconds = windows.reduce((a, w) => a + w.seconds, 0);
  const errors = windows.reduce((a, w) => a + w.errors, 0);
  const firstError = windows.find((w) => w.firstError)?.firstError;
  const rates = windows.map((w) => Math.round(w.calls / w.seconds));
  const { p50Ms, p99Ms } = percentiles(windows.flatMap((w) => w.latencies));
  const cpu = (k) =>
    Math.round(
      (windows.reduce((a, w) => a + w.cpu[k], 0) / Math.max(1, calls)) * 1e6,
    );
  const row = {
    name,
    callsPerSec: Math.round(calls / seconds),
    range: [Math.min(...rates), Math.max(...rates)],
    p50Ms: Math.round(p50Ms * 10) / 10,
    p99Ms: Math.round(p99Ms * 10) / 10,
    errors,
    // CPU microseconds per call: the MCP processes, nginx (master and workers), and this load generator.
    cpuUsPerCall: {
      servers: cpu("servers"),
      nginx: cpu("nginx"),
      client: cpu("client"),
    },
  };
  console.log(
    `${name.padEnd(34)} ${String(row.callsPerSec).padStart(7)} calls/s (rounds ${row.range.join("-")})   p50 ${String(row.p50Ms).padStart(6)} ms   p99 ${String(row.p99Ms).padStart(6)} ms   CPU µs/call: servers ${row.cpuUsPerCall.servers}, nginx ${row.cpuUsPerCall.nginx}, load generator ${row.cpuUsPerCall.client}   errors ${errors}${firstError ? ` (first: ${firstError.message})` : ""}`,
  );
  return row;
}

if (!(await hasNginx()) || !(await hasPostgres())) process.exit(1);
console.log(
  `bench:scale: ${CLIENTS} clients, ${SECONDS} s per configuration in ${ROUNDS} interleaved rounds after ${WARMUP} s warm-up each, nginx worker_processes ${WORKERS}`,
);
const project = await scaffoldRigProject();
const env = sharedEnv({
  MCP_TASK_STORE: "postgres",
  MCP_DATABASE_URL: POSTGRES_URL,
  MCP_REDIS_URL: REDIS_URL,
  MCP_LOG_LEVEL: "warn",
});
// Every configuration runs at once (idle ones cost nothing) so that their windows interleave: this machine's CPU is
// shared and noisy, and rounds in rotating order spread that noise over all of them.
const stops = [];
const targets = [];
try {
  for (const [key, name] of [
    ["direct-1", "1 process, no nginx"],
    ["nginx-1", "1 process behind nginx"],
    ["nginx-3", "3 processes behind nginx"],
  ]) {
    if (ONLY && !ONLY.includes(key) && !ONLY.includes(`legacy-${key}`))
      continue;
    if (key === "direct-1") {
      const p = await startProcess(project, 0, env);
      stops.push(async () => {
        p.child.kill("SIGTERM");
        await p.exited;
      });
      targets.push({
        key,
        name,
        url: `http://127.0.0.1:${p.port}/mcp`,
        serverPids: [p.pid],
        windows: [],
      });
    } else {
      const rig = await startRig(project, key === "nginx-3" ? 3 : 1, env, {
        workers: WORKERS,
      });
      stops.push(() => rig.stop());
      targets.push({
        key,
        name,
        url: rig.nginx.url,
        serverPids: rig.processes.map((p) => p.pid),
        nginxPid: rig.nginx.child.pid,
        windows: [],
      });
    }
  }
  // Each configuration in both eras: the legacy twin of a target shares its processes (and nginx).
  for (const t of [...targets]) {
    const key = `legacy-${t.key}`;
    if (ONLY && !ONLY.includes(key)) continue;
    targets.push({
      ...t,
      key,
      name: `legacy: ${t.name}`,
      era: "legacy",
      windows: [],
    });
  }
  for (let i = targets.length - 1; i >= 0; i--)
    if (ONLY && !ONLY.includes(targets[i].key)) targets.splice(i, 1);
  for (const t of targets) {
    t.pool = poolFor(t.url);
    await window(t.pool, new URL(t.url).pathname, WARMUP, () => true, t.era);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < targets.length; i++) {
      const t = targets[(round + i) % targets.length];
      const servers0 = cpuSeconds(t.serverPids);
      const nginx0 = t.nginxPid ? cpuSeconds([t.nginxPid]) : 0;
      const self0 = process.cpuUsage();
      const w = await window(
        t.pool,
        new URL(t.url).pathname,
        SECONDS / ROUNDS,
        () => true,
        t.era,
      );
      const self = process.cpuUsage(self0);
      w.cpu = {
        servers: cpuSeconds(t.serverPids) - servers0,
        nginx: t.nginxPid ? cpuSeconds([t.nginxPid]) - nginx0 : 0,
        client: (self.user + self.system) / 1e6,
      };
      t.windows.push(w);
    }
  }
  const rows = targets.map((t) => report(t.name, t.windows));
  process.exitCode = rows.some((r) => r.errors > 0) ? 1 : 0;
} finally {
  for (const t of targets) await t.pool?.close();
  for (const stop of stops) await stop();
}
