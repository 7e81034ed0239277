/**
 * An OpenAPI Schema Object → the JSON Schema (2020-12) that MCP tools declare (spec/2025-11-25/server/tools.mdx: the
 * default dialect of inputSchema and outputSchema), as docs/openapi.md lists: OpenAPI 3.0's `nullable`, `example` and
 * boolean `exclusiveMinimum`/`exclusiveMaximum` converted, OpenAPI-only keywords (`discriminator`, `xml`,
 * `externalDocs`, `x-*`) dropped, `readOnly` properties left out of what is sent and `writeOnly` ones out of what is
 * received, and every keyword whose value a 2020-12 validator would refuse (a `required: true`, a pattern that is no
 * Unicode regular expression) dropped, so that every schema compiles with ajv 2020.
 *
 * The dereferenced document keeps a `$ref` only where a schema refers back to itself (swagger-parser's `circular:
 * "ignore"`): there the cycle is cut, its place taking `{}` with a description that names the schema.
 */
import type { JsonSchema } from "../../templates/_openapi/src/api/descriptor.js";

export type Dialect = "3.0" | "3.1";
/** `input`: sent to the API (readOnly properties left out); `output`: received from it (writeOnly ones left out). */
export type Direction = "input" | "output";

const TYPES = new Set(["null", "boolean", "object", "array", "number", "string", "integer"]);
const SCHEMA_MAPS = ["properties", "patternProperties", "dependentSchemas", "$defs"];
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SCHEMA_ONE = ["not", "if", "then", "else", "items", "contains", "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema"];
const COUNTS = ["maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains", "maxProperties", "minProperties"];
const NUMBERS = ["maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"];
const STRINGS = ["title", "description", "format", "contentEncoding", "contentMediaType"];
const BOOLEANS = ["uniqueItems", "deprecated", "readOnly", "writeOnly"];
const ANY = ["default", "const"];

/** The converter of one document: the names of the schemas whose cycles were cut, and a cache of converted schemas. */
export class SchemaConverter {
  /** Names of the schemas cut where they refer back to themselves, in the order met. */
  readonly cuts = new Set<string>();
  private readonly memo = { input: new WeakMap<object, JsonSchema>(), output: new WeakMap<object, JsonSchema>() };

  constructor(readonly dialect: Dialect) {}

  /** The JSON Schema of `schema` (an OpenAPI Schema Object of this document's dialect). */
  convert(schema: unknown, direction: Direction): JsonSchema {
    if (typeof schema === "boolean") return schema;
    if (!isObject(schema)) return {};
    const cached = this.memo[direction].get(schema);
    if (cached !== undefined) return cached;
    const out = this.convertObject(schema, direction);
    this.memo[direction].set(schema, out);
    return out;
  }

  private convertObject(s: Record<string, unknown>, direction: Direction): JsonSchema {
    if (typeof s.$ref === "string") return this.cut(s.$ref);
    const out: Record<string, unknown> = {};
    this.copyAssertions(s, out);
    this.copySubschemas(s, out, direction);
    const type = this.convertType(s, out);
    if (type !== undefined) out.type = type;
    this.convertExamples(s, out);
    this.convertExclusive(s, out);
    this.dropHidden(out, direction === "input" ? "readOnly" : "writeOnly");
    if (this.dialect === "3.0" && s.nullable === true) return nullable(out);
    return out;
  }

  /** Where a schema refers back to itself: `{}` (anything) with a description naming the schema, and its name noted. */
  private cut(ref: string): JsonSchema {
    const name = decodeURIComponent(ref.split("/").pop() ?? ref)
      .replace(/~1/g, "/")
      .replace(/~0/g, "~");
    this.cuts.add(name);
    return { description: `${name} (cyclic: the OpenAPI document's schema refers back to itself here; cut, any value accepted)` };
  }

  private copyAssertions(s: Record<string, unknown>, out: Record<string, unknown>): void {
    for (const k of COUNTS) if (Number.isInteger(s[k]) && (s[k] as number) >= 0) out[k] = s[k];
    for (const k of NUMBERS) if (typeof s[k] === "number") out[k] = s[k];
    for (const k of STRINGS) if (typeof s[k] === "string") out[k] = s[k];
    for (const k of BOOLEANS) if (typeof s[k] === "boolean") out[k] = s[k];
    for (const k of ANY) if (s[k] !== undefined) out[k] = s[k];
    if (typeof s.multipleOf === "number" && s.multipleOf > 0) out.multipleOf = s.multipleOf;
    if (typeof s.pattern === "string" && validPattern(s.pattern)) out.pattern = s.pattern;
    if (Array.isArray(s.enum) && s.enum.length) out.enum = s.enum;
    if (Array.isArray(s.required)) {
      const names = [...new Set(s.required.filter((r): r is string => typeof r === "string"))];
      if (names.length) out.required = names;
    }
    if (isObject(s.dependentRequired)) out.dependentRequired = s.dependentRequired;
  }

