/**
 * Builds the revision rules data (`out/rules.json`) from the per-revision
 * schema models and the prose overlay, and emits `out/rules.ts`: typed,
 * O(1) predicates over a revision for the runtime to call. Nothing here
 * is written per revision by hand: every table is computed from the data.
 */
import type { Direction, MethodKind, SchemaModel } from "./extract.js";
import type { Era } from "./manifest.js";
import { PROSE_ERROR_CODES, PROSE_RULES } from "./overlay.js";

export interface RevisionInput {
  id: string;
  era: Era;
  model: SchemaModel;
}

type ByRevision<T> = Record<string, T>;

export interface MethodRule {
  /** Kind in the newest revision that has the method. */
  kind: MethodKind;
  directions: Direction[];
  revisions: string[];
  byRevision: ByRevision<{ kind: MethodKind; directions: Direction[]; typeName: string; paramsType: string | null; resultType: string | null }>;
}

export interface RulesData {
  revisions: { id: string; era: Era; latestProtocolVersion: string }[];
  methods: Record<string, MethodRule>;
  errorCodes: Record<string, { code: number; revisions: string[]; source: string }[]>;
  capabilities: { server: Record<string, string[]>; client: Record<string, string[]> };
  metaKeys: Record<string, string[]>;
  cacheableMethods: Record<string, string[]>;
  inputRequiredMethods: Record<string, string[]>;
  requestTypesIncludeEnvelope: ByRevision<boolean>;
  definitions: Record<string, { revisions: string[]; fields: Record<string, string[]> }>;
  prose: Record<string, { summary: string; type: string; cite: string[]; byRevision: ByRevision<unknown> }>;
}

/** Resolve a prose rule's ranges to one value per revision, by declaration order. */
export function resolveRanges<V>(ids: string[], otherwise: V, ranges: { from?: string; until?: string; value: V }[], ruleName: string): ByRevision<V> {
  const index = (id: string | undefined, fallback: number) => {
    if (id === undefined) return fallback;
    const i = ids.indexOf(id);
    // A range endpoint naming a revision this manifest lacks is a review error, not something to guess about.
    if (i < 0) throw new Error(`overlay rule ${ruleName}: unknown revision ${id}`);
    return i;
  };
  const out: ByRevision<V> = {};
  ids.forEach((id) => (out[id] = otherwise));
  for (const r of ranges) {
    const lo = index(r.from, 0);
    const hi = index(r.until, ids.length - 1);
    for (let i = lo; i <= hi; i++) out[ids[i]] = r.value;
  }
  return out;
}

function addTo(map: Record<string, string[]>, key: string, revision: string) {
  (map[key] ??= []).push(revision);
}

