#!/usr/bin/env node
// `npm run bench`: MCP servers side by side over stdio and Streamable HTTP, both
// protocol eras, with ratios against a bare no-validation baseline. Not a test.
//
//   node bench/run.mjs [--only=bare,sdk1,...] [--sections=http/modern,...] [--quick]
//   env: BENCH_STDIO_CALLS, BENCH_HTTP_SECONDS, BENCH_HTTP_WARMUP, BENCH_COLD_RUNS, BENCH_ROUNDS
//
// This machine's CPU time is noisy (consecutive identical runs differ by 2x+), so
// servers of one section are measured interleaved: every server's work is split
// into ROUNDS rounds, and each round visits every server (in rotating order).
// calls/s is the median of a server's rounds; p50/p99 pool all its rounds.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { coldStartOnce, openStdioTarget } from "./lib/stdio.mjs";
import { openHttpTarget, percentiles } from "./lib/http.mjs";
import { precompileEcho } from "./lib/precompile.mjs";

// The runtime server uses a precompiled input validator, as scaffolded projects do.
precompileEcho();

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const serversDir = join(here, "servers");
const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const only = argv
  .find((a) => a.startsWith("--only="))
  ?.slice(7)
  .split(",");
const onlySections = argv
  .find((a) => a.startsWith("--sections="))
  ?.slice(11)
  .split(",");

const num = (name, dflt) =>
  process.env[name] ? Number(process.env[name]) : dflt;
const params = {
  stdioCalls: num("BENCH_STDIO_CALLS", quick ? 2000 : 20000),
  stdioInflight: 64,
  coldRuns: num("BENCH_COLD_RUNS", quick ? 3 : 5),
  httpConnections: 32,
  httpWarmupSec: num("BENCH_HTTP_WARMUP", quick ? 0.5 : 2),
  httpDurationSec: num("BENCH_HTTP_SECONDS", quick ? 1 : 5),
  rounds: num("BENCH_ROUNDS", quick ? 2 : 5),
};

function pkgVersion(name) {
  try {
    return JSON.parse(
      readFileSync(join(root, "node_modules", name, "package.json"), "utf8"),
    ).version;
  } catch {
    return "missing";
  }
}

const runtimeBuilt = existsSync(join(root, "runtime", "dist", "index.js"));

// Which script (and args) serves each transport/mode; absent = not supported.
const SERVERS = [
  {
    id: "bare",
    label: "bare",
    about: "bare JSON-RPC loop / node:http handler, no validation (baseline)",
    stdio: { legacy: ["bare-stdio.mjs"], modern: ["bare-stdio.mjs"] },
    http: {
      "legacy-session": ["bare-http.mjs"],
      "legacy-stateless": ["bare-http.mjs"],
      modern: ["bare-http.mjs"],
    },
  },
  {
    id: "sdk1",
    label: "sdk1",
    about: `@modelcontextprotocol/sdk ${pkgVersion("@modelcontextprotocol/sdk")} McpServer (StdioServerTransport / StreamableHTTPServerTransport, SSE responses)`,
    stdio: { legacy: ["sdk1-stdio.mjs"] },
    http: {
      "legacy-session": ["sdk1-http.mjs"],
      "legacy-stateless": ["sdk1-http.mjs", "--stateless"],
    },
  },
  {
    id: "sdk2",
    label: "sdk2",
    about:
      `@modelcontextprotocol/server ${pkgVersion("@modelcontextprotocol/server")} + /node ${pkgVersion("@modelcontextprotocol/node")} ` +
      "McpServer (serveStdio; createMcpHandler; sessions: NodeStreamableHTTPServerTransport via isLegacyRequest)",
    stdio: { legacy: ["sdk2-stdio.mjs"], modern: ["sdk2-stdio.mjs"] },
    http: {
      "legacy-session": ["sdk2-http.mjs", "--sessions"],
      "legacy-stateless": ["sdk2-http.mjs"],
      modern: ["sdk2-http.mjs"],
    },
  },
  {
    id: "runtime",
    label: "runtime",
    about: "create-mcp-server runtime (runtime/dist/index.js)",
    requiresBuild: true,
    stdio: { legacy: ["runtime-echo.mjs"], modern: ["runtime-echo.mjs"] },
    http: {
      "legacy-session": ["runtime-echo.mjs", "--http"],
      modern: ["runtime-echo.mjs", "--http"],
    },
  },
  {
    id: "runtime-otel",
    label: "runtime-otel",
    about:
      "the runtime with OpenTelemetry on: the Node SDK registered, a span per request exported over OTLP/HTTP to a local receiver, the duration histograms recorded",
    requiresBuild: true,
    stdio: { legacy: ["runtime-otel.mjs"], modern: ["runtime-otel.mjs"] },
    http: {
      "legacy-session": ["runtime-otel.mjs", "--http"],
      modern: ["runtime-otel.mjs", "--http"],
    },
  },
  {
    id: "runtime-auth",
    label: "runtime-auth",
    about:
      "the runtime with authorization (OAuth resource server): every tools/call carries the same ES256 JWT, verified with jose (signature, iss, aud, exp) against the issuer's JWKS on its first request and then answered from the token cache (authorization.tokenCache)",
    requiresBuild: true,
    http: {
      "legacy-session": ["runtime-auth.mjs"],
      modern: ["runtime-auth.mjs"],
    },
  },
  {
    id: "bare-fetch",
    label: "bare-fetch",
    about:
      "the bare handler as a web-standard fetch handler served by @hono/node-server (the adapter's own cost)",
    http: {
      "legacy-session": ["bare-fetch.mjs"],
      modern: ["bare-fetch.mjs"],
    },
  },
  {
    id: "runtime-fetch",
    label: "runtime-fetch",
    about:
      "create-mcp-server runtime through server.fetchHandler() (web-standard Request/Response), served on Node by @hono/node-server",
    requiresBuild: true,
    http: {
      "legacy-session": ["runtime-fetch.mjs"],
      modern: ["runtime-fetch.mjs"],
    },
  },
].filter((s) => !only || only.includes(s.id));

