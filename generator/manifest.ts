/**
 * The project's schema manifest (`schemas/manifest.json`): which revisions
 * create-mcp-server supports, in declaration order, with each revision's era
 * and the pinned upstream URL and sha256 of its `schema.ts` and `schema.json`;
 * and under `files` the other upstream files the tests and spec citations read
 * (spec pages, examples, the draft schema), by path under `schemas/`.
 *
 * Revision order is the order of declaration in the manifest, never string
 * order: the rules module and every "from/until" range resolve against it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export type Era = "legacy" | "modern";
export const SCHEMA_FILES = ["schema.ts", "schema.json"] as const;
export type SchemaFile = (typeof SCHEMA_FILES)[number];

export interface PinnedFile {
  url: string;
  sha256: string;
  bytes: number;
}

export interface ManifestRevision {
  id: string;
  era: Era;
  files: Record<SchemaFile, PinnedFile>;
}

export interface Manifest {
  source: string;
  commit: string;
  revisions: ManifestRevision[];
  /** Upstream files besides the revisions' schemas, by path under `schemas/` (layout: generator/sync.ts). */
  files?: Record<string, PinnedFile>;
}

/** A relative path of plain segments: no `.`, `..`, empty or absolute parts, so a pin cannot write outside `schemas/`. */
const SAFE_PATH = /^[\w@+-][\w@+.-]*(\/[\w@+-][\w@+.-]*)*$/;

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const MANIFEST_PATH = join(PROJECT_ROOT, "schemas", "manifest.json");

export function loadManifest(path = MANIFEST_PATH): Manifest {
  const manifest = JSON.parse(readFileSync(path, "utf8")) as Manifest;
  const seen = new Set<string>();
  for (const r of manifest.revisions) {
    if (seen.has(r.id)) throw new Error(`${path}: revision ${r.id} is listed twice`);
    seen.add(r.id);
    if (r.era !== "legacy" && r.era !== "modern") {
      throw new Error(`${path}: revision ${r.id} has era ${JSON.stringify(r.era)}; expected "legacy" or "modern"`);
    }
  }
  for (const file of Object.keys(manifest.files ?? {})) {
    if (!SAFE_PATH.test(file) || file === "manifest.json") throw new Error(`${path}: files: ${JSON.stringify(file)} is not a path inside schemas/`);
    const [dir, name, ...rest] = file.split("/");
    if (seen.has(dir) && !rest.length && (SCHEMA_FILES as readonly string[]).includes(name)) throw new Error(`${path}: files: ${file} is already pinned by revision ${dir}`);
  }
  return manifest;
}

/** Every file `schemas sync` provides, by path under `schemas/`: the revisions' schemas, then the other pinned files. */
export function pinnedFiles(manifest: Manifest): [string, PinnedFile][] {
  return [...manifest.revisions.flatMap((r) => SCHEMA_FILES.map((f): [string, PinnedFile] => [`${r.id}/${f}`, r.files[f]])), ...Object.entries(manifest.files ?? {})];
}

export function saveManifest(manifest: Manifest, path = MANIFEST_PATH): void {
  writeFileSync(path, JSON.stringify(manifest, null, 2) + "\n");
}

export const SCHEMAS_DIR = join(PROJECT_ROOT, "schemas");

/** Directory of the synced schema files of one revision: `schemas/<revision>/`. */
export function schemaDir(revision: string, schemasDir = SCHEMAS_DIR): string {
  return join(schemasDir, revision);
}

/**
 * Known revisions, oldest first: from the generated rules module (out/rules.json), else the schema manifest. Both
 * are in declaration order, the order the rules module is built in; never sorted as strings, since a revision id is
 * not guaranteed to be date-shaped.
 */
export function knownRevisions(): string[] {
  const rules = join(PROJECT_ROOT, "out", "rules.json");
  if (existsSync(rules)) {
    const data = JSON.parse(readFileSync(rules, "utf8")) as { revisions: { id: string }[] };
    return data.revisions.map((r) => r.id);
  }
  return loadManifest().revisions.map((r) => r.id);
}
