/**
 * The mutation check (`npm run test:mutations`): each mutation of test/mutations/mutations.ts breaks one rule of the
 * runtime; applied alone to a copy of the project (never to this working tree), it must make its named test file fail.
 * A mutation whose `find` no longer occurs exactly once is stale, a failure too: the list cannot rot silently when the
 * code moves. So is a patch that no longer builds, and a test file that does not load or runs no test (a test that
 * fails for such a reason proves nothing about the rule).
 *
 * Per mutation: the project is copied to a temporary folder (node_modules and schemas linked, not copied, runtime/dist
 * left out), the patch applied,
 * `npm run generate` run when the file is under generator/, then `vitest run <test> [-t filter] --bail=1` (the first
 * failing test is enough to call it caught). The runtime:
 * - a test file that starts child processes (they load runtime/dist) gets `npm run build:runtime` in the copy;
 * - any other test file runs in process against runtime/src (its imports of runtime/dist aliased there), so no build.
 *   Should such a mutation survive, it is tried once more with the build, so a child process the first look missed
 *   cannot make it survive.
 * Each test file first runs once unmutated, the same way, and must pass: else its mutations' failures prove nothing
 * (the unmutated files in one vitest run per way, `--jobs` files at a time).
 * Two at a time (`--jobs N`); `--only id,id` runs some; `--check` only looks for stale ones; `--keep` keeps the copies.
 * Run it after `npm run build` (the copies start from this tree's out/ and runtime/dist).
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { MUTATIONS } from "./mutations.js";
import type { Mutation } from "./types.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** One step's bound (a build, a generate, a test file): a hang is a failure, not a stuck CI job. */
const STEP_TIMEOUT_MS = 300_000;
/** The vitest configs of a copy: the project's, with its cache in the copy; for in-process files, runtime/dist imports resolved to runtime/src. */
const DIST_CONFIG = "vitest.mutations-dist.config.ts";
const SRC_CONFIG = "vitest.mutations-src.config.ts";

type Outcome = "caught" | "SURVIVED" | "stale" | "broken";
interface Result {
  outcome: Outcome;
  seconds: number;
  detail?: string;
  /** The tests that failed (a caught mutation). */
  by?: string[];
}

function occurrences(text: string, snippet: string): number {
  let n = 0;
  for (let i = text.indexOf(snippet); i >= 0; i = text.indexOf(snippet, i + 1)) n++;
  return n;
}

/** Why `m` cannot be applied to the tree at `root` (its file or test is gone, `find` is not there exactly once), or undefined. */
export function staleness(m: Mutation, root = ROOT): string | undefined {
  const file = join(root, m.file);
  if (!existsSync(file)) return `${m.file} does not exist`;
  if (!existsSync(join(root, m.test))) return `test ${m.test} does not exist`;
  if (m.find === m.replace) return "find and replace are the same";
  const n = occurrences(readFileSync(file, "utf8"), m.find);
  return n === 1 ? undefined : `its find occurs ${n} times in ${m.file}: ${JSON.stringify(m.find.length > 80 ? m.find.slice(0, 77) + "..." : m.find)}`;
}

