/**
 * One temporary folder per test run. TMPDIR (TMP, TEMP) points at it before the workers fork, so every
 * mkdtemp(tmpdir()) of a test and every child process (npm, tsc, the scaffolded projects' servers) lands in it, and
 * teardown removes it, after failing tests too, and so does the exit of a run stopped by SIGINT or SIGTERM (vitest
 * exits without teardown then). A folder left by a killed run is removed at a later start once it is a day old: a
 * younger one may belong to a run in progress in another checkout.
 *
 * The workers also lose MCP_SCHEMA_MIRROR: the tests read what `schemas sync` provided (test/helpers.ts), never the
 * mirror, so a run passes on a machine whose only copy is the synced one.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const RUN_PREFIX = "create-mcp-server-test-";
const STALE_MS = 24 * 60 * 60 * 1000;
const VARS = ["TMPDIR", "TMP", "TEMP", "MCP_SCHEMA_MIRROR"] as const;

/** Removes the run folders under `base` that nothing has written to for a day. */
export function removeStale(base: string, now = Date.now()): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(base)) {
    if (!name.startsWith(RUN_PREFIX)) continue;
    const dir = join(base, name);
    try {
      if (now - statSync(dir).mtimeMs < STALE_MS) continue;
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // Gone already (another run's start removed it), or not ours to remove.
    }
  }
  return removed;
}

export default function setup(): () => void {
  const base = tmpdir();
  removeStale(base);
  const run = mkdtempSync(join(base, RUN_PREFIX));
  const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
  process.env.TMPDIR = process.env.TMP = process.env.TEMP = run;
  delete process.env.MCP_SCHEMA_MIRROR;
  const remove = () => rmSync(run, { recursive: true, force: true });
  // First: vitest's own exit listener exits again at once, and the listeners after it never run.
  process.prependListener("exit", remove);
  return () => {
    process.off("exit", remove);
    remove();
    for (const v of VARS) {
      if (saved[v] === undefined) delete process.env[v];
      else process.env[v] = saved[v];
    }
  };
}
