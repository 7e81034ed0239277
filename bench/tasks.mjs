#!/usr/bin/env node
// `npm run bench:tasks`: tasks over Streamable HTTP (2026-07-28, tasks extension declared), per task store.
// For each store: create TASKS tasks over CONNECTIONS connections (creation latency: the CreateTaskResult is written
// only after the store has the task, so for SQLite this includes the committed, fsynced write; for PostgreSQL the
// committed INSERT + NOTIFY; for Redis the acknowledged Lua script), then measure tasks/get throughput on random
// stored ids, next to a plain tools/call on the same server. The shared stores (PostgreSQL, Redis on 127.0.0.1) are
// measured when reachable. Then the Redis message bus: publish -> delivery latency between two RedisBus instances
// (two connections), one message at a time, and the rate of a burst. Between them, each store's operations alone,
// in this process (create, get, update), so the store's own cost shows without HTTP and the server around it.
// Not a test.
//
//   env: BENCH_TASKS (default 10000), BENCH_HTTP_SECONDS (default 5), BENCH_CONNECTIONS (default 32),
//        BENCH_STORES (default memory,sqlite,postgres,redis), BENCH_DATABASE_URL, BENCH_REDIS_URL,
//        BENCH_BUS_MESSAGES (default 5000), BENCH_STORE_OPS (default 5000)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { connect } from "node:net";
import { Pool } from "undici";
import { percentiles } from "./lib/http.mjs";
import {
  MemoryTaskStore,
  PostgresTaskStore,
  RedisBus,
  RedisTaskStore,
  SqliteTaskStore,
} from "../runtime/dist/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const TASKS = Number(process.env.BENCH_TASKS ?? 10_000);
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const EXT = "io.modelcontextprotocol/tasks";
const REVISION = "2026-07-28";
const STORES = (
  process.env.BENCH_STORES ?? "memory,sqlite,postgres,redis"
).split(",");
const DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const BUS_MESSAGES = Number(process.env.BENCH_BUS_MESSAGES ?? 5000);
const OPS = Number(process.env.BENCH_STORE_OPS ?? 5000);
/** Keys and channels of this run only (deleted at the end). */
const PREFIX = `mcp-bench-${process.pid}:`;

