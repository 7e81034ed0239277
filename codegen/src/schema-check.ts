/**
 * mcp.json against mcp.schema.json (the schema editors use too): every mistake, each as one line naming its JSON
 * pointer and what is expected there.
 */
import { readFileSync } from "node:fs";
import type { ErrorObject } from "ajv";
import { at, pointer } from "./errors.js";
import { generators } from "./generators.js";

/** The published schema of mcp.json, beside this package's dist/. */
export const SCHEMA_PATH = new URL("../mcp.schema.json", import.meta.url);

type Schema = Record<string, unknown> & { definitions: Record<string, { properties: Record<string, Record<string, unknown>> }> };

/** mcp.schema.json, with the tool-name pattern set to the runtime's rule (the file carries the same one; a test keeps them equal). */
export function loadSchema(toolName: RegExp): Schema {
  const schema = JSON.parse(readFileSync(SCHEMA_PATH, "utf8")) as Schema;
  schema.definitions.tool.properties.name.pattern = toolName.source;
  return schema;
}

/** The problems of `value` as mcp.json, one line each; none when it fits the schema. */
export async function schemaProblems(value: unknown, toolName: RegExp): Promise<string[]> {
  const schema = loadSchema(toolName);
  const { ajv } = await generators();
  const checker = ajv(schema, { allErrors: true, verbose: true, strict: true, allowUnionTypes: true });
  // Editors' message keyword (VS Code's): the same text says what a pattern means here.
  checker.addKeyword({ keyword: "patternErrorMessage", schemaType: "string" });
  const validate = checker.compile(schema);
  if (validate(value)) return [];
  const seen = new Set<string>();
  const problems: string[] = [];
  // A misspelt key is one mistake: its "did you mean" line says what the "missing" one would say again.
  const misspelt = new Set(
    (validate.errors ?? []).flatMap((e) => {
      if (e.keyword !== "additionalProperties") return [];
      const known = Object.keys(((e.parentSchema as Record<string, unknown> | undefined)?.properties as object | undefined) ?? {});
      const near = closest((e.params as { additionalProperty: string }).additionalProperty, known);
      return near ? [`${e.instancePath}|${near}`] : [];
    }),
  );
  for (const error of validate.errors ?? []) {
    if (error.keyword === "required" && misspelt.has(`${error.instancePath}|${(error.params as { missingProperty: string }).missingProperty}`)) continue;
    const [path, message] = describe(error);
    // One line per place: a wrong type at a pointer is its mistake, not also each keyword that then fails there.
    if (seen.has(path)) continue;
    seen.add(path);
    problems.push(at(path, `${declaration(value, path)}${message}`));
  }
  return problems;
}

const KINDS: Record<string, string> = { tools: "tool", prompts: "prompt", resources: "resource", resourceTemplates: "resource template" };

/** `tool "echo": ` for a mistake inside a declaration that has a name (other than in the name), so the line names it as well as its place. */
function declaration(value: unknown, path: string): string {
  const m = /^\/(tools|prompts|resources|resourceTemplates)\/(\d+)\/(?!name$)/.exec(path);
  const entry = m && (value as Record<string, unknown[]>)[m[1]]?.[Number(m[2])];
  const name = entry && typeof entry === "object" ? (entry as { name?: unknown }).name : undefined;
  return typeof name === "string" ? `${KINDS[m![1]]} ${JSON.stringify(name)}: ` : "";
}

const show = (value: unknown) => JSON.stringify(value);

/** "a", "a or b", "a, b or c". */
export function oneOf(values: readonly string[]): string {
  return values.length < 2 ? values.join("") : `${values.slice(0, -1).join(", ")} or ${values.at(-1)}`;
}

/** The pointer and message of one ajv error, in the words of mcp.json. */
function describe(e: ErrorObject): [string, string] {
  const path = e.instancePath;
  const p = e.params as Record<string, unknown>;
  const parent = e.parentSchema as Record<string, unknown> | undefined;
  switch (e.keyword) {
    case "additionalProperties": {
      const key = p.additionalProperty as string;
      const known = Object.keys((parent?.properties as object | undefined) ?? {});
      const near = closest(key, known);
      return [path + pointer(key), near ? `unknown key; did you mean ${show(near)}?` : `unknown key; expected one of ${oneOf(known.map(show))}`];
    }
    case "required":
      return [path, `missing ${show(p.missingProperty)}, which is required`];
    case "type":
      return [path, `must be ${article(String(p.type))}, not ${kind(e.data)}`];
    case "enum":
      return [path, `must be ${oneOf((p.allowedValues as unknown[]).map(show))}, not ${show(e.data)}`];
    case "const":
      return [path, `must be ${show(p.allowedValue)}, not ${show(e.data)}`];
    case "pattern":
      return [path, `must be ${(parent?.patternErrorMessage as string | undefined) ?? `a string matching ${String(p.pattern)}`}, not ${show(e.data)}`];
    case "format":
      return [path, `must be ${p.format === "uri" ? "an absolute URI (with a scheme, e.g. app://name)" : `a ${String(p.format)} string`}, not ${show(e.data)}`];
    case "minLength":
      return [path, "must not be empty"];
    case "minItems":
      return [path, `must list at least ${String(p.limit)}, not none`];
    case "uniqueItems":
      return [path + pointer(p.i as number), `${show((e.data as unknown[])[p.i as number])} is listed twice`];
    case "minimum":
    case "maximum":
      return [path, `must be ${e.keyword === "minimum" ? "at least" : "at most"} ${String(p.limit)}, not ${show(e.data)}`];
    default:
      return [path, `${e.message ?? "is invalid"}`];
  }
}

function article(type: string): string {
  const names: Record<string, string> = { object: "a JSON object", array: "an array", string: "a string", boolean: "true or false", number: "a number", integer: "an integer" };
  return names[type] ?? type;
}

/** What a JSON value is, for "must be X, not Y". */
function kind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `${typeof value === "string" ? "the string" : typeof value === "boolean" ? "" : "the number"} ${show(value)}`.trim();
}

/** The known key a mistyped one most likely meant: within two edits, or one containing the other. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    const near = d <= Math.max(1, Math.min(2, Math.floor(c.length / 3))) || (word.length >= 3 && c.toLowerCase().includes(word.toLowerCase()));
    if (near && d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

/** Levenshtein distance. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}
