/**
 * `create-mcp-server generate`: schemas → `out/`.
 *
 * For each revision R: `out/R/types.ts`, `out/R/validators.js` (+ `.d.ts`),
 * `out/R/errors.ts`, `out/R/index.ts`; and once: `out/rules.json`,
 * `out/rules.ts`, `out/loaders.ts`, `out/index.ts`. Everything is rendered in memory (render.ts)
 * and only then written, through a temporary directory swapped in by rename, so a failure never leaves `out/`
 * half-written, with out/'s stamp (stamp.ts): what it was generated from. Output is deterministic: generating twice
 * gives identical bytes. With a stamp for the same inputs, `--check` (and a `generate` with nothing to do) hashes
 * out/'s files instead of rendering them again.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { PROJECT_ROOT } from "./manifest.js";
import type { RulesData } from "./rules.js";
import { readInputs, stampedState, stampFile } from "./stamp.js";

export interface GenerateOptions {
  /** Directory holding `manifest.json` and `<revision>/schema.{ts,json}`; default `schemas/`. */
  schemasDir?: string;
  outDir?: string;
  /** Called with timing lines, for `--verbose`. */
  log?: (line: string) => void;
}

export interface GeneratedFile {
  path: string;
  content: string;
}

export interface Generated {
  files: GeneratedFile[];
  rules: RulesData;
  timings: Record<string, number>;
}

function listFiles(dir: string, base = dir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    let directory = false;
    try {
      directory = statSync(p).isDirectory();
    } catch {
      // A dangling link: listed, so that it is named stale.
    }
    return directory ? listFiles(p, base) : [relative(base, p)];
  });
}

/** A regular file (not a folder, nor a dangling link). */
function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Files of `outDir` that differ from `generated`, are missing or not files, or should not be there. */
export function staleFiles(outDir: string, generated: GeneratedFile[]): string[] {
  const stale: string[] = [];
  const expected = new Set(generated.map((f) => f.path));
  for (const f of generated) {
    const p = join(outDir, f.path);
    if (!isFile(p) || readFileSync(p, "utf8") !== f.content) stale.push(f.path);
  }
  for (const p of listFiles(outDir)) if (!expected.has(p)) stale.push(p);
  return stale.sort();
}

/** Write `generated` to `outDir` atomically: a sibling temp dir, then rename. */
export function writeOut(outDir: string, generated: GeneratedFile[]): void {
  const out = resolve(outDir);
  const tmp = `${out}.tmp-${process.pid}`;
  const old = `${out}.old-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  for (const f of generated) {
    const p = join(tmp, f.path);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, f.content);
  }
  if (existsSync(out)) renameSync(out, old);
  renameSync(tmp, out);
  rmSync(old, { recursive: true, force: true });
}

/** What `generate` did: the stale files (`check`), how many files out/ holds, and the render when there was one. */
export interface GenerateResult {
  stale: string[];
  /** Files generation writes (out/'s stamp included). */
  count: number;
  /** The rendering, when the inputs had to be rendered (no stamp for them, or files to write). */
  generated?: Generated;
}

/**
 * Generate out/ from the schemas (or, with `check`, only compare). Where out/'s stamp is for the same inputs and every
 * file matches it, nothing is rendered (unless `force`): `check` reports it up to date, and generating has nothing to
 * write.
 * Throws SchemaError for a missing, unpinned or malformed schema (out/ left as it was).
 */
export async function generate(options: GenerateOptions & { check?: boolean; force?: boolean } = {}): Promise<GenerateResult> {
  const outDir = resolve(options.outDir ?? join(PROJECT_ROOT, "out"));
  const inputs = readInputs(resolve(options.schemasDir ?? join(PROJECT_ROOT, "schemas")));
  const known = existsSync(outDir) ? stampedState(outDir, inputs) : undefined;
  if (known && !options.force && (options.check || known.stale.length === 0)) return known;
  const { render } = await import("./render.js");
  const generated = await render(options);
  generated.files.push(stampFile(inputs.digest, generated.files));
  generated.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // stampedState checks a stamp's files against outputPaths: the render must write exactly those.
  const paths = generated.files.map((f) => f.path).join(", ");
  if (paths !== inputs.outputs.join(", ")) throw new Error(`generate: rendered ${paths}, but stamp.ts names ${inputs.outputs.join(", ")}`);
  const count = generated.files.length;
  if (options.check) return { stale: staleFiles(outDir, generated.files), count, generated };
  writeOut(outDir, generated.files);
  return { stale: [], count, generated };
}