  private copySubschemas(s: Record<string, unknown>, out: Record<string, unknown>, direction: Direction): void {
    for (const k of SCHEMA_MAPS) {
      if (k === "$defs" || !isObject(s[k])) continue;
      out[k] = Object.fromEntries(Object.entries(s[k] as Record<string, unknown>).map(([name, v]) => [name, this.convert(v, direction)]));
    }
    for (const k of SCHEMA_LISTS) {
      if (Array.isArray(s[k]) && (s[k] as unknown[]).length) out[k] = (s[k] as unknown[]).map((v) => this.convert(v, direction));
    }
    for (const k of SCHEMA_ONE) {
      const v = s[k];
      // 3.0 has no tuples: an `items` list is read as 2020-12's prefixItems.
      if (k === "items" && Array.isArray(v)) out.prefixItems = v.map((x) => this.convert(x, direction));
      else if (isObject(v) || typeof v === "boolean") out[k] = this.convert(v, direction);
    }
  }

  /** `type` as 2020-12 knows it: OpenAPI 2's `file` (left by converters) is a binary string; unknown names are dropped. */
  private convertType(s: Record<string, unknown>, out: Record<string, unknown>): string | string[] | undefined {
    const names = (Array.isArray(s.type) ? s.type : [s.type]).filter((t): t is string => typeof t === "string");
    const known = [...new Set(names.map((t) => (t === "file" ? "string" : t)).filter((t) => TYPES.has(t)))];
    if (names.includes("file") && out.format === undefined) out.format = "binary";
    if (!known.length) return undefined;
    return Array.isArray(s.type) ? known : known[0];
  }

  /** `example` (3.0, and deprecated in 3.1) → `examples: [example]`; 3.1's `examples` list kept. */
  private convertExamples(s: Record<string, unknown>, out: Record<string, unknown>): void {
    if (Array.isArray(s.examples)) out.examples = s.examples;
    else if (s.example !== undefined) out.examples = [s.example];
  }

  /** 3.0's boolean `exclusiveMinimum: true` with `minimum: n` → 2020-12's `exclusiveMinimum: n` (the same for the maximum). */
  private convertExclusive(s: Record<string, unknown>, out: Record<string, unknown>): void {
    for (const [exclusive, bound] of [
      ["exclusiveMinimum", "minimum"],
      ["exclusiveMaximum", "maximum"],
    ] as const) {
      if (typeof s[exclusive] !== "boolean") continue;
      if (s[exclusive] === true && typeof s[bound] === "number") {
        out[exclusive] = s[bound];
        delete out[bound];
      }
    }
  }

  /** Properties marked `readOnly` are not sent (input), `writeOnly` ones not received (output): left out, and out of `required`. */
  private dropHidden(out: Record<string, unknown>, marker: "readOnly" | "writeOnly"): void {
    if (!isObject(out.properties)) return;
    const props = out.properties as Record<string, unknown>;
    const hidden = Object.keys(props).filter((k) => isObject(props[k]) && (props[k] as Record<string, unknown>)[marker] === true);
    if (!hidden.length) return;
    out.properties = Object.fromEntries(Object.entries(props).filter(([k]) => !hidden.includes(k)));
    if (Array.isArray(out.required)) {
      const required = (out.required as string[]).filter((r) => !hidden.includes(r));
      if (required.length) out.required = required;
      else delete out.required;
    }
  }
}

/** 3.0's `nullable: true`: `null` added to the type (and to an enum); a schema without a type takes `anyOf` with `{type: "null"}`. */
function nullable(out: Record<string, unknown>): JsonSchema {
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  if (typeof out.type === "string") return { ...out, type: [out.type, "null"] };
  if (Array.isArray(out.type)) return out.type.includes("null") ? out : { ...out, type: [...out.type, "null"] };
  if (out.enum) return out;
  const { description, title, ...rest } = out;
  return { ...(title === undefined ? {} : { title }), ...(description === undefined ? {} : { description }), anyOf: [rest, { type: "null" }] };
}

/** A pattern a 2020-12 validator compiles (ajv uses Unicode regular expressions). */
function validPattern(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The schema is an object's (`type: "object"`, or no type but properties): the tool's outputSchema as it is. */
export function isObjectSchema(s: JsonSchema | undefined): boolean {
  if (!isObject(s)) return false;
  if (s.type === "object") return true;
  return s.type === undefined && isObject(s.properties) && !s.anyOf && !s.oneOf && !s.allOf;
}
