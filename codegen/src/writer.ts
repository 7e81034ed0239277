/**
 * Writing generated/: only the files whose content changed are rewritten (a watcher or tsc --watch sees no change
 * where there is none), and files no longer generated are removed. The stamp file is the writer's own.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** The stamp of the last run in generated/: what it was made from, and what it wrote (see stamp.ts). */
export const STAMP = ".inputs";

/** Every file under `dir` as sorted `/`-separated paths relative to `base`; none when `dir` does not exist. */
export function listFiles(dir: string, base: string = dir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name), base) : [relative(base, join(dir, e.name)).split("\\").join("/")]))
    .sort();
}

/** sha256 over files (path and content), sorted by path: the identity of a generated/. */
export function outputsDigest(files: Iterable<[string, string]>): string {
  const digest = createHash("sha256");
  for (const [path, text] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) digest.update(path).update("\0").update(text);
  return digest.digest("hex");
}

/** The files of `out` as they are now (the stamp left out). */
export function currentFiles(out: string): [string, string][] {
  return listFiles(out)
    .filter((f) => f !== STAMP)
    .map((f) => [f, readFileSync(join(out, f), "utf8")]);
}

/** Make `out` hold exactly `files` (and the stamp): how many files were written and how many removed. */
export function writeFiles(out: string, files: Map<string, string>): { written: number; removed: number } {
  let written = 0;
  let removed = 0;
  for (const stale of listFiles(out)) {
    if (stale === STAMP || files.has(stale)) continue;
    rmSync(join(out, stale));
    removed++;
  }
  for (const [path, text] of files) {
    const target = join(out, path);
    if (existsSync(target) && readFileSync(target, "utf8") === text) continue;
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    written++;
  }
  return { written, removed };
}
