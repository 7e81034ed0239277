#!/usr/bin/env node
// `npm run bench:suite [-- <test files or folders>]`: the test suite's time, per file and in all, as vitest reports it
// (one `vitest run` of the given files, default: all), with the CPU time of the run and everything it started (the
// children it waited for: on Linux, from /proc/self/stat) and the load average before and after. On a shared machine
// the wall time follows the load; the CPU time much less, so compare those between two runs. Run `npm run build`
// first (as `npm test` does in its pretest). Not a test; see bench/README.md.
//
//   env: BENCH_SUITE_TOP (how many files to list, longest first; default 25)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(fileURLToPath(import.meta.url), "..", "..");
const TOP = Number(process.env.BENCH_SUITE_TOP ?? 25);

/** CPU seconds of the children this process has waited for (user, system), or undefined off Linux. */
function childrenCpu() {
  if (!existsSync("/proc/self/stat")) return undefined;
  const fields = readFileSync("/proc/self/stat", "utf8")
    .split(") ")[1]
    .split(" ");
  // Fields 16 and 17 of proc(5) (cutime, cstime), in clock ticks (100 a second on Linux).
  return { user: Number(fields[13]) / 100, system: Number(fields[14]) / 100 };
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

const dir = mkdtempSync(join(tmpdir(), "bench-suite-"));
const report = join(dir, "report.json");
const account = join(dir, "cpu.jsonl");
const hook = pathToFileURL(join(ROOT, "bench", "lib", "cpu-account.mjs")).href;
const loadBefore = load();
const cpu0 = childrenCpu();
const t0 = performance.now();
const r = spawnSync(
  process.execPath,
  [
    join(ROOT, "node_modules", "vitest", "vitest.mjs"),
    "run",
    ...process.argv.slice(2),
    "--reporter=dot",
    "--reporter=json",
    `--outputFile.json=${report}`,
  ],
  {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      BENCH_CPU_ACCOUNT: account,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${hook}`.trim(),
    },
  },
);
const wall = (performance.now() - t0) / 1000;
const cpu1 = childrenCpu();
if (!existsSync(report)) {
  console.error(`bench:suite: vitest wrote no report (exit ${r.status})`);
  process.exit(1);
}
const json = JSON.parse(readFileSync(report, "utf8"));
const accounted = existsSync(account)
  ? readFileSync(account, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
  : [];
rmSync(dir, { recursive: true, force: true });
const files = json.testResults
  .map((t) => ({
    file: relative(ROOT, t.name),
    seconds: (t.endTime - t.startTime) / 1000,
    tests: t.assertionResults.length,
    failed: t.assertionResults.filter((a) => a.status === "failed").length,
  }))
  .sort((a, b) => b.seconds - a.seconds);
console.log(
  `\nsuite: ${files.length} files, ${json.numTotalTests} tests (${json.numPassedTests} passed, ${json.numFailedTests} failed, ${json.numPendingTests} skipped)`,
);
for (const f of files.slice(0, TOP))
  console.log(
    `${f.seconds.toFixed(1).padStart(8)} s  ${String(f.tests).padStart(4)} tests${f.failed ? ` (${f.failed} failed)` : ""}  ${f.file}`,
  );
if (files.length > TOP)
  console.log(
    `   (${files.length - TOP} more files, ${files
      .slice(TOP)
      .reduce((s, f) => s + f.seconds, 0)
      .toFixed(1)} s together)`,
  );
const cpu =
  cpu0 && cpu1
    ? `, CPU ${(cpu1.user - cpu0.user).toFixed(0)} s user + ${(cpu1.system - cpu0.system).toFixed(0)} s system`
    : "";
console.log(
  `wall ${wall.toFixed(1)} s${cpu}; load average ${loadBefore} before, ${load()} after`,
);

/** What a Node.js process of the suite was, by its command line. */
function kind([script = "", ...args]) {
  const name = script.split("/").slice(-3).join("/");
  if (/typescript\/bin\/tsc$/.test(script)) return "tsc";
  if (/prettier\/bin\//.test(script)) return "prettier";
  if (/\/npx?(-cli\.js)?$/.test(script)) return `npm ${args[0] ?? ""}`.trim();
  if (/create-mcp-server-generate(\.js)?$/.test(script))
    return "create-mcp-server-generate (a project's generate)";
  if (/create-mcp-server(\.js)?$/.test(script))
    return `create-mcp-server ${/^[a-z-]+$/.test(args[0] ?? "") && ["generate", "upgrade", "schemas", "add"].includes(args[0]) ? args[0] : "(scaffold)"}`;
  if (/vitest/.test(script)) return "vitest";
  if (/dist\/src\/main\.js$/.test(script))
    return "a generated server (dist/src/main.js)";
  return name;
}
const byKind = new Map();
for (const { argv, cpu } of accounted) {
  const k = kind(argv);
  const e = byKind.get(k) ?? { runs: 0, cpu: 0 };
  e.runs++;
  e.cpu += cpu;
  byKind.set(k, e);
}
const total = [...byKind.values()].reduce((s, e) => s + e.cpu, 0);
console.log(
  `\nCPU by process (${accounted.length} Node.js process${accounted.length === 1 ? "" : "es"} that exited by themselves, ${total.toFixed(0)} s of the CPU above):`,
);
for (const [k, e] of [...byKind]
  .sort((a, b) => b[1].cpu - a[1].cpu)
  .slice(0, 15))
  console.log(
    `${e.cpu.toFixed(1).padStart(8)} s  ${String(e.runs).padStart(4)} runs  ${(e.cpu / e.runs).toFixed(2).padStart(6)} s each  ${k}`,
  );
process.exitCode = r.status ?? 1;
