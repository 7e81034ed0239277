/**
 * `create-mcp-server schemas sync`: fill `schemas/` with every file `schemas/manifest.json` pins, from a local
 * mirror (`--mirror DIR` or `MCP_SCHEMA_MIRROR`) or else by downloading each pinned URL. Every file is checked
 * against the manifest's sha256 before anything is written; on any mismatch nothing is overwritten.
 *
 * What sync provides, under `schemas/` (git-ignored but for the manifest): from the manifest's `revisions`,
 *   <revision>/schema.{ts,json}        each supported revision's schemas;
 * from its `files` (generator/pin.ts pins them), what the tests and the spec citations read:
 *   2026-07-28/examples/<Type>/*.json  upstream's examples of that revision
 *   draft/schema.{ts,json}             upstream's draft, not a supported revision: what the tests `schemas add`
 *   spec/<revision>/**.mdx             the spec pages (upstream `docs/specification/<revision>/`)
 *   spec/extensions/<name>/…           an extension's upstream files (tasks: its spec, SEP and schema)
 *
 * A mirror is laid out as upstream and CI have it: `schemas/<path>` comes from `<mirror>/<path>`, and
 * `schemas/spec/<path>` from `<mirror>/../spec/<path>` (the spec pages beside the schemas mirror).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type Manifest, type ManifestRevision, type PinnedFile, SCHEMA_FILES, type SchemaFile, pinnedFiles, schemaDir, SCHEMAS_DIR } from "./manifest.js";

export class SchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SchemaError";
  }
}

export function sha256(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The mirror directory in force: the explicit option, else `MCP_SCHEMA_MIRROR`, else none. */
export function mirrorDir(option?: string): string | undefined {
  const dir = option ?? process.env.MCP_SCHEMA_MIRROR;
  return dir ? resolve(dir) : undefined;
}

/** Where a mirror holds the file synced to `schemas/<path>`: spec pages beside the schemas mirror, the rest in it. */
export function mirrorPath(mirror: string, path: string): string {
  return path.startsWith("spec/") ? join(mirror, "..", path) : join(mirror, path);
}

async function fetchPinned(path: string, url: string, mirror?: string): Promise<{ data: Buffer; from: string }> {
  if (mirror) {
    const source = mirrorPath(mirror, path);
    if (!existsSync(source)) {
      throw new SchemaError(`${source}: missing (mirror ${mirror} has no ${path}; spec pages belong in ${join(mirror, "..", "spec")}/)`);
    }
    return { data: readFileSync(source), from: source };
  }
  let response: Response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new SchemaError(`${url}: download failed (${(err as Error).message}); set MCP_SCHEMA_MIRROR or pass --mirror DIR to use a local copy`);
  }
  if (!response.ok) throw new SchemaError(`${url}: download failed with HTTP ${response.status}`);
  return { data: Buffer.from(await response.arrayBuffer()), from: url };
}

/** Throws a SchemaError naming the file, both hashes and what to do, when `data` is not the pinned file. */
export function verifyPinned(from: string, data: Buffer, expected: string): void {
  const actual = sha256(data);
  if (actual !== expected) {
    throw new SchemaError(
      `${from}: sha256 mismatch: expected ${expected} (schemas/manifest.json), got ${actual}. ` +
        `Use the pinned upstream file, or if upstream changed it on purpose, pin it again ('create-mcp-server schemas add' for a revision's schemas, 'schemas pin' for the other files).`,
    );
  }
}

export interface SyncResult {
  written: string[];
  unchanged: string[];
}

/** Downloads at once: the pinned files are a few hundred small pages, and one at a time is slow. */
const PARALLEL = 8;

/**
 * Sync every pinned file, or with `revisions` only those revisions' schemas. All files are fetched and verified
 * first; only then are any written (atomically, via rename), so a mismatch leaves the previous files untouched.
 */
export async function syncSchemas(manifest: Manifest, options: { mirror?: string; schemasDir?: string; revisions?: string[] } = {}): Promise<SyncResult> {
  const mirror = mirrorDir(options.mirror);
  const schemasDir = options.schemasDir ?? SCHEMAS_DIR;
  const revision = (id: string): ManifestRevision => {
    const r = manifest.revisions.find((x) => x.id === id);
    if (!r) throw new SchemaError(`unknown revision ${id}; known: ${manifest.revisions.map((x) => x.id).join(", ")}`);
    return r;
  };
  const wanted = pinnedFiles(options.revisions ? { ...manifest, revisions: options.revisions.map(revision), files: {} } : manifest);
  const result: SyncResult = { written: [], unchanged: [] };
  const todo: [string, PinnedFile][] = [];
  for (const [path, pin] of wanted) {
    const target = join(schemasDir, path);
    if (existsSync(target) && sha256(readFileSync(target)) === pin.sha256) result.unchanged.push(target);
    else todo.push([path, pin]);
  }
  const staged: { path: string; data: Buffer }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const [path, pin] = todo[next++];
      try {
        const { data, from } = await fetchPinned(path, pin.url, mirror);
        verifyPinned(from, data, pin.sha256);
        staged.push({ path: join(schemasDir, path), data });
      } catch (err) {
        next = todo.length; // the others stop too: nothing is written after a failure
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, todo.length) }, worker));
  for (const { path, data } of staged.sort((a, b) => (a.path < b.path ? -1 : 1))) {
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.tmp-${process.pid}`;
    writeFileSync(tmp, data);
    renameSync(tmp, path);
    result.written.push(path);
  }
  return result;
}

/**
 * Read one revision's synced schema files, verifying each against the manifest.
 * Throws SchemaError (one line, naming the file) when a file is missing or altered.
 */
export function readSchemaFiles(r: ManifestRevision, schemasDir?: string): { ts: string; json: string; dir: string } {
  const dir = schemaDir(r.id, schemasDir);
  const out: Partial<Record<SchemaFile, string>> = {};
  for (const file of SCHEMA_FILES) {
    const path = join(dir, file);
    if (!existsSync(path)) throw new SchemaError(`${path}: missing; run 'create-mcp-server schemas sync' (with MCP_SCHEMA_MIRROR or --mirror for an offline copy)`);
    const data = readFileSync(path);
    verifyPinned(path, data, r.files[file].sha256);
    out[file] = data.toString("utf8");
  }
  return { ts: out["schema.ts"]!, json: out["schema.json"]!, dir };
}
