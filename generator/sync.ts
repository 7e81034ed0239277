/**
 * `create-mcp-server schemas sync`: fill `schemas/<revision>/` with the pinned
 * upstream schema files, from a local mirror (`--mirror DIR` or
 * `MCP_SCHEMA_MIRROR`) or else by downloading the pinned URL. Every file is
 * checked against the manifest's sha256 before anything is written; on any
 * mismatch nothing is overwritten.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Manifest, type ManifestRevision, SCHEMA_FILES, type SchemaFile, schemaDir } from "./manifest.js";

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

async function fetchPinned(revision: string, file: SchemaFile, url: string, mirror?: string): Promise<{ data: Buffer; from: string }> {
  if (mirror) {
    const path = join(mirror, revision, file);
    if (!existsSync(path)) throw new SchemaError(`${path}: missing (mirror ${mirror} has no ${revision}/${file})`);
    return { data: readFileSync(path), from: path };
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
        `Use the pinned upstream file, or if the revision was republished on purpose, re-add it with 'create-mcp-server schemas add'.`,
    );
  }
}

export interface SyncResult {
  written: string[];
  unchanged: string[];
}

/**
 * Sync the given revisions. All files are fetched and verified first; only
 * then are any written (atomically, via rename), so a mismatch leaves the
 * previous files untouched.
 */
export async function syncSchemas(manifest: Manifest, options: { mirror?: string; schemasDir?: string; revisions?: string[] } = {}): Promise<SyncResult> {
  const mirror = mirrorDir(options.mirror);
  const wanted: ManifestRevision[] = options.revisions
    ? options.revisions.map((id) => {
        const r = manifest.revisions.find((x) => x.id === id);
        if (!r) throw new SchemaError(`unknown revision ${id}; known: ${manifest.revisions.map((x) => x.id).join(", ")}`);
        return r;
      })
    : manifest.revisions;
  const staged: { path: string; data: Buffer }[] = [];
  const result: SyncResult = { written: [], unchanged: [] };
  for (const r of wanted) {
    for (const file of SCHEMA_FILES) {
      const target = join(schemaDir(r.id, options.schemasDir), file);
      if (existsSync(target) && sha256(readFileSync(target)) === r.files[file].sha256) {
        result.unchanged.push(target);
        continue;
      }
      const { data, from } = await fetchPinned(r.id, file, r.files[file].url, mirror);
      verifyPinned(from, data, r.files[file].sha256);
      staged.push({ path: target, data });
    }
  }
  for (const { path, data } of staged) {
    mkdirSync(resolve(path, ".."), { recursive: true });
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
