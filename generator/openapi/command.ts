/**
 * The two entries of the OpenAPI import: `create-mcp-server my-api --from-openapi <document>` (scaffold.ts calls
 * openapiScaffoldFiles for a new project) and `create-mcp-server import openapi <document>` in a project
 * (importCommand). docs/openapi.md.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Plugin } from "prettier";
import { listFiles } from "../pack.js";
import { ScaffoldError, TEMPLATES_DIR } from "../scaffold-options.js";
import { DOCUMENT_DIR, readmeSection } from "./emit.js";
import { loadDocument, type LoadedDocument } from "./load.js";
import { planImport, readProjectState, type ImportChanges, type ProjectState } from "./project.js";
import { securityVariables } from "./security.js";
import type { Filters } from "./select.js";

/** The template layer of an API project: src/api/ (descriptor, client) and whatever else it holds. */
export const OPENAPI_LAYER = "_openapi";
/** Lines an API project's .prettierignore needs: the document's copy is the API owner's, operations.ts is generated. */
export const PRETTIER_IGNORED = [`${DOCUMENT_DIR}/`, "src/api/operations.ts"];

/** `--include-tags a,b` → ["a", "b"]; absent stays absent. */
export function filtersFrom(opts: { includeTags?: string; excludeOperations?: string }): Filters {
  const list = (s: string | undefined) =>
    s === undefined
      ? undefined
      : s
          .split(",")
          .map((x) => x.trim())
          .filter(Boolean);
  return { includeTags: list(opts.includeTags), excludeOperations: list(opts.excludeOperations) };
}

/** A formatter of the project's files as its prettier configuration (width 120) does: JSON and TypeScript. */
export async function projectFormatter(): Promise<(path: string, text: string) => Promise<string>> {
  const [prettier, ...plugins] = await Promise.all([import("prettier/standalone"), import("prettier/plugins/typescript"), import("prettier/plugins/estree"), import("prettier/plugins/babel")]);
  return (path, text) => prettier.format(text, { parser: path.endsWith(".json") ? "json" : "typescript", printWidth: 120, plugins: plugins as unknown as Plugin[] });
}

/** The imported files of a new project, added to the scaffolder's rendered `files` (mcp.json among them). */
export async function openapiScaffoldFiles(files: Map<string, Buffer>, mcp: Record<string, unknown>, d: LoadedDocument, filters: Filters): Promise<ImportChanges> {
  const state: ProjectState = { mcp, read: (path) => files.get(path) };
  const changes = await planImport(d, filters, state, await projectFormatter());
  for (const [path, data] of changes.files) files.set(path, data);
  files.set(`${DOCUMENT_DIR}/README.md`, readme(changes, d));
  return changes;
}

function readme(changes: ImportChanges, d: LoadedDocument): Buffer {
  const api = changes.built.api;
  return Buffer.from(`# ${api.title}\n\n${readmeSection(api, securityVariables(api.securitySchemes), `${DOCUMENT_DIR}/${d.fileName}`)}\n`);
}

/** The lines an import prints: added, changed and removed tools (one line each), then its notes. */
export function summary(c: ImportChanges): string[] {
  const line = (what: string, names: string[]) => `${what} ${names.length} tool${names.length === 1 ? "" : "s"}${names.length ? `: ${names.join(", ")}` : ""}`;
  return [line("added", c.added), line("changed", c.changed), line("removed", c.removed), ...c.notes];
}

/**
 * `create-mcp-server import openapi <document>` in a project: the changes of planImport written, the API layer's
 * files the project lacks added (src/api/descriptor.ts, client.ts, …), and the summary printed.
 */
export async function importCommand(kind: string, document: string, opts: { dir?: string; includeTags?: string; excludeOperations?: string }): Promise<string[]> {
  if (kind !== "openapi") throw new ScaffoldError(`import: unknown kind ${JSON.stringify(kind)}; import openapi <document>`);
  const dir = resolve(opts.dir ?? process.cwd());
  if (!existsSync(join(dir, "mcp.json")) || !existsSync(join(dir, "package.json")))
    throw new ScaffoldError(`${dir} has no package.json and mcp.json: run import inside a project made by create-mcp-server`);
  const d = await loadDocument(document);
  const state = readProjectState(dir);
  const changes = await planImport(d, filtersFrom(opts), state, await projectFormatter());
  changes.files.set(`${DOCUMENT_DIR}/README.md`, readme(changes, d));
  const layer = join(TEMPLATES_DIR, OPENAPI_LAYER);
  const addedFiles = listFiles(layer).filter((f) => !f.endsWith(".hbs") && f !== ".prettierignore" && !existsSync(join(dir, f)));
  for (const f of addedFiles) changes.files.set(f, readFileSync(join(layer, f)));
  const ignore = join(dir, ".prettierignore");
  const ignored = existsSync(ignore) ? readFileSync(ignore, "utf8") : "";
  const missing = PRETTIER_IGNORED.filter((l) => !ignored.split(/\r?\n/).includes(l));
  if (missing.length) changes.files.set(".prettierignore", Buffer.from(`${ignored}${ignored && !ignored.endsWith("\n") ? "\n" : ""}${missing.join("\n")}\n`));
  for (const [path, data] of changes.files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), data);
  }
  for (const path of changes.remove) rmSync(join(dir, path), { force: true });
  const lines = summary(changes);
  if (addedFiles.length) lines.push(`added the API client's files: ${addedFiles.join(", ")}`);
  lines.push(`next: npm run build (mcp.json → generated/, then tsc), npm test`);
  return lines;
}
