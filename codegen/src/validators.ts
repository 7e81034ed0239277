/**
 * The validators of tool schemas: ajv standalone code (generated/validators/<tool>.input.ts, .output.ts), which the
 * runtime calls instead of compiling the schema at start-up, and the check that a schema is valid JSON Schema at all.
 */
import type { Ajv, ErrorObject, Options } from "ajv";
import { HEADER } from "./code.js";
import { generators, isDraft07 } from "./generators.js";
import { oneOf } from "./schema-check.js";

/**
 * `validateSchema: false`: every tool schema was checked against its meta-schema when mcp.json was read
 * (semantic-check.ts, jsonSchemaProblem), and checking it again here would compile the meta-schema in each new
 * instance: half of the codegen's time on a 358-tool project (22.7 s of CPU without it, 10.6 s with it).
 */
const OPTIONS: Options = { strict: false, allErrors: false, validateSchema: false, code: { source: true, esm: true, lines: false, optimize: true } };

/** The source of generated/validators/<file>.ts for `schema`. */
export async function validatorSource(schema: Record<string, unknown>): Promise<string> {
  const g = await generators();
  const ajv = g.ajv(schema, OPTIONS);
  const code = g.standaloneCode(ajv, ajv.compile(schema));
  return HEADER + "// @ts-nocheck\n" + esmRequires(typedExports(code.replace(/^"use strict";/, ""))) + "\n";
}

/**
 * The type of a validator's exports, declared: without it tsc infers the function's type from its body (its return
 * type and the `errors` assigned to it), a control-flow walk through every branch of the generated code that took
 * most of a large project's type-check and overflowed tsc's stack (a 500-tool project's validators: 42 MB of code).
 */
export const VALIDATOR_TYPE = "((data: unknown) => boolean) & { errors?: { instancePath: string; keyword: string; message?: string; params: object }[] | null }";

/** ajv's `export const validate = validateN; export default validateN;` with the exports typed by VALIDATOR_TYPE. */
export function typedExports(code: string): string {
  const exports = /^export const validate = (validate\d+);export default \1;/;
  const name = exports.exec(code)?.[1];
  if (!name) throw new Error(`ajv's standalone code does not start with its exports: ${JSON.stringify(code.slice(0, 80))}`);
  return code.replace(exports, `export const validate = ${name} as unknown as ${VALIDATOR_TYPE};export default validate;`);
}

/**
 * ajv standalone code still calls require() for its helpers (ajv-formats' checks, ajv's equal): each becomes a static
 * default import, whose value is the CommonJS module.exports that require returns, so the validator also loads where
 * createRequire(import.meta.url) cannot (a Cloudflare Worker has no import.meta.url) and a bundler can follow it.
 */
export function esmRequires(code: string): string {
  const bindings = new Map<string, string>();
  const body = code.replace(/\brequire\("([^"]+)"\)/g, (_, specifier: string) => {
    if (!bindings.has(specifier)) bindings.set(specifier, `__require${bindings.size}`);
    return bindings.get(specifier)!;
  });
  const file = (s: string) => (/^(@[^/]+\/)?[^/]+\/.+/.test(s) && !/\.[cm]?js$/.test(s) ? `${s}.js` : s);
  return [...bindings].map(([s, name]) => `import ${name} from ${JSON.stringify(file(s))};\n`).join("") + body;
}

/** One ajv per draft for the checks: each compiles its meta-schema once, however many tools there are. */
const checkers = new Map<string, Ajv>();

/** The meta-schemas a tool schema may name in `$schema`, by the draft each selects. */
const META_SCHEMAS: Record<string, string> = { "draft-07": "http://json-schema.org/draft-07/schema#", "2020-12": "https://json-schema.org/draft/2020-12/schema" };

/**
 * Where a JSON Schema breaks its meta-schema (a pointer inside it) and why; undefined when it is valid. A schema that
 * is valid but cannot be compiled (an unresolvable $ref inside it) is reported where its validator is generated; a
 * $ref to another document is refused here: the generators would read that file or URL (from wherever the command
 * runs), and the validator could not resolve it anyway.
 */
export async function jsonSchemaProblem(schema: Record<string, unknown>): Promise<{ pointer: string; draft?: string; message: string } | undefined> {
  const draft = isDraft07(schema) ? "draft-07" : "2020-12";
  if (!checkers.has(draft)) checkers.set(draft, (await generators()).ajv(schema, { strict: false, allErrors: false }));
  const ajv = checkers.get(draft)!;
  const meta = schema.$schema;
  if (meta !== undefined && (typeof meta !== "string" || !ajv.getSchema(meta))) {
    const known = Object.entries(META_SCHEMAS).map(([d, uri]) => `${JSON.stringify(uri)} (${d})`);
    return { pointer: "/$schema", message: `keyword "$schema" must be ${oneOf(known)}, not ${JSON.stringify(meta)}` };
  }
  let valid: boolean;
  try {
    valid = ajv.validateSchema(schema) as boolean;
  } catch (err) {
    return { pointer: "", draft, message: `the schema cannot be checked: ${String((err as Error)?.message ?? err).split("\n")[0]}` };
  }
  if (valid) return externalRef(schema, draft);
  // The deepest error is the mistake (the ones above it are the anyOf/$ref branches that led there).
  const errors = (ajv.errors ?? []) as ErrorObject[];
  const deepest = errors.reduce((a, b) => (b.instancePath.split("/").length > a.instancePath.split("/").length ? b : a));
  return { pointer: deepest.instancePath, draft, message: what(deepest, schema) };
}

/** Keywords whose values are data, not schemas: a `$ref` key inside them is not a reference. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples", "example"]);

/** The first `$ref` of `schema` that is not a reference inside it (`#…`), as a problem; undefined when there is none. */
function externalRef(schema: unknown, draft: string, path = ""): { pointer: string; draft: string; message: string } | undefined {
  if (schema === null || typeof schema !== "object") return undefined;
  for (const [key, value] of Object.entries(schema)) {
    const here = `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    if (key === "$ref" && typeof value === "string" && !value.startsWith("#"))
      return { pointer: here, draft, message: `keyword "$ref" must point inside this schema (#/$defs/… or #/definitions/…), not to another document ${JSON.stringify(value)}` };
    if (DATA_KEYWORDS.has(key) && !Array.isArray(schema)) continue;
    const found = externalRef(value, draft, here);
    if (found) return found;
  }
  return undefined;
}

/** An error of the meta-schema, said of the keyword (or the property's schema) it is about. */
function what(e: ErrorObject, schema: unknown): string {
  const tokens = e.instancePath
    .split("/")
    .slice(1)
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  const last = tokens.at(-1);
  const named = tokens.length >= 2 && ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"].includes(tokens.at(-2)!);
  const subject = last === undefined ? "the schema" : named ? `the schema of ${JSON.stringify(last)}` : /^\d+$/.test(last) ? `item ${last} of "${tokens.at(-2)}"` : `keyword ${JSON.stringify(last)}`;
  const values = (e.params as { allowedValues?: unknown[] }).allowedValues;
  const expected = e.keyword === "enum" && values ? `must be ${oneOf(values.map((v) => JSON.stringify(v)))}` : (e.message ?? "is invalid");
  const value = tokens.reduce<unknown>((v, t) => (v as Record<string, unknown>)[t], schema);
  return `${subject} ${expected}, not ${JSON.stringify(value)}`;
}
