/**
 * Every official 2026-07-28 example validates against the generated validator
 * of its type, and a mutated copy of each is rejected.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OUT, synced, syncedUnder } from "../helpers.js";

const EXAMPLES = "2026-07-28/examples";
const schema = JSON.parse(readFileSync(synced("2026-07-28/schema.json"), "utf8")) as { $defs: Record<string, { required?: string[] }> };
const validators = (await import(join(OUT, "2026-07-28", "validators.js"))) as Record<string, ((d: unknown) => boolean) | undefined>;

const cases = syncedUnder(EXAMPLES)
  .filter((p) => p.endsWith(".json"))
  .map((p) => {
    const [type, file] = p.slice(EXAMPLES.length + 1).split("/");
    return { type, file };
  });

/** Mutations of an example, each of which the schema must reject: a required property removed, or a property given a value of another JSON type. */
function mutations(type: string, example: unknown): unknown[] {
  if (example === null || typeof example !== "object" || Array.isArray(example)) return [42, "not-an-object", null];
  const obj = example as Record<string, unknown>;
  const out: unknown[] = [];
  for (const key of schema.$defs[type]?.required ?? []) {
    const copy = { ...obj };
    delete copy[key];
    out.push(copy);
  }
  for (const [key, value] of Object.entries(obj)) {
    const wrong = typeof value === "string" ? 12345 : typeof value === "number" ? "12345" : typeof value === "boolean" ? "true" : Array.isArray(value) ? { not: "an array" } : "not-an-object";
    out.push({ ...obj, [key]: wrong });
  }
  return out;
}

describe("2026-07-28 official examples", () => {
  it("are all present (129 files)", () => {
    expect(cases.length).toBe(129);
  });

  it.each(cases)("$type/$file validates, and a mutation is rejected", ({ type, file }) => {
    const validate = validators[`validate${type}`];
    expect(validate, `no generated validator for ${type}`).toBeTypeOf("function");
    const example = JSON.parse(readFileSync(synced(`${EXAMPLES}/${type}/${file}`), "utf8"));
    expect(validate!(example), JSON.stringify((validate as unknown as { errors: unknown }).errors)).toBe(true);
    const rejected = mutations(type, example).filter((m) => !validate!(m));
    expect(rejected.length, `no mutation of ${type}/${file} was rejected`).toBeGreaterThan(0);
  });
});
