/** Paths and process helpers shared by the test suites. */
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadManifest, pinnedFiles } from "../generator/manifest.js";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const OUT = join(ROOT, "out");
export const CLI = join(ROOT, "bin", "create-mcp-server.js");

/**
 * What the tests read of upstream (schemas, examples, spec pages) is what `schemas sync` put in schemas/ (layout:
 * generator/sync.ts), never a mirror: so a clone that ran `npm run sync` has all of it.
 */
export const SYNCED = join(ROOT, "schemas");
const PINNED = pinnedFiles(loadManifest(join(SYNCED, "manifest.json"))).map(([path]) => path);
const pinned = new Set(PINNED);

/** Whether `schemas sync` provides `path` (relative to schemas/, e.g. `spec/2025-11-25/basic/index.mdx`). */
export const isSynced = (path: string): boolean => pinned.has(path);

/** The synced copy of `path` (relative to schemas/); throws, saying what to do, unless sync provides it and has run. */
export function synced(path: string): string {
  if (!pinned.has(path)) throw new Error(`schemas/${path} is not pinned in schemas/manifest.json, so 'schemas sync' does not provide it; pin it with 'create-mcp-server schemas pin --mirror DIR'`);
  const file = join(SYNCED, path);
  if (!existsSync(file)) throw new Error(`${file} not found: run 'npm run sync' (MCP_SCHEMA_MIRROR=<schemas mirror> copies a local mirror; without it the pinned files are downloaded)`);
  return file;
}

/** The synced files under `dir` (relative to schemas/, e.g. `2026-07-28/examples`), sorted, each checked by synced(). */
export function syncedUnder(dir: string): string[] {
  const files = PINNED.filter((p) => p.startsWith(`${dir}/`)).sort();
  if (!files.length) throw new Error(`nothing under schemas/${dir}/ is pinned in schemas/manifest.json`);
  files.forEach(synced);
  return files;
}

/**
 * A schemas mirror in `dir` made of the synced copy, laid out as CI's (`dir/schemas/<revision>/…`, the spec pages in
 * `dir/spec/…`), for tests of sync itself and of a checkout that syncs; returns the mirror, `dir/schemas`.
 */
export function mirrorOfSynced(dir: string): string {
  for (const path of PINNED) {
    const target = path.startsWith("spec/") ? join(dir, path) : join(dir, "schemas", path);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(synced(path), target);
  }
  return join(dir, "schemas");
}

/** Run the CLI as a real process (asynchronously, so the test worker stays responsive). */
export function cli(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, ...env }, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const status = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : null) : 0;
      resolve({ status, stdout, stderr });
    });
  });
}
