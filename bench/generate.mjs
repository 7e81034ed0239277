#!/usr/bin/env node
// `npm run bench:generate`: the wall time of `create-mcp-server generate` (schemas → out/, every revision) as a user
// runs it, each a fresh process, in three cases, interleaved round by round: a render from nothing (an empty output
// folder), `generate --check` on an up-to-date out/ (its stamp for the same inputs: hashing only), and `--check` when
// the stamp is for other inputs (render and compare, as after a change to the generator or the schemas). Medians and
// ranges of BENCH_GENERATE_RUNS (5) rounds. Not a test; see bench/README.md. Needs the synced schemas
// (`npm run build`, or `npm run sync` with MCP_SCHEMA_MIRROR).
import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(import.meta.url), "..", "..");
const RUNS = Number(process.env.BENCH_GENERATE_RUNS ?? 5);
const CLI = join(ROOT, "bin", "create-mcp-server.js");
const dir = mkdtempSync(join(tmpdir(), "bench-generate-"));

function timed(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLI, "generate", ...args], {
    cwd: ROOT,
    encoding: "utf8",
  });
  const ms = performance.now() - t0;
  if (r.status !== 0)
    throw new Error(
      `generate ${args.join(" ")} exited ${r.status}: ${r.stderr}`,
    );
  return ms;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const loadBefore = load();
const fresh = join(dir, "fresh");
const stale = join(dir, "other-inputs");
const cases = {
  "render from nothing": () => {
    rmSync(fresh, { recursive: true, force: true });
    return timed(["--out", fresh]);
  },
  "--check, stamp for these inputs": () => timed(["--check", "--out", fresh]),
  "--check, stamp for other inputs": () => {
    rmSync(stale, { recursive: true, force: true });
    cpSync(fresh, stale, { recursive: true });
    const stamp = JSON.parse(readFileSync(join(stale, "stamp.json"), "utf8"));
    writeFileSync(
      join(stale, "stamp.json"),
      JSON.stringify({ ...stamp, inputs: "0".repeat(64) }),
    );
    // The check names stamp.json stale (it differs from what a render writes) and exits 1: time it all the same.
    const t0 = performance.now();
    const r = spawnSync(
      process.execPath,
      [CLI, "generate", "--check", "--out", stale],
      { cwd: ROOT, encoding: "utf8" },
    );
    if (r.status !== 1 || !r.stderr.includes("stamp.json"))
      throw new Error(
        `generate --check on other inputs: ${r.status} ${r.stderr}`,
      );
    return performance.now() - t0;
  },
};
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
try {
  cases["render from nothing"](); // warm the file cache
  for (let i = 0; i < RUNS; i++)
    for (const [name, run] of Object.entries(cases)) times[name].push(run());
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
process.stdout.write(
  `create-mcp-server generate (5 revisions), ${RUNS} interleaved rounds, a fresh process each (Node and tsx start-up included)\n`,
);
for (const [name, list] of Object.entries(times)) {
  const s = (ms) => (ms / 1000).toFixed(2);
  process.stdout.write(
    `  ${name.padEnd(34)} ${s(median(list))} s  (${s(Math.min(...list))}-${s(Math.max(...list))})\n`,
  );
}
process.stdout.write(`load average ${loadBefore} before, ${load()} after\n`);
