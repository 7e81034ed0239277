/**
 * Applies the reviewed schema errata (`SCHEMA_ERRATA` in the overlay) to a revision's parsed schema.json, before
 * validators and rules are generated from it. Each erratum asserts the value upstream publishes at its pointer;
 * when that value differs (upstream fixed or changed it) generation stops with one line naming the revision and
 * pointer, so the erratum is reviewed instead of silently patching something else.
 */
import { isDeepStrictEqual } from "node:util";
import { SCHEMA_ERRATA, type SchemaErratum } from "./overlay.js";
import { SchemaError } from "./sync.js";

/** RFC 6901: `~1` is `/`, `~0` is `~`. */
function tokens(pointer: string): string[] {
  if (!pointer.startsWith("/")) throw new SchemaError(`erratum pointer ${JSON.stringify(pointer)} is not a JSON Pointer`);
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function hasOwn(node: unknown, key: string): node is Record<string, unknown> {
  return node !== null && typeof node === "object" && Object.prototype.hasOwnProperty.call(node, key);
}

/** The errata of one revision, in list order. */
export function errataFor(revision: string, errata: readonly SchemaErratum[] = SCHEMA_ERRATA): SchemaErratum[] {
  return errata.filter((e) => e.revision === revision);
}

/**
 * A copy of `schema` with the revision's errata applied (the input is not modified). `source` names the file in
 * the error. Throws SchemaError when an erratum's pointer is missing or its value is not `expected`.
 */
export function applyErrata<T>(revision: string, schema: T, source: string, errata: readonly SchemaErratum[] = SCHEMA_ERRATA): T {
  const mine = errataFor(revision, errata);
  if (mine.length === 0) return schema;
  const patched = structuredClone(schema);
  for (const e of mine) {
    const path = tokens(e.pointer);
    const last = path.pop()!;
    let parent: unknown = patched;
    for (const t of path) parent = hasOwn(parent, t) ? parent[t] : undefined;
    const where = `${source}: schema erratum ${revision} ${e.pointer}`;
    if (!hasOwn(parent, last)) throw new SchemaError(`${where} no longer exists upstream; review the erratum in generator/overlay.ts (SCHEMA_ERRATA)`);
    const found = parent[last];
    if (!isDeepStrictEqual(found, e.expected)) {
      throw new SchemaError(
        `${where} no longer matches upstream: expected ${JSON.stringify(e.expected)}, found ${JSON.stringify(found)}; review the erratum in generator/overlay.ts (SCHEMA_ERRATA), and drop it if upstream is fixed`,
      );
    }
    parent[last] = structuredClone(e.replacement);
  }
  return patched;
}
