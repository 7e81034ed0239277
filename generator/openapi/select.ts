/**
 * Which operations of a document become tools (docs/openapi.md, "Filters"): every operation of `paths`, in the
 * document's order, less those the API owner (`x-mcp` on the operation or at the root) or the command line
 * (`--include-tags`, `--exclude-operations`) leave out.
 */
import { isObject } from "./schema.js";

export const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
export type Method = (typeof METHODS)[number];

/** `x-mcp` on an operation: leave it out, or name and describe its tool. */
export interface OperationExtension {
  exclude?: boolean;
  name?: string;
  description?: string;
}

export interface Operation {
  method: Method;
  path: string;
  op: Record<string, unknown>;
  pathItem: Record<string, unknown>;
  /** The operationId, or `METHOD /path`. */
  id: string;
  tags: string[];
  extension: OperationExtension;
}

export interface Filters {
  includeTags?: string[];
  excludeOperations?: string[];
}

/** Every operation of the document, in the order of `paths` and, within a path, of METHODS. */
export function listOperations(doc: Record<string, unknown>): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const id = typeof op.operationId === "string" && op.operationId.trim() ? op.operationId.trim() : `${method.toUpperCase()} ${path}`;
      const tags = Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === "string") : [];
      ops.push({ method, path, op, pathItem: item, id, tags, extension: extensionOf(op["x-mcp"]) });
    }
  }
  return ops;
}

function extensionOf(x: unknown): OperationExtension {
  if (!isObject(x)) return {};
  return {
    ...(typeof x.exclude === "boolean" ? { exclude: x.exclude } : {}),
    ...(typeof x.name === "string" && x.name.trim() ? { name: x.name.trim() } : {}),
    ...(typeof x.description === "string" && x.description.trim() ? { description: x.description.trim() } : {}),
  };
}

/** The root's `x-mcp`: filters the API owner chooses (`includeTags`, `excludeOperations`), and `exclude: true` to leave out every operation that does not opt in. */
export function rootFilters(doc: Record<string, unknown>): Filters & { exclude?: boolean } {
  const x = doc["x-mcp"];
  if (!isObject(x)) return {};
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : undefined);
  return { includeTags: list(x.includeTags), excludeOperations: list(x.excludeOperations), ...(x.exclude === true ? { exclude: true } : {}) };
}

/**
 * The selected operations. The command line's filters replace the root `x-mcp`'s of the same kind; an operation's own
 * `x-mcp.exclude` wins over both (`false` opts it in where the root excludes everything).
 */
export function selectOperations(ops: Operation[], doc: Record<string, unknown>, cli: Filters): Operation[] {
  const root = rootFilters(doc);
  const includeTags = cli.includeTags ?? root.includeTags;
  const excluded = new Set(cli.excludeOperations ?? root.excludeOperations ?? []);
  return ops.filter((o) => {
    if (o.extension.exclude !== undefined) return !o.extension.exclude;
    if (root.exclude) return false;
    if (excluded.has(o.id)) return false;
    return !includeTags || o.tags.some((t) => includeTags.includes(t));
  });
}

/** Where the command line names an operation or tag the document does not have: one line each, so a typo is seen. */
export function unknownFilterNames(ops: Operation[], cli: Filters): string[] {
  const ids = new Set(ops.map((o) => o.id));
  const tags = new Set(ops.flatMap((o) => o.tags));
  return [
    ...(cli.excludeOperations ?? []).filter((id) => !ids.has(id)).map((id) => `--exclude-operations: the document has no operation ${JSON.stringify(id)}`),
    ...(cli.includeTags ?? []).filter((t) => !tags.has(t)).map((t) => `--include-tags: no operation of the document has the tag ${JSON.stringify(t)}`),
  ];
}

/** Above this many tools, a warning: an agent chooses among a few dozen tools better than among hundreds. */
export const MANY_OPERATIONS = 100;

/** The warning for a large selection: the count, and the tags to select by (the largest first). */
export function manyOperationsWarning(selected: Operation[]): string | undefined {
  if (selected.length <= MANY_OPERATIONS) return undefined;
  const counts = new Map<string, number>();
  for (const o of selected) for (const t of o.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 8);
  const tags = top.length ? `; its tags include ${top.map(([t, n]) => `${t} (${n})`).join(", ")}` : "";
  return `${selected.length} operations selected: an agent chooses better among fewer tools; select some with --include-tags <tag,…> or --exclude-operations <id,…>, or x-mcp in the document (docs/openapi.md)${tags}`;
}
