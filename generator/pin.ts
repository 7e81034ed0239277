/**
 * `create-mcp-server schemas pin --mirror DIR` (maintainers): rebuild the manifest's `files` from a mirror, so
 * pinning a new revision's spec pages, or a new upstream commit's, is one command. What is pinned (layout:
 * generator/sync.ts), each file's sha256 and bytes taken from the mirror:
 *   spec/<revision>/…          every file of <mirror>/../spec/<revision>/, for each revision in the manifest
 *   <revision>/examples/…      every file of <mirror>/<revision>/examples/, likewise
 *   <other>/schema.{ts,json}   a mirror revision not (yet) in the manifest (the draft)
 *   spec/extensions/<name>/…   the files the folder's SOURCE.md lists with their repository, path and commit; the
 *                              folder's other files (SOURCE.md itself, NOTES.md) are the mirror's notes, not upstream's
 * URLs of the first three are the manifest's `source` at its `commit` (`docs/specification/<revision>/`, `schema/`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { type Manifest, type PinnedFile, SCHEMA_FILES, loadManifest, saveManifest } from "./manifest.js";
import { SchemaError, mirrorDir, mirrorPath, sha256 } from "./sync.js";

/** The file as GitHub serves it raw: `repo` is owner/name, or the repository's https://github.com/ URL. */
export function rawUrl(repo: string, commit: string, path: string): string {
  const name = repo.replace(/^https:\/\/github\.com\//, "").replace(/\/$/, "");
  if (!/^[\w.-]+\/[\w.-]+$/.test(name)) throw new SchemaError(`${repo}: not a GitHub repository (owner/name)`);
  return `https://raw.githubusercontent.com/${name}/${commit}/${path}`;
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)).map((p) => `${name}/${p}`) : [name]));
}

/** The rows of a SOURCE.md table (File, Upstream repo, Upstream path, Commit, …): file → its upstream repo, path, commit. */
export function sourceTable(file: string): { file: string; repo: string; path: string; commit: string }[] {
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, "")
      .split("|")
      .map((c) => c.trim());
  const lines = readFileSync(file, "utf8").split("\n");
  const at = lines.findIndex((l) => /^\|\s*File\b/.test(l));
  if (at < 0) throw new SchemaError(`${file}: no table whose first column is "File"`);
  const head = cells(lines[at]);
  const col = (re: RegExp) => {
    const i = head.findIndex((h) => re.test(h));
    if (i < 0) throw new SchemaError(`${file}: its table has no column matching ${re}`);
    return i;
  };
  const [f, r, p, c] = [col(/^File/), col(/repo/i), col(/path/i), col(/^Commit/)];
  const code = (cell: string) => /`([^`]+)`/.exec(cell)?.[1] ?? cell;
  const rows = [];
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith("|")) break;
    const row = cells(line);
    const commit = code(row[c]);
    if (!/^[0-9a-f]{40}$/.test(commit)) throw new SchemaError(`${file}: ${code(row[f])}: commit ${JSON.stringify(commit)} is not 40 hex digits`);
    rows.push({ file: code(row[f]), repo: row[r], path: code(row[p]), commit });
  }
  return rows;
}

/** The `files` a mirror gives for `manifest`'s revisions, sorted by path. */
export function pinsFromMirror(manifest: Manifest, mirror: string): Record<string, PinnedFile> {
  const revisions = new Set(manifest.revisions.map((r) => r.id));
  const upstream: [string, string][] = []; // [path under schemas/, URL]
  const main = (path: string) => rawUrl(manifest.source, manifest.commit, path);
  for (const id of revisions) {
    for (const p of walk(mirrorPath(mirror, `spec/${id}`))) upstream.push([`spec/${id}/${p}`, main(`docs/specification/${id}/${p}`)]);
    for (const p of walk(join(mirror, id, "examples"))) upstream.push([`${id}/examples/${p}`, main(`schema/${id}/examples/${p}`)]);
  }
  for (const dir of readdirSync(mirror).sort()) {
    if (revisions.has(dir) || !SCHEMA_FILES.every((f) => existsSync(join(mirror, dir, f)))) continue;
    for (const f of SCHEMA_FILES) upstream.push([`${dir}/${f}`, main(`schema/${dir}/${f}`)]);
  }
  const extensions = mirrorPath(mirror, "spec/extensions");
  for (const name of existsSync(extensions) ? readdirSync(extensions).sort() : []) {
    const source = join(extensions, name, "SOURCE.md");
    if (!existsSync(source)) throw new SchemaError(`${join(extensions, name)}: no SOURCE.md naming each file's upstream repository, path and commit`);
    for (const row of sourceTable(source)) upstream.push([`spec/extensions/${name}/${row.file}`, rawUrl(row.repo, row.commit, row.path)]);
  }
  const files: Record<string, PinnedFile> = {};
  for (const [path, url] of upstream.sort(([a], [b]) => (a < b ? -1 : 1))) {
    const source = mirrorPath(mirror, path);
    if (!existsSync(source)) throw new SchemaError(`${source}: missing (listed in its folder's SOURCE.md)`);
    const data = readFileSync(source);
    files[path] = { url, sha256: sha256(data), bytes: data.length };
  }
  return files;
}

/** Rebuild `<schemasDir>/manifest.json`'s `files` from the mirror; returns the changes, one line each, for review. */
export function pinFiles(options: { schemasDir: string; mirror?: string }): string {
  const mirror = mirrorDir(options.mirror);
  if (!mirror) throw new SchemaError("schemas pin needs a mirror: pass --mirror DIR or set MCP_SCHEMA_MIRROR");
  const manifestPath = join(options.schemasDir, "manifest.json");
  const manifest = loadManifest(manifestPath);
  const before = manifest.files ?? {};
  const files = pinsFromMirror(manifest, mirror);
  const changes = [
    ...Object.keys(before)
      .filter((p) => !files[p])
      .map((p) => `- ${p}`),
    ...Object.entries(files).flatMap(([p, pin]) => (!before[p] ? [`+ ${p}`] : before[p].sha256 !== pin.sha256 || before[p].url !== pin.url ? [`~ ${p}`] : [])),
  ];
  saveManifest({ ...manifest, files }, manifestPath);
  const where = relative(process.cwd(), manifestPath) || manifestPath;
  return `${where}: ${Object.keys(files).length} files pinned from ${mirror}, ${changes.length} changed${changes.length ? `\n${changes.join("\n")}` : ""}`;
}