/** Whether a test file starts child processes (a fixture, a CLI): then they run runtime/dist, which must be rebuilt. */
function startsChildProcesses(test: string): boolean {
  const text = readFileSync(join(ROOT, test), "utf8");
  return /from\s+["'](node:)?(child_process|worker_threads)["']|fixtures\/[\w-]+\.mjs/.test(text);
}

/** Run a command in `cwd`; resolves with its exit code and output (its process group is killed past the bound). */
function run(cmd: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: "0" } });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n(killed after ${STEP_TIMEOUT_MS / 1000} s)`;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // Already gone.
      }
    }, STEP_TIMEOUT_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}

/**
 * A copy of the project in a temporary folder: everything but .git and node_modules (linked), plus SRC_CONFIG. The
 * schemas are linked too (nothing a mutation runs writes there; a mutation of a file under schemas/ gets its own copy),
 * and runtime/dist is left out unless `dist`: a mutation's run that needs it builds it (check), and the in-process
 * ones resolve it to runtime/src. Those two are half of the tree's bytes, and the copy is made once per mutation.
 */
function copyProject(dist = true, schemas = false): string {
  const dir = mkdtempSync(join(tmpdir(), "mcp-mutation-"));
  cpSync(ROOT, dir, {
    recursive: true,
    filter: (src) => {
      const rel = relative(ROOT, src).split(/[\\/]/);
      if ((rel[0] === "schemas" && !schemas) || (!dist && rel[0] === "runtime" && rel[1] === "dist")) return false;
      return rel[0] !== ".git" && !rel.includes("node_modules") && !/^(dist|out)\.(tmp|old)-/.test(rel.at(-1)!);
    },
  });
  if (!schemas) symlinkSync(join(ROOT, "schemas"), join(dir, "schemas"), "dir");
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  const src = JSON.stringify(join(dir, "runtime", "src") + "/");
  // The cache in the copy: node_modules is this tree's, linked, and stays untouched.
  const head = `import { mergeConfig } from "vitest/config";\nimport base from "./vitest.config.ts";\nconst cacheDir = ${JSON.stringify(join(dir, ".vite"))};\n`;
  writeFileSync(join(dir, DIST_CONFIG), `${head}export default mergeConfig(base, { cacheDir });\n`);
  writeFileSync(
    join(dir, SRC_CONFIG),
    `${head}export default mergeConfig(base, { cacheDir, resolve: { alias: [\n` +
      `  { find: /^(?:\\.\\.?\\/)+runtime\\/dist\\/index\\.js$/, replacement: ${src} + "index.ts" },\n` +
      `  { find: /^(?:\\.\\.?\\/)+runtime\\/dist\\/runtime\\/src\\/(.*)\\.js$/, replacement: ${src} + "$1.ts" },\n` +
      `] } });\n`,
  );
  return dir;
}

/** The vitest JSON report: how many tests ran, which failed, and whether a file failed to load. */
function verdict(reportFile: string): { ran: number; failed: string[]; loadError?: string } | undefined {
  if (!existsSync(reportFile)) return undefined;
  const r = JSON.parse(readFileSync(reportFile, "utf8")) as {
    numTotalTests: number;
    numPendingTests: number;
    numTodoTests?: number;
    testResults: { status: string; message?: string; assertionResults: { status: string; fullName: string }[] }[];
  };
  const loadError = r.testResults.find((t) => t.status === "failed" && t.assertionResults.length === 0)?.message;
  const failed = r.testResults.flatMap((t) => t.assertionResults.filter((a) => a.status === "failed").map((a) => a.fullName));
  return { ran: r.numTotalTests - r.numPendingTests - (r.numTodoTests ?? 0), failed, loadError };
}

const tail = (s: string, lines = 25) => s.trimEnd().split("\n").slice(-lines).join("\n");

/**
 * Run `test` in the copy `dir`: in process against runtime/src, or (`built`) against the copy's runtime/dist. A
 * mutation's run (`bail`) stops at its first failing test: one is all a caught mutation needs.
 */
async function vitest(dir: string, test: string, filter: string | undefined, built: boolean, name: string, bail = false): Promise<{ failed: string[] } | { broken: string }> {
  const report = join(dir, `.mutation-report-${name}.json`);
  const args = [join("node_modules", "vitest", "vitest.mjs"), "run", test, "--reporter=json", `--outputFile=${report}`];
  args.push("--config", built ? DIST_CONFIG : SRC_CONFIG);
  if (bail) args.push("--bail=1");
  if (filter) args.push("-t", filter);
  const t = await run(process.execPath, args, dir);
  const v = verdict(report);
  if (!v) return { broken: `vitest wrote no report (exit ${t.code}):\n${tail(t.output)}` };
  if (v.loadError) return { broken: `${test} did not load (that proves nothing about the rule):\n${tail(v.loadError)}` };
  if (v.ran === 0) return { broken: `no test of ${test} ran${filter ? ` with -t ${JSON.stringify(filter)}` : ""}` };
  return { failed: v.failed };
}

const buildRuntime = (dir: string) => run(process.execPath, ["runtime/build.mjs"], dir);

async function check(m: Mutation, keep: boolean): Promise<Result> {
  const start = Date.now();
  const done = (r: Omit<Result, "seconds">): Result => ({ ...r, seconds: (Date.now() - start) / 1000 });
  const stale = staleness(m);
  if (stale) return done({ outcome: "stale", detail: `stale mutation: ${stale}` });
  const dir = copyProject(false, m.file.startsWith("schemas/"));
  try {
    const file = join(dir, m.file);
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace(m.find, () => m.replace),
    );
    if (m.file.startsWith("generator/")) {
      const g = await run(process.execPath, ["bin/create-mcp-server.js", "generate"], dir);
      if (g.code !== 0) return done({ outcome: "broken", detail: `npm run generate failed:\n${tail(g.output)}` });
    }
    let built = startsChildProcesses(m.test);
    for (;;) {
      if (built) {
        const b = await buildRuntime(dir);
        if (b.code !== 0) return done({ outcome: "broken", detail: `npm run build:runtime failed (a patch must compile):\n${tail(b.output)}` });
      }
      const v = await vitest(dir, m.test, m.filter, built, m.id, true);
      if ("broken" in v) return done({ outcome: "broken", detail: v.broken });
      if (v.failed.length) return done({ outcome: "caught", by: v.failed });
      // Survived in process: once more against a rebuilt runtime/dist, in case the test starts a child after all.
      if (built) return done({ outcome: "SURVIVED", detail: `${m.test}: every test passed with the patch applied` });
      built = true;
    }
  } finally {
    if (keep) process.stdout.write(`  (copy kept: ${dir})\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Each named test file, unmutated, the way its mutations run it (in process against runtime/src, or against
 * runtime/dist), must pass: a failing one would catch anything. One vitest run per way over all of its files (each file
 * still in a worker of its own, `jobs` at a time), rather than one run per file: vitest's start-up once. Resolves with
 * why each failing file fails.
 */