const SECTIONS = [
  {
    transport: "stdio",
    mode: "legacy",
    title: "stdio · legacy 2025-11-25 (initialize + notifications/initialized)",
  },
  {
    transport: "stdio",
    mode: "modern",
    title: "stdio · modern 2026-07-28 (no handshake, _meta envelope)",
  },
  {
    transport: "http",
    mode: "legacy-session",
    title:
      "HTTP · legacy 2025-11-25 with sessions (one Mcp-Session-Id per connection)",
  },
  {
    transport: "http",
    mode: "legacy-stateless",
    title:
      "HTTP · legacy 2025-11-25 stateless (no initialize, MCP-Protocol-Version header)",
  },
  {
    transport: "http",
    mode: "modern",
    title:
      "HTTP · modern 2026-07-28 (_meta envelope + Mcp-Method/Mcp-Name headers)",
  },
];

// ---------------------------------------------------------------- formatting
const fmtInt = (n) =>
  Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "-";
const fmt1 = (n) => (Number.isFinite(n) ? n.toFixed(1) : "-");
const fmt2 = (n) =>
  Number.isFinite(n) ? (n < 1 ? n.toFixed(3) : n.toFixed(2)) : "-";
const ratio = (v, base) =>
  Number.isFinite(v) && Number.isFinite(base) && base > 0 ? v / base : NaN;
const range = (xs) =>
  xs?.length ? `${fmtInt(Math.min(...xs))}–${fmtInt(Math.max(...xs))}` : "-";
const fmtRatio = (r) => (Number.isFinite(r) ? `${r.toFixed(2)}x` : "-");

function table(headers, rows) {
  const widths = headers.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => String(r[i]).length)),
  );
  const line = (cells) =>
    cells
      .map((c, i) =>
        i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]),
      )
      .join("  ");
  return [
    line(headers),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map(line),
  ].join("\n");
}

function render(section, entries) {
  const base = entries.find((e) => e.server === "bare" && e.result)?.result;
  const rows = [];
  const failures = [];
  for (const e of entries) {
    if (!e.result) {
      failures.push(
        `  ${e.server}: ${e.skipped ? `skipped (${e.skipped})` : `FAILED: ${e.error}`}`,
      );
      continue;
    }
    const r = e.result;
    if (section.transport === "stdio") {
      rows.push([
        e.server,
        fmtInt(r.callsPerSec),
        fmtRatio(ratio(r.callsPerSec, base?.callsPerSec)),
        fmt1(r.coldMs),
        fmtRatio(ratio(r.coldMs, base?.coldMs)),
        fmt1(r.rssMb),
        fmtRatio(ratio(r.rssMb, base?.rssMb)),
        range(r.roundsCallsPerSec),
      ]);
    } else {
      rows.push([
        e.server,
        fmtInt(r.callsPerSec),
        fmtRatio(ratio(r.callsPerSec, base?.callsPerSec)),
        fmt2(r.p50Ms),
        fmtRatio(ratio(r.p50Ms, base?.p50Ms)),
        fmt2(r.p99Ms),
        fmtRatio(ratio(r.p99Ms, base?.p99Ms)),
        fmt1(r.rssMb),
        fmtRatio(ratio(r.rssMb, base?.rssMb)),
        range(r.roundsCallsPerSec),
      ]);
    }
  }
  const headers =
    section.transport === "stdio"
      ? [
          "server",
          "calls/s",
          "vs bare",
          "cold ms",
          "vs bare",
          "peak RSS MB",
          "vs bare",
          "rounds calls/s",
        ]
      : [
          "server",
          "calls/s",
          "vs bare",
          "p50 ms",
          "vs bare",
          "p99 ms",
          "vs bare",
          "peak RSS MB",
          "vs bare",
          "rounds calls/s",
        ];
  let out = `\n${section.title}\n`;
  if (rows.length) out += table(headers, rows) + "\n";
  if (failures.length) out += failures.join("\n") + "\n";
  return out;
}