export function buildRules(inputs: RevisionInput[], overlayRevisions = inputs.map((i) => i.id)): RulesData {
  const ids = inputs.map((i) => i.id);
  const data: RulesData = {
    revisions: inputs.map((i) => ({ id: i.id, era: i.era, latestProtocolVersion: i.model.latestProtocolVersion })),
    methods: {},
    errorCodes: {},
    capabilities: { server: {}, client: {} },
    metaKeys: {},
    cacheableMethods: {},
    inputRequiredMethods: {},
    requestTypesIncludeEnvelope: {},
    definitions: {},
    prose: {},
  };
  for (const rule of PROSE_RULES) {
    data.prose[rule.name] = { summary: rule.summary, type: rule.type, cite: rule.cite, byRevision: resolveRanges(overlayRevisions, rule.otherwise, rule.ranges, rule.name) };
  }
  for (const { id, model } of inputs) {
    for (const m of model.methods) {
      const entry = (data.methods[m.method] ??= { kind: m.kind, directions: [], revisions: [], byRevision: {} });
      entry.kind = m.kind;
      entry.revisions.push(id);
      for (const d of m.directions) if (!entry.directions.includes(d)) entry.directions.push(d);
      entry.directions.sort();
      entry.byRevision[id] = { kind: m.kind, directions: m.directions, typeName: m.typeName, paramsType: m.paramsType, resultType: m.resultType };
      const result = m.resultType;
      if (result && model.cacheableResults.includes(result)) addTo(data.cacheableMethods, m.method, id);
      if (model.inputRequiredMethods.includes(m.method)) addTo(data.inputRequiredMethods, m.method, id);
    }
    const codes = [...model.errorCodes.map((c) => ({ ...c, source: `spec/${id}/schema.ts` }))];
    for (const p of PROSE_ERROR_CODES) {
      const code = data.prose[p.rule].byRevision[id] as number;
      if (!codes.some((c) => c.name === p.name)) codes.push({ name: p.name, code, source: p.cite(id) });
    }
    for (const c of codes) {
      const list = (data.errorCodes[c.name] ??= []);
      const same = list.find((x) => x.code === c.code);
      if (same) same.revisions.push(id);
      else list.push({ code: c.code, revisions: [id], source: c.source });
    }
    for (const side of ["server", "client"] as const) for (const c of model.capabilities[side]) addTo(data.capabilities[side], c, id);
    for (const k of model.metaKeys) addTo(data.metaKeys, k, id);
    data.requestTypesIncludeEnvelope[id] = model.requestTypesIncludeEnvelope;
    for (const [name, fields] of Object.entries(model.definitions)) {
      const d = (data.definitions[name] ??= { revisions: [], fields: {} });
      d.revisions.push(id);
      for (const f of fields) addTo(d.fields, f, id);
    }
  }
  // Stable key order: sorted names, so the output is deterministic and diffs read well.
  const sortKeys = <T>(o: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  data.methods = sortKeys(data.methods);
  data.errorCodes = sortKeys(data.errorCodes);
  data.capabilities = { server: sortKeys(data.capabilities.server), client: sortKeys(data.capabilities.client) };
  data.metaKeys = sortKeys(data.metaKeys);
  data.definitions = sortKeys(data.definitions);
  void ids;
  return data;
}

const tsType = (t: string) => (t === "string[]" ? "readonly string[]" : t);

/** Emit `out/rules.ts`: the data plus generated, table-driven predicates. */
export function emitRulesModule(data: RulesData): string {
  const ids = data.revisions.map((r) => r.id);
  const perRevision = <T>(f: (id: string) => T) => Object.fromEntries(ids.map((id) => [id, f(id)]));
  const j = (v: unknown) => JSON.stringify(v);

  const methodsByRevision = perRevision((id) =>
    Object.fromEntries(
      Object.entries(data.methods)
        .filter(([, m]) => m.byRevision[id])
        .map(([name, m]) => [name, { kind: m.byRevision[id].kind, directions: m.byRevision[id].directions }]),
    ),
  );
  const codesByRevision = perRevision((id) => Object.fromEntries(Object.entries(data.errorCodes).flatMap(([name, list]) => list.filter((c) => c.revisions.includes(id)).map((c) => [name, c.code]))));
  const setsOf = (map: Record<string, string[]>) => perRevision((id) => Object.keys(map).filter((k) => map[k].includes(id)));

  const proseFns = Object.entries(data.prose).map(([name, rule]) => {
    const table = `${name.replace(/[A-Z]/g, (c) => "_" + c).toUpperCase()}`;
    return (
      `const ${table}: Readonly<Record<Revision, ${tsType(rule.type)}>> = ${j(rule.byRevision)};\n` +
      `/**\n * ${rule.summary}\n *\n${rule.cite.map((c) => ` * @see ${c}`).join("\n")}\n */\n` +
      `export function ${name}(revision: Revision): ${tsType(rule.type)} {\n  return ${table}[revision];\n}\n`
    );
  });

  return `// Generated by create-mcp-server from the official schemas and generator/overlay.ts. Do not edit.
// Regenerate with \`create-mcp-server generate\`.

/** Every supported revision, in declaration order (never compare revisions as strings). */
export const REVISIONS = ${j(ids)} as const;
export type Revision = (typeof REVISIONS)[number];
export type Era = "legacy" | "modern";
export type MethodKind = "request" | "notification" | "inputRequest";
export type Direction = "client→server" | "server→client";

/** The era of each revision: legacy = initialize handshake and sessions; modern = per-request \`_meta\`, stateless. */
export const ERA: Readonly<Record<Revision, Era>> = ${j(perRevision((id) => data.revisions.find((r) => r.id === id)!.era))};
export const LEGACY_REVISIONS: readonly Revision[] = REVISIONS.filter((r) => ERA[r] === "legacy");
export const MODERN_REVISIONS: readonly Revision[] = REVISIONS.filter((r) => ERA[r] === "modern");
/** Newest revision of each era, or undefined when the manifest has none. */
export const LATEST_LEGACY: Revision | undefined = LEGACY_REVISIONS[LEGACY_REVISIONS.length - 1];
export const LATEST_MODERN: Revision | undefined = MODERN_REVISIONS[MODERN_REVISIONS.length - 1];

const INDEX: Readonly<Record<string, number>> = ${j(Object.fromEntries(ids.map((id, i) => [id, i])))};
/** Whether \`value\` names a supported revision. */
export function isRevision(value: unknown): value is Revision {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(INDEX, value);
}
/** Negative, zero or positive as \`a\` was declared before, with, or after \`b\`. */
export function compareRevisions(a: Revision, b: Revision): number {
  return INDEX[a] - INDEX[b];
}
export function isModern(revision: Revision): boolean {
  return ERA[revision] === "modern";
}
export function isLegacy(revision: Revision): boolean {
  return ERA[revision] === "legacy";
}

const METHODS: Readonly<Record<Revision, Readonly<Record<string, { kind: MethodKind; directions: readonly Direction[] }>>>> = ${j(methodsByRevision)};
/** Whether \`method\` (request, notification or input request) exists in \`revision\`. */
export function hasMethod(revision: Revision, method: string): boolean {
  return Object.prototype.hasOwnProperty.call(METHODS[revision], method);
}
/** The method's kind in \`revision\`, or undefined when the revision lacks it. */
export function methodKind(revision: Revision, method: string): MethodKind | undefined {
  return hasMethod(revision, method) ? METHODS[revision][method].kind : undefined;
}
/** Whether a peer may send \`method\` as a request or notification in \`direction\` in \`revision\`. */
export function methodFlows(revision: Revision, method: string, direction: Direction): boolean {
  return hasMethod(revision, method) && METHODS[revision][method].directions.includes(direction);
}

const ERROR_CODES: Readonly<Record<Revision, Readonly<Record<string, number>>>> = ${j(codesByRevision)};
const DEFINED_CODES: Readonly<Record<Revision, ReadonlySet<number>>> = Object.fromEntries(
  REVISIONS.map((r) => [r, new Set(Object.values(ERROR_CODES[r]))]),
) as unknown as Record<Revision, ReadonlySet<number>>;
/** The code of the error named \`name\` (e.g. "INVALID_PARAMS") in \`revision\`, or undefined when that revision lacks it. */
export function errorCode(revision: Revision, name: string): number | undefined {
  return ERROR_CODES[revision][name];
}
/** Whether \`code\` is an error code that \`revision\` defines (a peer is sent only these). */
export function definesErrorCode(revision: Revision, code: number): boolean {
  return DEFINED_CODES[revision].has(code);
}

const CAPABILITIES: Readonly<Record<"server" | "client", Readonly<Record<Revision, readonly string[]>>>> = {
  server: ${j(setsOf(data.capabilities.server))},
  client: ${j(setsOf(data.capabilities.client))},
};
/** Whether \`revision\` defines the capability at dotted \`path\` (e.g. "tools.listChanged") for \`side\`. */
export function hasCapability(revision: Revision, side: "server" | "client", path: string): boolean {
  return CAPABILITIES[side][revision].includes(path);
}

const META_KEYS: Readonly<Record<Revision, readonly string[]>> = ${j(setsOf(data.metaKeys))};
/** Whether \`revision\` defines the reserved \`_meta\` key (e.g. "io.modelcontextprotocol/protocolVersion"). */
export function hasMetaKey(revision: Revision, key: string): boolean {
  return META_KEYS[revision].includes(key);
}

const CACHEABLE: Readonly<Record<Revision, readonly string[]>> = ${j(setsOf(data.cacheableMethods))};
/** Whether results of \`method\` are cacheable in \`revision\` (their result type extends CacheableResult: \`ttlMs\` and \`cacheScope\` required). */
export function isCacheable(revision: Revision, method: string): boolean {
  return CACHEABLE[revision].includes(method);
}

const INPUT_REQUIRED: Readonly<Record<Revision, readonly string[]>> = ${j(setsOf(data.inputRequiredMethods))};
/** Whether \`method\` may answer with \`resultType: "input_required"\` in \`revision\` (its result response admits InputRequiredResult). */
export function mayAnswerInputRequired(revision: Revision, method: string): boolean {
  return INPUT_REQUIRED[revision].includes(method);
}

const ENVELOPE: Readonly<Record<Revision, boolean>> = ${j(data.requestTypesIncludeEnvelope)};
/** Whether the revision's request types carry the JSON-RPC envelope themselves; when false, validate the envelope separately. */
export function requestTypesIncludeEnvelope(revision: Revision): boolean {
  return ENVELOPE[revision];
}

const FIELDS: Readonly<Record<string, Readonly<Record<string, number>>>> = ${j(
    Object.fromEntries(
      Object.entries(data.definitions).map(([d, v]) => [d, Object.fromEntries(Object.entries(v.fields).map(([f, revs]) => [f, revs.reduce((mask, r) => mask | (1 << ids.indexOf(r)), 0)]))]),
    ),
  )};
/** Whether schema definition \`definition\` (e.g. "CallToolResult") has property \`field\` in \`revision\`: a peer is sent only fields its revision defines. */
export function hasField(revision: Revision, definition: string, field: string): boolean {
  return ((FIELDS[definition]?.[field] ?? 0) & (1 << INDEX[revision])) !== 0;
}

/** Whether \`header\` is an HTTP header the revision's transport defines. */
export function hasHeader(revision: Revision, header: string): boolean {
  const lower = header.toLowerCase();
  return httpHeaders(revision).some((h) => h.toLowerCase() === lower || (h.endsWith("*") && lower.startsWith(h.slice(0, -1).toLowerCase())));
}

// ---- Rules from the prose (generator/overlay.ts), one predicate each. ----

${proseFns.join("\n")}`;
}