async function baselines(tests: string[], dir: string, jobs: number): Promise<Map<string, string>> {
  const failing = new Map<string, string>();
  for (const built of [false, true]) {
    const group = tests.filter((t) => startsChildProcesses(t) === built);
    if (!group.length) continue;
    const report = join(dir, `.mutation-report-baseline-${built ? "dist" : "src"}.json`);
    const args = [join("node_modules", "vitest", "vitest.mjs"), "run", ...group, "--reporter=json", `--outputFile=${report}`, "--config", built ? DIST_CONFIG : SRC_CONFIG];
    args.push(`--maxWorkers=${jobs}`, "--minWorkers=1");
    const t = await run(process.execPath, args, dir);
    if (!existsSync(report)) {
      for (const test of group) failing.set(test, `vitest wrote no report (exit ${t.code}):\n${tail(t.output)}`);
      continue;
    }
    const r = JSON.parse(readFileSync(report, "utf8")) as {
      testResults: { name: string; status: string; message?: string; startTime: number; endTime: number; assertionResults: { status: string; fullName: string }[] }[];
    };
    for (const test of group) {
      const f = r.testResults.find((x) => relative(dir, x.name).split(/[\\/]/).join("/") === test);
      const ran = f?.assertionResults.filter((a) => a.status === "passed" || a.status === "failed") ?? [];
      const failed = ran.filter((a) => a.status === "failed").map((a) => a.fullName);
      const why = !f
        ? `${test} is not in vitest's report (exit ${t.code}):\n${tail(t.output)}`
        : f.status === "failed" && f.assertionResults.length === 0
          ? `${test} did not load (that proves nothing about the rule):\n${tail(f.message ?? "")}`
          : !ran.length
            ? `no test of ${test} ran`
            : failed.length
              ? `fails unmutated: ${failed.slice(0, 3).join("; ")}`
              : undefined;
      if (why) failing.set(test, why);
      const seconds = f ? (f.endTime - f.startTime) / 1000 : 0;
      process.stdout.write(line(why ? "broken" : "baseline", seconds, `${test} unmutated${built ? " (runtime/dist)" : " (in process, runtime/src)"}`));
      if (why) process.stdout.write(why.replace(/^/gm, "           ") + "\n");
    }
  }
  return failing;
}

