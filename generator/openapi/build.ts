/**
 * A loaded document → what the import makes of it, in memory: the tools (mcp.json entries), their operation
 * descriptors and the ApiDescriptor, with the lines to print (cut cycles, a large selection, unknown filter names).
 */
import type { ApiDescriptor, OperationDescriptor } from "../../templates/_openapi/src/api/descriptor.js";
import { ScaffoldError } from "../scaffold-options.js";
import { resolveAgainst, serverUrls, type LoadedDocument } from "./load.js";
import { mapOperation, type ToolEntry } from "./map.js";
import { methodPathName, uniqueNames, validName } from "./names.js";
import { SchemaConverter, isObject } from "./schema.js";
import { securitySchemes } from "./security.js";
import { listOperations, manyOperationsWarning, selectOperations, unknownFilterNames, type Filters } from "./select.js";

export interface ImportedTool {
  entry: ToolEntry;
  descriptor: OperationDescriptor;
}

export interface BuiltImport {
  api: ApiDescriptor;
  tools: ImportedTool[];
  /** Warnings and notes, one line each (without the `create-mcp-server:` prefix). */
  notes: string[];
}

/**
 * The tools of the selected operations. `reserved`: tool names the project already has that are not the import's
 * (its own tools): an imported tool whose name collides takes a suffix instead.
 */
export function buildImport(d: LoadedDocument, filters: Filters, reserved: string[] = []): BuiltImport {
  const all = listOperations(d.doc);
  const selected = selectOperations(all, d.doc, filters);
  const notes = unknownFilterNames(all, filters);
  if (!all.length) throw new ScaffoldError(`${d.source} has no operations to import (its "paths" is empty)`);
  if (!selected.length) throw new ScaffoldError(`${d.source}: the filters leave none of its ${all.length} operations (x-mcp in the document, --include-tags, --exclude-operations)`);
  const many = manyOperationsWarning(selected);
  if (many) notes.push(many);
  const conv = new SchemaConverter(d.dialect);
  const names = uniqueNames(
    selected.map((o) => validName(o.extension.name ?? (isObject(o.op) && typeof o.op.operationId === "string" && o.op.operationId.trim() ? o.op.operationId : methodPathName(o.method, o.path)))),
    reserved,
  );
  const tools = selected.map((o, i) => mapOperation(o, names[i], conv));
  for (const name of conv.cuts) notes.push(`cyclic schema ${name}: cut where it refers back to itself (any value accepted there)`);
  const components = isObject(d.doc.components) ? d.doc.components : {};
  const info = isObject(d.doc.info) ? d.doc.info : {};
  const api: ApiDescriptor = {
    title: typeof info.title === "string" ? info.title : d.fileName,
    version: typeof info.version === "string" ? info.version : String(info.version ?? ""),
    servers: serverUrls(d.doc, d.url),
    security: Array.isArray(d.doc.security) ? (d.doc.security as ApiDescriptor["security"]) : [],
    securitySchemes: securitySchemes(components.securitySchemes, resolveAgainst(d.url)),
  };
  return { api, tools, notes };
}
