#!/usr/bin/env node
// `npm run bench:tasks`: tasks over Streamable HTTP (2026-07-28, tasks extension declared), per task store.
// For each store: create TASKS tasks over CONNECTIONS connections (creation latency: the CreateTaskResult is written
// only after the store has the task, so for SQLite this includes the committed, fsynced write), then measure
// tasks/get throughput on random stored ids, next to a plain tools/call on the same server. Not a test.
//
//   env: BENCH_TASKS (default 10000), BENCH_HTTP_SECONDS (default 5), BENCH_CONNECTIONS (default 32)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import { percentiles } from "./lib/http.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const TASKS = Number(process.env.BENCH_TASKS ?? 10_000);
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const EXT = "io.modelcontextprotocol/tasks";
const REVISION = "2026-07-28";

function start(env) {
  const child = spawn(
    process.execPath,
    [join(here, "servers", "runtime-tasks.mjs")],
    {
      env: { ...process.env, ...env, PORT: "0" },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (c) => {
      err += c;
      const m = /listening (http:\/\/\S+)/.exec(err);
      if (m) resolve({ child, url: new URL(m[1]) });
    });
    child.once("exit", (code) =>
      reject(new Error(`server exited ${code}: ${err}`)),
    );
  });
}

let nextId = 1;
async function rpc(pool, path, method, params, name) {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": REVISION,
        "io.modelcontextprotocol/clientCapabilities": {
          extensions: { [EXT]: {} },
        },
        "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
      },
    },
  });
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": REVISION,
    "mcp-method": method,
    "mcp-name": name,
  };
  const res = await pool.request({ path, method: "POST", headers, body });
  const text = await res.body.text();
  const msg = JSON.parse(text);
  if (msg.error) throw new Error(`${method}: ${msg.error.message}`);
  return msg.result;
}

/** Run `work` on every connection until `seconds` pass; calls/s and latency percentiles. */
async function measure(seconds, work) {
  const latencies = [];
  let stop = false;
  const t0 = performance.now();
  setTimeout(() => (stop = true), seconds * 1000);
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (!stop) {
        const t = performance.now();
        await work();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  return {
    callsPerSec: Math.round(latencies.length / elapsed),
    ...percentiles(latencies),
  };
}

async function runStore(label, env) {
  const { child, url } = await start(env);
  const pool = new Pool(url.origin, {
    connections: CONNECTIONS,
    pipelining: 1,
    keepAliveTimeout: 60_000,
  });
  const path = url.pathname;
  try {
    // Create the tasks, CONNECTIONS at a time, timing each creation.
    const ids = [];
    const creation = [];
    let remaining = TASKS;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (remaining-- > 0) {
          const t = performance.now();
          const r = await rpc(
            pool,
            path,
            "tools/call",
            { name: "job", arguments: {} },
            "job",
          );
          creation.push(performance.now() - t);
          if (r.resultType !== "task")
            throw new Error(`expected a task, got ${JSON.stringify(r)}`);
          ids.push(r.taskId);
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 200));
    const pick = () => ids[Math.floor(Math.random() * ids.length)];
    await measure(1, () =>
      rpc(pool, path, "tasks/get", { taskId: pick() }, "x").catch(() => {}),
    ); // warm-up
    const get = await measure(SECONDS, () => {
      const id = pick();
      return rpc(pool, path, "tasks/get", { taskId: id }, id);
    });
    const call = await measure(SECONDS, () =>
      rpc(
        pool,
        path,
        "tools/call",
        { name: "echo", arguments: { text: "hi" } },
        "echo",
      ),
    );
    return {
      store: label,
      tasks: ids.length,
      create: percentiles(creation),
      get,
      call,
    };
  } finally {
    await pool.close();
    child.kill("SIGTERM");
  }
}

const dir = mkdtempSync(join(tmpdir(), "bench-tasks-"));
try {
  const rows = [];
  rows.push(await runStore("memory", { MCP_TASK_STORE: "memory" }));
  rows.push(
    await runStore("sqlite", {
      MCP_TASK_STORE: `sqlite:${join(dir, "tasks.db")}`,
    }),
  );
  const f = (n) => n.toFixed(2);
  console.log(
    `\n## tasks over Streamable HTTP (${REVISION}, ${CONNECTIONS} connections, ${TASKS} stored tasks, ${SECONDS} s windows)\n`,
  );
  console.log(
    "| store | create p50 ms | create p99 ms | tasks/get calls/s | tasks/get p50 / p99 ms | plain tools/call calls/s | tools/call p50 / p99 ms |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(
      `| ${r.store} | ${f(r.create.p50Ms)} | ${f(r.create.p99Ms)} | ${r.get.callsPerSec} | ${f(r.get.p50Ms)} / ${f(r.get.p99Ms)} | ${r.call.callsPerSec} | ${f(r.call.p50Ms)} / ${f(r.call.p99Ms)} |`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