function parseArgs(argv: string[]): { only?: Set<string>; jobs: number; keep: boolean; check: boolean } {
  const opts: { only?: Set<string>; jobs: number; keep: boolean; check: boolean } = { jobs: 2, keep: false, check: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--only") opts.only = new Set(argv[++i].split(","));
    else if (a === "--jobs") opts.jobs = Math.max(1, Number(argv[++i]) || 1);
    else if (a === "--keep") opts.keep = true;
    else if (a === "--check") opts.check = true;
    else throw new Error(`unknown argument ${a} (--only id,id  --jobs N  --check  --keep)`);
  }
  return opts;
}

/** Run `tasks` `jobs` at a time. */
async function pool<T>(tasks: (() => Promise<T>)[], jobs: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(jobs, tasks.length) }, worker));
}

function selected(opts: { only?: Set<string> }): Mutation[] {
  const ids = new Set<string>();
  for (const m of MUTATIONS) {
    if (ids.has(m.id)) throw new Error(`two mutations are called ${m.id}`);
    ids.add(m.id);
  }
  for (const id of opts.only ?? []) if (!ids.has(id)) throw new Error(`no mutation is called ${id}`);
  return MUTATIONS.filter((m) => !opts.only || opts.only.has(m.id));
}

const line = (outcome: string, seconds: number, what: string) => `${outcome.padEnd(8)} ${seconds.toFixed(1).padStart(6)} s  ${what}\n`;

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const list = selected(opts);
  const stale = list.map((m) => [m, staleness(m)] as const).filter(([, why]) => why);
  if (opts.check) {
    for (const [m, why] of stale) process.stdout.write(`stale    ${m.id}: stale mutation: ${why}\n`);
    process.stdout.write(`${list.length} mutations, ${stale.length} stale\n`);
    process.exitCode = stale.length ? 1 : 0;
    return;
  }
  if (!existsSync(join(ROOT, "runtime", "dist")) || !existsSync(join(ROOT, "out", "rules.ts"))) throw new Error("run `npm run build` first: the copies start from out/ and runtime/dist");
  const started = Date.now();
  const tests = [...new Set(list.filter((m) => !staleness(m)).map((m) => m.test))];
  process.stdout.write(`mutation check: ${list.length} mutations of ${tests.length} test files, ${opts.jobs} at a time\n`);
  const base = copyProject();
  let failing: Map<string, string>;
  try {
    failing = await baselines(tests, base, opts.jobs);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  const results = new Map<Mutation, Result>();
  await pool(
    list.map((m) => async () => {
      const why = failing.get(m.test);
      const r = why ? { outcome: "broken" as const, seconds: 0, detail: `${m.test} ${why}` } : await check(m, opts.keep);
      results.set(m, r);
      process.stdout.write(line(r.outcome, r.seconds, `${m.id}  (${m.test}${m.filter ? ` -t ${JSON.stringify(m.filter)}` : ""})`));
      if (r.by) process.stdout.write(`           by: ${r.by[0]}${r.by.length > 1 ? ` (and ${r.by.length - 1} more)` : ""}\n`);
      if (r.detail) process.stdout.write(r.detail.replace(/^/gm, "           ") + "\n");
    }),
    opts.jobs,
  );
  const bad = [...results].filter(([, r]) => r.outcome !== "caught");
  process.stdout.write(`\n${list.length - bad.length} of ${list.length} caught in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  for (const [m, r] of bad) process.stdout.write(`  ${r.outcome}: ${m.id}: ${m.rule}\n`);
  process.exitCode = bad.length ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
