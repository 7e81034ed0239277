/**
 * Audits a revision's schema.json against its schema.ts, definition by definition: for every value position
 * (definitions, their properties, index signatures, array items, inline objects and union members) the JSON
 * value kinds each side accepts (null, boolean, integer, fraction, string, array, object), the property names,
 * which properties are required, and literal values. schema.ts is the source schema.json is rendered from, so
 * every difference is either an upstream rendering defect (a schema erratum, see `SCHEMA_ERRATA` in the overlay)
 * or a reviewed, intended one. Used by the errata test; it is not part of generation.
 */
import { Project, type Type, ts } from "ts-morph";

export type Kind = "null" | "boolean" | "integer" | "fraction" | "string" | "array" | "object";
const ALL: Kind[] = ["null", "boolean", "integer", "fraction", "string", "array", "object"];

export interface AuditFinding {
  /** JSON Pointer of the schema.json position. */
  pointer: string;
  problem: "json-rejects" | "json-accepts" | "required" | "optional" | "missing-property" | "extra-property" | "members" | "literals" | "no-declaration";
  /** For json-rejects / json-accepts: the kinds that differ. */
  kinds?: Kind[];
  /** The TypeScript type at that position, as text. */
  tsType?: string;
  /** The TypeScript alias or interface name at that position, when it has one. */
  tsName?: string;
  message: string;
}

type Json = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  anyOf?: Json[];
  oneOf?: Json[];
  allOf?: Json[];
  enum?: unknown[];
  properties?: Record<string, Json>;
  required?: string[];
  items?: Json;
  additionalProperties?: Json | boolean;
};

