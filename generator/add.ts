/**
 * `create-mcp-server schemas add <revision> --from <dir|url>`: record a new
 * revision in the manifest (sha256 of both files, era inferred from the
 * schema), copy its files into `schemas/<revision>/`, regenerate `out/`, and
 * return the rule diff against the previous revision for review. Its spec
 * pages are pinned by `schemas pin` (generator/pin.ts) from a mirror.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { diffRules, formatDiff } from "./diff.js";
import { extractModel, inferEra } from "./extract.js";
import { generate } from "./generate.js";
import { type Manifest, SCHEMA_FILES, loadManifest, saveManifest } from "./manifest.js";
import { SchemaError, sha256 } from "./sync.js";

async function readSource(from: string, file: string): Promise<{ data: Buffer; url: string }> {
  if (/^https?:\/\//.test(from)) {
    const url = `${from.replace(/\/$/, "")}/${file}`;
    const res = await fetch(url);
    if (!res.ok) throw new SchemaError(`${url}: download failed with HTTP ${res.status}`);
    return { data: Buffer.from(await res.arrayBuffer()), url };
  }
  const path = resolve(from, file);
  if (!existsSync(path)) throw new SchemaError(`${path}: missing`);
  return { data: readFileSync(path), url: `file:${path}` };
}

/**
 * `from`: a directory or base URL holding the two files. `url`: the pinned upstream base URL recorded in the manifest,
 * where `schemas sync` downloads the files on a machine without a mirror; it defaults to `from` when that is a URL, and
 * is required when `from` is a directory (a local path is no place for another machine to download from).
 */
export async function addRevision(revision: string, from: string, options: { schemasDir: string; outDir: string; url?: string }): Promise<string> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(revision)) throw new SchemaError(`invalid revision id ${JSON.stringify(revision)}`);
  const upstream = (options.url ?? (/^https?:\/\//.test(from) ? from : undefined))?.replace(/\/$/, "");
  if (!upstream) throw new SchemaError(`${from} is a directory: pass --url <base URL> where the revision's schema.ts and schema.json are published, so 'schemas sync' can fetch them`);
  if (!/^https?:\/\//.test(upstream)) throw new SchemaError(`--url must be an http(s) URL, got ${JSON.stringify(upstream)}`);
  const manifestPath = join(options.schemasDir, "manifest.json");
  const manifest: Manifest = loadManifest(manifestPath);
  if (manifest.revisions.some((r) => r.id === revision)) throw new SchemaError(`revision ${revision} is already in ${manifestPath}`);
  const ts = await readSource(from, "schema.ts");
  const json = await readSource(from, "schema.json");
  const model = extractModel(ts.url, ts.data.toString("utf8"), json.url, json.data.toString("utf8"));
  const era = inferEra(model);
  const dir = join(options.schemasDir, revision);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "schema.ts"), ts.data);
  writeFileSync(join(dir, "schema.json"), json.data);
  const previous = manifest.revisions[manifest.revisions.length - 1]?.id;
  const files = Object.fromEntries(
    SCHEMA_FILES.map((f) => {
      const { data } = f === "schema.ts" ? ts : json;
      return [f, { url: `${upstream}/${f}`, sha256: sha256(data), bytes: data.length }];
    }),
  ) as Manifest["revisions"][number]["files"];
  // Upstream files pinned before the revision was supported (the draft's schemas) are now pinned by it: once only.
  const others = manifest.files && Object.fromEntries(Object.entries(manifest.files).filter(([p]) => !SCHEMA_FILES.some((f) => p === `${revision}/${f}`)));
  const updated: Manifest = { ...manifest, revisions: [...manifest.revisions, { id: revision, era, files }], files: others };
  saveManifest(updated, manifestPath);
  // force: the rules of the new revision are read from the render (a forced generate always has one).
  const generated = (await generate({ schemasDir: options.schemasDir, outDir: options.outDir, force: true })).generated!;
  const header = `added ${revision} (era ${era}) to ${manifestPath}; regenerated ${generated.files.length} files`;
  return previous ? `${header}\n\n${formatDiff(diffRules(generated.rules, previous, revision))}` : header;
}