function reachable(url) {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: u.hostname, port: Number(u.port) }, () => {
      socket.end();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

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
  const skipped = [];
  for (const store of STORES) {
    if (store === "memory")
      rows.push(await runStore("memory", { MCP_TASK_STORE: "memory" }));
    else if (store === "sqlite")
      rows.push(
        await runStore("sqlite", {
          MCP_TASK_STORE: `sqlite:${join(dir, "tasks.db")}`,
        }),
      );
    else if (store === "postgres") {
      if (!(await reachable(DATABASE_URL)))
        skipped.push(`postgres (${DATABASE_URL})`);
      else
        rows.push(
          await runStore("postgres", {
            MCP_TASK_STORE: "postgres",
            MCP_DATABASE_URL: DATABASE_URL,
          }),
        );
    } else if (store === "redis") {
      if (!(await reachable(REDIS_URL))) skipped.push(`redis (${REDIS_URL})`);
      else
        rows.push(
          await runStore("redis", {
            MCP_TASK_STORE: "redis",
            MCP_REDIS_URL: REDIS_URL,
            MCP_REDIS_PREFIX: PREFIX,
          }),
        );
    }
  }
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
  if (skipped.length)
    console.log(`\n(not reachable, not measured: ${skipped.join(", ")})`);
  // The stores alone, in this process: what each operation a request makes costs, without HTTP around it.
  const ops = [];
  for (const store of STORES) {
    if (store === "memory")
      ops.push(await benchOps("memory", new MemoryTaskStore()));
    else if (store === "sqlite")
      ops.push(
        await benchOps("sqlite", new SqliteTaskStore(join(dir, "ops.db"))),
      );
    else if (store === "postgres" && (await reachable(DATABASE_URL)))
      ops.push(await benchOps("postgres", new PostgresTaskStore(DATABASE_URL)));
    else if (store === "redis" && (await reachable(REDIS_URL)))
      ops.push(
        await benchOps(
          "redis",
          new RedisTaskStore(REDIS_URL, { prefix: PREFIX }),
        ),
      );
  }
  console.log(
    `\n## task store operations in-process (${OPS} each, ${CONNECTIONS} concurrent)\n`,
  );
  console.log(
    "| store | create ops/s | create p50 / p99 ms | get ops/s | get p50 / p99 ms | update (statusMessage) ops/s | update p50 / p99 ms |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const r of ops) {
    const c = (o) => `${o.opsPerSec} | ${f(o.p50Ms)} / ${f(o.p99Ms)}`;
    console.log(
      `| ${r.store} | ${c(r.create)} | ${c(r.get)} | ${c(r.update)} |`,
    );
  }
  if (await reachable(REDIS_URL)) {
    const bus = await benchBus();
    console.log(
      `\n## Redis message bus (two RedisBus instances, ${BUS_MESSAGES} messages)\n`,
    );
    console.log(
      "| publish -> delivery, one at a time: p50 / p99 ms | burst: messages/s delivered |",
    );
    console.log("|---|---|");
    console.log(
      `| ${f(bus.one.p50Ms)} / ${f(bus.one.p99Ms)} | ${bus.burstPerSec} |`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await cleanRedis().catch(() => {});
}

/** `OPS` creates, then gets and statusMessage updates of random ones, `CONNECTIONS` at a time; each op timed. */
async function benchOps(label, store) {
  const owner = `bench-${process.pid}-${label}`;
  const ids = [];
  const run = async (op) => {
    const latencies = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next++ < OPS) {
          const t = performance.now();
          await op();
          latencies.push(performance.now() - t);
        }
      }),
    );
    return {
      opsPerSec: Math.round(OPS / ((performance.now() - t0) / 1000)),
      ...percentiles(latencies),
    };
  };
  try {
    await store.get("warm-up"); // connects
    let n = 0;
    const create = await run(async () => {
      const now = Date.now();
      const taskId = `bench-${process.pid}-${label}-${n++}`;
      await store.create({
        taskId,
        owner,
        revision: REVISION,
        status: "working",
        createdAt: now,
        lastUpdatedAt: now,
        ttlMs: 600_000,
        lease: { holder: "bench", until: now + 600_000 },
      });
      ids.push(taskId);
    });
    const pick = () => ids[Math.floor(Math.random() * ids.length)];
    const get = await run(() => store.get(pick()));
    let m = 0;
    const update = await run(() =>
      store.update(pick(), { statusMessage: `step ${m++}` }),
    );
    return { store: label, create, get, update };
  } finally {
    await store.close();
    // This run's rows in the shared database (Redis keys go with the run's prefix at the end).
    if (label === "postgres") {
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      await client.query("DELETE FROM mcp_tasks WHERE owner = $1", [owner]);
      await client.end();
    }
  }
}

/** Publish on one bus, time the delivery on the other: one message at a time, then a burst of all at once. */
async function benchBus() {
  const a = new RedisBus(REDIS_URL, { prefix: PREFIX });
  const b = new RedisBus(REDIS_URL, { prefix: PREFIX });
  await Promise.all([a.ready, b.ready]);
  try {
    let waiting;
    b.subscribe("ping", (m) => waiting?.(m));
    const latencies = [];
    for (let i = 0; i < BUS_MESSAGES; i++) {
      const t = performance.now();
      await new Promise((resolve) => {
        waiting = resolve;
        a.publish("ping", { i, event: "notifications/resources/updated" });
      });
      latencies.push(performance.now() - t);
    }
    let received = 0;
    const t0 = performance.now();
    await new Promise((resolve) => {
      b.subscribe("burst", () => ++received === BUS_MESSAGES && resolve());
      for (let i = 0; i < BUS_MESSAGES; i++)
        a.publish("burst", { i, event: "notifications/resources/updated" });
    });
    const burstPerSec = Math.round(
      BUS_MESSAGES / ((performance.now() - t0) / 1000),
    );
    return { one: percentiles(latencies), burstPerSec };
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

/** Delete this run's Redis keys (the task store's). */
async function cleanRedis() {
  if (!STORES.includes("redis") || !(await reachable(REDIS_URL))) return;
  const { Redis } = await import("ioredis");
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(
        cursor,
        "MATCH",
        `${PREFIX}*`,
        "COUNT",
        1000,
      );
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}