const valueKind = (v: unknown): Kind => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "fraction") : (typeof v as Kind));
const escape = (k: string) => k.replace(/~/g, "~0").replace(/\//g, "~1");
const text = (t: Type) => t.getText(undefined, ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope);

export function auditSchema(tsText: string, schema: Record<string, unknown>): AuditFinding[] {
  const key = "$defs" in schema ? "$defs" : "definitions";
  const defs = schema[key] as Record<string, Json>;
  const project = new Project({ compilerOptions: { strict: true }, useInMemoryFileSystem: true });
  const sf = project.createSourceFile("/schema.ts", tsText);
  const findings: AuditFinding[] = [];

  const refName = (s: Json) => s.$ref!.split("/").pop()!;
  const resolve = (s: Json): Json => {
    for (let i = 0; s && typeof s.$ref === "string" && i < 32; i++) s = defs[refName(s)];
    return s;
  };
  const jsonKinds = (s: Json | boolean | undefined): Set<Kind> => {
    if (s === true || s === undefined) return new Set(ALL);
    if (s === false) return new Set();
    const r = resolve(s);
    let out: Set<Kind> | null = null;
    const narrow = (k: Set<Kind>) => (out = out ? new Set([...out].filter((x) => k.has(x))) : k);
    if (r.type !== undefined) narrow(new Set((Array.isArray(r.type) ? r.type : [r.type]).flatMap((x) => (x === "number" ? ["integer", "fraction"] : [x])) as Kind[]));
    if ("const" in r) narrow(new Set([valueKind(r.const)]));
    if (r.enum) narrow(new Set(r.enum.map(valueKind)));
    for (const k of ["anyOf", "oneOf"] as const) if (r[k]) narrow(new Set(r[k]!.flatMap((b) => [...jsonKinds(b)])));
    for (const b of r.allOf ?? []) narrow(jsonKinds(b));
    return out ?? new Set(ALL);
  };
  const tsKinds = (t: Type): Set<Kind> => {
    if (t.isAny() || t.isUnknown()) return new Set(ALL);
    if (t.isUnion()) return new Set(t.getUnionTypes().flatMap((u) => [...tsKinds(u)]));
    if (t.isNull()) return new Set(["null"]);
    if (t.isUndefined()) return new Set();
    if (t.isNumberLiteral()) return new Set([Number.isInteger(t.getLiteralValue()) ? "integer" : "fraction"]);
    if (t.isNumber()) return new Set(["integer", "fraction"]);
    if (t.isString() || t.isStringLiteral() || t.isTemplateLiteral()) return new Set(["string"]);
    if (t.isBoolean() || t.isBooleanLiteral()) return new Set(["boolean"]);
    if (t.isArray() || t.isTuple()) return new Set(["array"]);
    if (t.isObject() || t.isIntersection() || t.getFlags() & ts.TypeFlags.NonPrimitive) return new Set(["object"]);
    throw new Error(`audit: unhandled TypeScript type ${text(t)}`);
  };
  const present = (t: Type) => (t.isUnion() ? t.getUnionTypes().filter((u) => !u.isUndefined()) : [t]);
  const nameOf = (t: Type) => t.getAliasSymbol()?.getName() ?? t.getSymbol()?.getName();
  const isObjectLike = (t: Type) => (t.isObject() || t.isIntersection()) && !t.isArray() && !t.isTuple();
  // Boolean literals are left out: `boolean` itself is the union `true | false`.
  const literal = (t: Type) => (t.isStringLiteral() || t.isNumberLiteral() ? t.getLiteralValue() : undefined);
  const jsonLiterals = (s: Json): unknown[] | undefined => {
    const r = resolve(s);
    if ("const" in r) return [r.const];
    if (r.enum) return r.enum;
    const branches = r.anyOf ?? r.oneOf;
    if (branches) {
      const parts = branches.map(jsonLiterals);
      return parts.every(Boolean) ? parts.flat() : undefined;
    }
    return undefined;
  };

  const compare = (t: Type, s: Json | boolean | undefined, pointer: string, named: boolean) => {
    const tk = tsKinds(t);
    const jk = jsonKinds(s);
    const tsType = text(t);
    const tsName = present(t).length === 1 ? nameOf(present(t)[0]) : t.getAliasSymbol()?.getName();
    const rejects = [...tk].filter((k) => !jk.has(k));
    const accepts = [...jk].filter((k) => !tk.has(k));
    if (rejects.length) findings.push({ pointer, problem: "json-rejects", kinds: rejects, tsType, tsName, message: `JSON rejects ${rejects.join(", ")} that TS \`${tsType}\` allows` });
    if (accepts.length && tk.size) findings.push({ pointer, problem: "json-accepts", kinds: accepts, tsType, tsName, message: `JSON accepts ${accepts.join(", ")} that TS \`${tsType}\` rejects` });
    if (typeof s !== "object") return;
    // A $ref below the top of a definition names another definition, audited on its own: only the name must agree.
    if (s.$ref && !named) {
      const parts = present(t);
      if (parts.length === 1 && !(t.isAny() || t.isUnknown()) && nameOf(parts[0]) !== refName(s))
        findings.push({ pointer, problem: "members", tsType, message: `JSON $ref ${refName(s)} where TS has \`${tsType}\`` });
      return;
    }
    const r = resolve(s);
    const parts = present(t).filter((u) => !u.isNull());
    const lits = parts.map(literal);
    if (parts.length > 0 && lits.every((l) => l !== undefined)) {
      const jl = jsonLiterals(r);
      const a = JSON.stringify(lits.map((l) => JSON.stringify(l)).sort());
      const b = JSON.stringify(
        (jl ?? [])
          .map((l) => JSON.stringify(l))
          .filter((l) => l !== "null")
          .sort(),
      );
      if (a !== b) findings.push({ pointer, problem: "literals", tsType, message: `literal values TS ${a} vs JSON ${b}` });
      return;
    }
    const branches = r.anyOf ?? r.oneOf;
    if (branches && parts.length > 1) {
      const tsNames = parts.filter(isObjectLike).map(nameOf).filter(Boolean).sort();
      const jsonNames = branches
        .filter((b) => b.$ref)
        .map(refName)
        .sort();
      if (tsNames.length && JSON.stringify(tsNames) !== JSON.stringify(jsonNames))
        findings.push({ pointer, problem: "members", tsType, message: `union members TS [${tsNames}] vs JSON [${jsonNames}]` });
      const array = parts.find((u) => u.isArray());
      const jsonArray = branches.findIndex((b) => resolve(b).type === "array");
      if (array && jsonArray >= 0) compare(array.getArrayElementTypeOrThrow(), resolve(branches[jsonArray]).items, `${pointer}/anyOf/${jsonArray}/items`, false);
      const inline = parts.find((u) => isObjectLike(u) && !nameOf(u));
      branches.forEach((b, i) => {
        if (inline && !b.$ref && resolve(b).type === "object") compareObject(inline, resolve(b), `${pointer}/anyOf/${i}`);
      });
      return;
    }
    if (parts.length !== 1) return;
    const [u] = parts;
    if (u.isArray()) return compare(u.getArrayElementTypeOrThrow(), r.items, `${pointer}/items`, false);
    if (isObjectLike(u) && jk.has("object")) compareObject(u, r, pointer);
  };

  const flatten = (s: Json): { props: Record<string, Json>; required: Set<string>; additional: Json | boolean | undefined } => {
    const props: Record<string, Json> = { ...(s.properties ?? {}) };
    const required = new Set<string>(s.required ?? []);
    let additional = s.additionalProperties;
    for (const b of s.allOf ?? []) {
      const r = flatten(resolve(b));
      Object.assign(props, r.props);
      r.required.forEach((x) => required.add(x));
      if (r.additional !== undefined) additional = r.additional;
    }
    return { props, required, additional };
  };

  const compareObject = (t: Type, s: Json, pointer: string) => {
    const { props, required, additional } = flatten(s);
    const tsProps = t.getProperties();
    for (const p of tsProps) {
      const name = p.getName();
      const at = `${pointer}/properties/${escape(name)}`;
      if (!(name in props)) {
        findings.push({ pointer: at, problem: "missing-property", message: `TS property ${name} is not in JSON` });
        continue;
      }
      if (p.isOptional() && required.has(name)) findings.push({ pointer: `${pointer}/required`, problem: "required", message: `${name} is optional in TS but required in JSON` });
      if (!p.isOptional() && !required.has(name)) findings.push({ pointer: `${pointer}/required`, problem: "optional", message: `${name} is required in TS but optional in JSON` });
      compare(p.getTypeAtLocation(p.getDeclarations()[0] ?? sf), props[name], at, false);
    }
    const names = new Set(tsProps.map((p) => p.getName()));
    for (const name of Object.keys(props))
      if (!names.has(name)) findings.push({ pointer: `${pointer}/properties/${escape(name)}`, problem: "extra-property", message: `JSON property ${name} is not in TS` });
    const index = t.getStringIndexType();
    if (index) compare(index, additional, `${pointer}/additionalProperties`, false);
  };

  for (const [name, def] of Object.entries(defs)) {
    const t = sf.getInterface(name)?.getType() ?? sf.getTypeAlias(name)?.getType();
    if (!t) findings.push({ pointer: `/${key}/${escape(name)}`, problem: "no-declaration", message: `no TS declaration ${name}` });
    else compare(t, def, `/${key}/${escape(name)}`, true);
  }
  return findings;
}
