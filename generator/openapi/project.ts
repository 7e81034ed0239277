/**
 * What an import changes in a project, decided in memory (docs/openapi.md, "Importing again"): the imported tools of
 * mcp.json replaced by the document's, the user's own tools kept (and their names reserved); each handler written
 * when absent or still as the last import wrote it, kept when edited; the handlers of tools whose operations are gone
 * deleted when unedited; operations.ts, the document's copy and the record written anew. The rules of `upgrade`
 * (generator/upgrade.ts): a file the user changed is named and never overwritten.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "../sync.js";
import { buildImport, type BuiltImport, type ImportedTool } from "./build.js";
import { DOCUMENT_DIR, OPERATIONS_FILE, definitionHash, RECORD_FILE, handlerPath, handlerSource, importRecord, operationsSource, type ImportRecord } from "./emit.js";
import type { LoadedDocument } from "./load.js";
import type { Filters } from "./select.js";

export interface ImportChanges {
  /** Project path → content to write. */
  files: Map<string, Buffer>;
  /** Project paths to delete (unedited handlers of removed tools, the superseded copy of the document). */
  remove: string[];
  added: string[];
  changed: string[];
  removed: string[];
  /** One line each: a handler kept because the user edited it, and the notes of the import (cycles cut, many operations). */
  notes: string[];
  built: BuiltImport;
}

/** The project as the import reads it: its mcp.json, the last import's record, and a reader of its files. */
export interface ProjectState {
  mcp: Record<string, unknown> & { tools?: { name: string }[] };
  record?: ImportRecord;
  read: (path: string) => Buffer | undefined;
}

/** The state of a project on disk. */
export function readProjectState(dir: string): ProjectState {
  const read = (path: string) => (existsSync(join(dir, path)) ? readFileSync(join(dir, path)) : undefined);
  const mcp = JSON.parse(read("mcp.json")?.toString("utf8") ?? "{}") as ProjectState["mcp"];
  const raw = read(RECORD_FILE);
  return { mcp, record: raw ? (JSON.parse(raw.toString("utf8")) as ImportRecord) : undefined, read };
}

/** The changes an import of `d` makes to a project in `state`; `format` formats a handler or JSON file as the project's prettier does. */
export async function planImport(d: LoadedDocument, filters: Filters, state: ProjectState, format: (path: string, text: string) => Promise<string>): Promise<ImportChanges> {
  const previous = state.record?.tools ?? {};
  const own = (state.mcp.tools ?? []).filter((t) => !(t.name in previous));
  const built = buildImport(
    d,
    filters,
    own.map((t) => t.name),
  );
  const documentFile = `${DOCUMENT_DIR}/${d.fileName}`;
  const changes: ImportChanges = { files: new Map(), remove: [], added: [], changed: [], removed: [], notes: [...built.notes], built };
  const handlers = new Map<string, { tool: ImportedTool; hash: string }>();
  for (const t of built.tools) handlers.set(t.entry.name, await planHandler(t, state, changes, format));
  for (const [name, rec] of Object.entries(previous)) {
    if (handlers.has(name)) continue;
    changes.removed.push(name);
    const path = handlerPath(name);
    const current = state.read(path);
    if (current && sha256(current) === rec.handler) changes.remove.push(path);
    else if (current) changes.notes.push(`kept ${path}: edited since the import wrote it, and its tool ${name} is gone (delete it, or declare the tool again)`);
  }
  const mcp = { ...state.mcp, tools: [...own, ...built.tools.map((t) => t.entry)] };
  changes.files.set("mcp.json", Buffer.from(await format("mcp.json", JSON.stringify(mcp))));
  changes.files.set(OPERATIONS_FILE, Buffer.from(operationsSource(built, documentFile)));
  changes.files.set(documentFile, d.raw);
  const old = state.record?.document;
  if (old && old !== documentFile && state.read(old) && sha256(state.read(old)!) === state.record!.sha256) changes.remove.push(old);
  const record = importRecord(d.source, documentFile, d.sha256, handlers);
  changes.files.set(RECORD_FILE, Buffer.from(await format(RECORD_FILE, JSON.stringify(record))));
  return changes;
}

/** One tool's handler: written when absent or as the last import wrote it; kept (and named) when the user edited it. */
async function planHandler(t: ImportedTool, state: ProjectState, changes: ImportChanges, format: (path: string, text: string) => Promise<string>): Promise<{ tool: ImportedTool; hash: string }> {
  const name = t.entry.name;
  const path = handlerPath(name);
  const rec = state.record?.tools[name];
  // Written prettier-clean where every line fits the width; prettier (slow over hundreds of files) only for the others.
  const source = handlerSource(t);
  const text = Buffer.from(source.split("\n").some((l) => l.length > 120) ? await format(path, source) : source);
  const hash = sha256(text);
  const current = state.read(path);
  if (!rec) changes.added.push(name);
  else if (rec.definition !== definitionHash(t) || (current !== undefined && sha256(current) === rec.handler && !current.equals(text))) changes.changed.push(name);
  if (current === undefined || (rec && sha256(current) === rec.handler)) {
    if (!current?.equals(text)) changes.files.set(path, text);
    return { tool: t, hash };
  }
  if (current.equals(text)) return { tool: t, hash };
  changes.notes.push(`kept ${path}: edited since the import wrote it${rec ? "" : " (or not written by it)"}; its tool ${name} is refreshed, the handler stays yours`);
  // The recorded hash stays the one written before, so the file stays the user's on the next import too.
  return { tool: t, hash: rec?.handler ?? hash };
}