// ---------------------------------------------------------------- main
const started = performance.now();
const cpu = cpus()[0]?.model ?? "unknown";
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const loadBefore = load();
console.log(
  `MCP server bench — node ${process.version}, ${cpus().length} CPU (${cpu}), load average ${loadBefore}`,
);
console.log(
  `stdio: ${params.rounds} rounds of ${params.stdioCalls} pipelined tools/call echo per server after a warmup burst of as many, ${params.stdioInflight} in flight, ` +
    `every response verified; cold start = spawn → first response to the first request, median of ${params.coldRuns} spawns`,
);
console.log(
  `HTTP: POST /mcp on 127.0.0.1, ${params.httpConnections} keep-alive connections (undici Pool), ` +
    `${params.httpWarmupSec}s warmup + ${params.rounds} × ${fmt2(params.httpDurationSec / params.rounds)}s windows per server, every response verified`,
);
console.log(
  "servers of a section run interleaved round by round; calls/s = median of rounds (range shown); " +
    "peak RSS = server VmHWM at the end; ratios vs bare (calls/s: higher is better, the rest: lower)",
);
for (const s of SERVERS) console.log(`  ${s.label.padEnd(8)} ${s.about}`);
if (SERVERS.some((s) => s.id === "runtime") && !runtimeBuilt)
  console.log(
    "runtime: not built (runtime/dist/index.js missing; run `npm run build`) — skipped",
  );

const median = (xs) => {
  const a = [...xs].sort((x, y) => x - y);
  return a.length
    ? a.length % 2
      ? a[(a.length - 1) / 2]
      : (a[a.length / 2 - 1] + a[a.length / 2]) / 2
    : NaN;
};
const rotate = (xs, k) => xs.map((_, i) => xs[(i + k) % xs.length]);
const errText = (err) => String(err?.message ?? err);

async function runStdioSection(section, entries) {
  const live = entries.filter((e) => !e.skipped);
  // Cold starts, interleaved.
  const colds = new Map(live.map((e) => [e, []]));
  for (let i = 0; i < params.coldRuns; i++) {
    for (const e of rotate(live, i)) {
      if (e.error) continue;
      try {
        colds.get(e).push(await coldStartOnce(e.script, e.args, section.mode));
      } catch (err) {
        e.error = `cold start: ${errText(err)}`;
      }
    }
  }
  // Throughput: one long-lived server each, `rounds` bursts of calls/rounds.
  for (const e of live) {
    if (e.error) continue;
    try {
      e.target = await openStdioTarget({
        script: e.script,
        args: e.args,
        era: section.mode,
      });
    } catch (err) {
      e.error = `handshake: ${errText(err)}`;
    }
  }
  // Every round is BENCH_STDIO_CALLS calls, after a warmup burst of as many that is not counted: rounds of a fifth
  // of that, unwarmed, lasted about 20 ms and ranged over 10x (22k-289k calls/s for one server).
  const perRound = params.stdioCalls;
  for (const e of live) {
    if (e.error || !e.target) continue;
    try {
      await e.target.burst(perRound, params.stdioInflight);
    } catch (err) {
      e.error = `warmup: ${errText(err)}`;
    }
  }
  const rates = new Map(live.map((e) => [e, []]));
  for (let r = 0; r < params.rounds; r++) {
    for (const e of rotate(live, r)) {
      if (e.error || !e.target) continue;
      try {
        const b = await e.target.burst(perRound, params.stdioInflight);
        rates.get(e).push(b.calls / b.seconds);
      } catch (err) {
        e.error = errText(err);
      }
    }
  }
  for (const e of live) {
    if (!e.target) continue;
    try {
      if (!e.error) {
        const rs = rates.get(e);
        e.result = {
          callsPerSec: median(rs),
          roundsCallsPerSec: rs,
          calls: perRound * rs.length,
          inflight: params.stdioInflight,
          coldMs: median(colds.get(e)),
          coldRunsMs: colds.get(e),
          rssMb: e.target.rssMb(),
        };
      }
    } catch (err) {
      e.error = errText(err);
    }
    await e.target.close();
    delete e.target;
  }
}

