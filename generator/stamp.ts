/**
 * out/'s stamp (`out/stamp.json`): a digest of everything generation reads (the manifest and each revision's schemas,
 * the generator's own sources, the versions of the packages that shape its output) and a digest of each file it wrote.
 * With it, `generate --check` tells whether out/ is what the inputs produce by hashing files, without rendering and
 * formatting them again; a changed input (or no stamp) falls back to rendering and comparing byte for byte. The stamp
 * holds no time or path, so generating twice still gives identical bytes.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { loadManifest } from "./manifest.js";

export const STAMP = "stamp.json";

/** The packages whose versions decide what generation writes (the validators' code, the types, the formatting). */
const SHAPING_PACKAGES = ["ajv", "ajv-formats", "json-schema-to-typescript", "prettier", "ts-morph"];

interface Stamp {
  inputs: string;
  /** sha256 (hex) of each file written, by path under out/. */
  files: Record<string, string>;
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => /\.(ts|js|mjs|json)$/.test(f) && !f.split(/[\\/]/).includes("node_modules") && statSync(join(dir, f)).isFile())
    .sort();
}

function packageVersion(name: string): string {
  const require = createRequire(import.meta.url);
  try {
    // Some packages' `exports` hide package.json: then find it above the entry point.
    let dir = dirname(require.resolve(name));
    while (!existsSync(join(dir, "package.json")) || JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name !== name) {
      const up = dirname(dir);
      if (up === dir) return "unknown";
      dir = up;
    }
    return String(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version);
  } catch {
    return "unknown";
  }
}

/**
 * A digest (sha256 hex) of what generation reads from `schemasDir`, of this generator's sources (the folder of this
 * module: generator/ in a checkout) and of the shaping packages' versions. Throws what loadManifest throws.
 */
export function inputsDigest(schemasDir: string): string {
  const h = createHash("sha256");
  const add = (label: string, data: string | Buffer) => h.update(`${label}\0${data.length}\0`).update(data);
  const manifestPath = join(schemasDir, "manifest.json");
  add("manifest", readFileSync(manifestPath));
  for (const r of loadManifest(manifestPath).revisions) {
    for (const file of ["schema.ts", "schema.json"]) {
      const p = join(schemasDir, r.id, file);
      add(`${r.id}/${file}`, existsSync(p) ? readFileSync(p) : "missing");
    }
  }
  const own = dirname(fileURLToPath(import.meta.url));
  for (const f of filesUnder(own)) add(`generator/${f}`, readFileSync(join(own, f)));
  for (const name of SHAPING_PACKAGES) add(`package ${name}`, packageVersion(name));
  return h.digest("hex");
}

/** The stamp of `files` generated from `inputs`, as a file of out/. */
export function stampFile(inputs: string, files: { path: string; content: string }[]): { path: string; content: string } {
  const stamp: Stamp = { inputs, files: Object.fromEntries(files.map((f) => [f.path, sha256(f.content)])) };
  return { path: STAMP, content: JSON.stringify(stamp, null, 2) + "\n" };
}

/**
 * What out/ holds against its stamp, when the stamp was written for `inputs`: the files that differ from what was
 * written, are missing, or should not be there (sorted), and how many files generation writes. Undefined when out/
 * has no stamp, an unreadable one, or one for other inputs: only rendering can tell then.
 */
export function stampedState(outDir: string, inputs: string): { stale: string[]; count: number } | undefined {
  let stamp: Stamp;
  try {
    stamp = JSON.parse(readFileSync(join(outDir, STAMP), "utf8")) as Stamp;
  } catch {
    return undefined;
  }
  if (stamp?.inputs !== inputs || typeof stamp.files !== "object" || stamp.files === null) return undefined;
  // A stamp naming a file outside out/ is not one this generator wrote: only rendering can tell then.
  if (Object.keys(stamp.files).some((p) => isAbsolute(p) || p.split(/[\\/]/).includes(".."))) return undefined;
  const stale: string[] = [];
  for (const [path, digest] of Object.entries(stamp.files)) {
    const p = join(outDir, path);
    if (!existsSync(p) || sha256(readFileSync(p)) !== digest) stale.push(path);
  }
  const expected = new Set([...Object.keys(stamp.files), STAMP]);
  for (const f of readdirSync(outDir, { recursive: true, encoding: "utf8" })) if (statSync(join(outDir, f)).isFile() && !expected.has(relative(".", f).split("\\").join("/"))) stale.push(f);
  return { stale: stale.sort(), count: expected.size };
}
