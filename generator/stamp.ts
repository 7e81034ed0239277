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
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadManifest } from "./manifest.js";
import { clientRequestMethods, requestModulePath } from "./request-modules.js";

export const STAMP = "stamp.json";

/** The files generation writes per revision, and once (besides the stamp): render.ts writes exactly these. */
const PER_REVISION = ["dispatch-validators.d.ts", "dispatch-validators.js", "errors.ts", "index.ts", "types.ts", "validators.d.ts", "validators.js"];
const ONCE = ["latest.ts", "loaders.ts", "rules.json", "rules.ts"];

/**
 * Every path generation writes under out/ for `revisions` (sorted), the stamp included: besides the fixed files, each
 * revision's per-method request validators (request-modules.ts) and their declarations.
 */
export function outputPaths(revisions: readonly { id: string; requestMethods: readonly string[] }[]): string[] {
  const requestFiles = (r: { id: string; requestMethods: readonly string[] }) =>
    r.requestMethods.flatMap((m) => {
      const js = `${r.id}/${requestModulePath(m)}`;
      return [js, js.replace(/\.js$/, ".d.ts")];
    });
  return [...revisions.flatMap((r) => [...PER_REVISION.map((f) => `${r.id}/${f}`), ...requestFiles(r)]), ...ONCE, STAMP].sort();
}

/** The methods of schema.json's ClientRequest union, or [] when it cannot be read (rendering then says why). */
function requestMethodsOf(json: Buffer | undefined): string[] {
  try {
    return json ? clientRequestMethods(JSON.parse(json.toString("utf8"))) : [];
  } catch {
    return [];
  }
}

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

/** What generation reads (its digest) and writes (every path under out/, sorted), from readInputs. */
export interface Inputs {
  digest: string;
  outputs: string[];
}

/**
 * What generation reads: `digest`, a sha256 (hex) of the manifest and schemas in `schemasDir`, of this generator's
 * sources (the folder of this module: generator/ in a checkout) and of the shaping packages' versions; `outputs`,
 * every path it writes for the manifest's revisions. Throws what loadManifest throws.
 */
export function readInputs(schemasDir: string): Inputs {
  const h = createHash("sha256");
  const add = (label: string, data: string | Buffer) => h.update(`${label}\0${data.length}\0`).update(data);
  const manifestPath = join(schemasDir, "manifest.json");
  add("manifest", readFileSync(manifestPath));
  const revisions = loadManifest(manifestPath).revisions;
  const written: { id: string; requestMethods: string[] }[] = [];
  for (const r of revisions) {
    let json: Buffer | undefined;
    for (const file of ["schema.ts", "schema.json"]) {
      const p = join(schemasDir, r.id, file);
      const data = existsSync(p) ? readFileSync(p) : undefined;
      if (file === "schema.json") json = data;
      add(`${r.id}/${file}`, data ?? "missing");
    }
    written.push({ id: r.id, requestMethods: requestMethodsOf(json) });
  }
  const own = dirname(fileURLToPath(import.meta.url));
  for (const f of filesUnder(own)) add(`generator/${f}`, readFileSync(join(own, f)));
  for (const name of SHAPING_PACKAGES) add(`package ${name}`, packageVersion(name));
  return { digest: h.digest("hex"), outputs: outputPaths(written) };
}

/** The stamp of `files` generated from `inputs`, as a file of out/. */
export function stampFile(inputs: string, files: { path: string; content: string }[]): { path: string; content: string } {
  const stamp: Stamp = { inputs, files: Object.fromEntries(files.map((f) => [f.path, sha256(f.content)])) };
  return { path: STAMP, content: JSON.stringify(stamp, null, 2) + "\n" };
}

/** sha256 (hex) of a regular file, else undefined (missing, a directory, a dangling link, unreadable). */
function fileDigest(path: string): string | undefined {
  try {
    return statSync(path).isFile() ? sha256(readFileSync(path)) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What out/ holds against its stamp, when the stamp was written for these inputs: the files that differ from what
 * was written, are missing or not files, or should not be there (sorted), and how many files generation writes.
 * Undefined when out/ has no stamp, an unreadable one, or one for other inputs or another set of files: only
 * rendering can tell then.
 */
export function stampedState(outDir: string, inputs: Inputs): { stale: string[]; count: number } | undefined {
  let stamp: Stamp;
  try {
    stamp = JSON.parse(readFileSync(join(outDir, STAMP), "utf8")) as Stamp;
  } catch {
    return undefined;
  }
  if (stamp?.inputs !== inputs.digest || typeof stamp.files !== "object" || stamp.files === null) return undefined;
  // It lists every file these inputs produce and no other (its own name aside), or it is not one written for them.
  const listed = Object.keys(stamp.files).concat(STAMP).sort();
  if (listed.length !== inputs.outputs.length || listed.some((p, i) => p !== inputs.outputs[i])) return undefined;
  const stale = Object.entries(stamp.files)
    .filter(([path, digest]) => fileDigest(join(outDir, path)) !== digest)
    .map(([path]) => path);
  const expected = new Set(inputs.outputs);
  for (const f of readdirSync(outDir, { recursive: true, encoding: "utf8" })) {
    const path = f.split("\\").join("/");
    if (expected.has(path)) continue;
    let directory = false;
    try {
      directory = statSync(join(outDir, f)).isDirectory();
    } catch {
      // A dangling link: not a file generation writes.
    }
    // A revision's folder is expected; anything else is not.
    if (!(directory && inputs.outputs.some((o) => o.startsWith(`${path}/`)))) stale.push(path);
  }
  return { stale: stale.sort(), count: expected.size };
}