async function runHttpSection(section, entries) {
  const live = entries.filter((e) => !e.skipped);
  for (const e of live) {
    try {
      e.target = await openHttpTarget({
        script: e.script,
        args: e.args,
        mode: section.mode,
        connections: params.httpConnections,
      });
      await e.target.window(params.httpWarmupSec); // warmup, not counted
    } catch (err) {
      e.error = errText(err);
    }
  }
  const windowSec = params.httpDurationSec / params.rounds;
  const acc = new Map(
    live.map((e) => [e, { rates: [], latencies: [], calls: 0, seconds: 0 }]),
  );
  for (let r = 0; r < params.rounds; r++) {
    for (const e of rotate(live, r)) {
      if (e.error || !e.target) continue;
      try {
        const w = await e.target.window(windowSec);
        const a = acc.get(e);
        a.rates.push(w.calls / w.seconds);
        for (const l of w.latencies) a.latencies.push(l);
        a.calls += w.calls;
        a.seconds += w.seconds;
      } catch (err) {
        e.error = errText(err);
      }
    }
  }
  for (const e of live) {
    if (!e.target) continue;
    try {
      if (!e.error) {
        const a = acc.get(e);
        e.result = {
          callsPerSec: median(a.rates),
          roundsCallsPerSec: a.rates,
          calls: a.calls,
          seconds: a.seconds,
          ...percentiles(a.latencies),
          rssMb: e.target.rssMb(),
          connections: params.httpConnections,
        };
      }
    } catch (err) {
      e.error = errText(err);
    }
    await e.target.close();
    delete e.target;
  }
}

const results = [];
for (const section of SECTIONS) {
  if (
    onlySections &&
    !onlySections.includes(`${section.transport}/${section.mode}`)
  )
    continue;
  const entries = [];
  for (const server of SERVERS) {
    const cmd = server[section.transport]?.[section.mode];
    if (!cmd) continue;
    const entry = {
      transport: section.transport,
      mode: section.mode,
      server: server.id,
    };
    if (server.requiresBuild && !runtimeBuilt) entry.skipped = "not built";
    const [script, ...args] = cmd;
    Object.defineProperty(entry, "script", {
      value: join(serversDir, script),
      enumerable: false,
    });
    Object.defineProperty(entry, "args", { value: args, enumerable: false });
    entries.push(entry);
  }
  if (!entries.length) continue;
  const t0 = performance.now();
  process.stderr.write(
    `  … ${section.transport}/${section.mode}: ${entries
      .filter((e) => !e.skipped)
      .map((e) => e.server)
      .join(", ")}`,
  );
  if (section.transport === "stdio") await runStdioSection(section, entries);
  else await runHttpSection(section, entries);
  process.stderr.write(` (${((performance.now() - t0) / 1000).toFixed(1)}s)\n`);
  results.push(...entries);
  process.stdout.write(render(section, entries));
}
const failed = results.filter((e) => e.error).length;

const totalSec = (performance.now() - started) / 1000;
const report = {
  date: new Date().toISOString(),
  node: process.version,
  cpu,
  cpus: cpus().length,
  params,
  servers: Object.fromEntries(SERVERS.map((s) => [s.id, s.about])),
  versions: {
    "@modelcontextprotocol/sdk": pkgVersion("@modelcontextprotocol/sdk"),
    "@modelcontextprotocol/server": pkgVersion("@modelcontextprotocol/server"),
    "@modelcontextprotocol/node": pkgVersion("@modelcontextprotocol/node"),
    undici: pkgVersion("undici"),
  },
  runtimeBuilt,
  loadAverage: { before: loadBefore, after: load() },
  totalSeconds: totalSec,
  results,
};
writeFileSync(
  join(here, "results.json"),
  JSON.stringify(report, null, 2) + "\n",
);
console.log(
  `\nload average now ${load()} — other work on this machine skews absolute numbers; compare ratios within one run`,
);
console.log(
  `\nwrote bench/results.json — total ${totalSec.toFixed(1)} s${failed ? `, ${failed} run(s) FAILED` : ""}`,
);
process.exit(failed ? 1 : 0);
