/**
 * Reads one revision's official `schema.ts` (through ts-morph) and
 * `schema.json` and extracts the facts the rules module is built from:
 * methods with their kind and direction, error-code constants, capabilities,
 * reserved `_meta` keys, cacheable results, the methods that may answer
 * `input_required`, and the JSON Schema definitions with their fields.
 *
 * Nothing here knows a revision by name: every fact comes from the schema
 * text, so a new revision generates without code changes.
 */
import { type InterfaceDeclaration, Node, Project, SyntaxKind, type SourceFile, ts, type TypeAliasDeclaration } from "ts-morph";
import { SchemaError } from "./sync.js";

export type MethodKind = "request" | "notification" | "inputRequest";
export type Direction = "client→server" | "server→client";

export interface MethodFact {
  method: string;
  kind: MethodKind;
  directions: Direction[];
  /** The schema type of the message, e.g. `CallToolRequest`. */
  typeName: string;
  /** Named params type when the schema names one, e.g. `CallToolRequestParams`. */
  paramsType: string | null;
  /** For requests and input requests: the result type, e.g. `CallToolResult`. */
  resultType: string | null;
}

export interface SchemaModel {
  latestProtocolVersion: string;
  methods: MethodFact[];
  errorCodes: { name: string; code: number }[];
  capabilities: { server: string[]; client: string[] };
  metaKeys: string[];
  cacheableResults: string[];
  inputRequiredMethods: string[];
  /** Whether request types such as CallToolRequest carry `jsonrpc`/`id` themselves. */
  requestTypesIncludeEnvelope: boolean;
  /** JSON Schema definition name → its property names (and `params.<name>` for inline params objects). */
  definitions: Record<string, string[]>;
  /** `definitions` (draft-07) or `$defs` (2020-12). */
  definitionsKey: "definitions" | "$defs";
  /** The JSON Schema dialect URI of schema.json. */
  dialect: string;
  /** The exported declarations of schema.ts, in source order. */
  declarations: string[];
}

const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { strict: true } });

/** Parse schema.ts; throws SchemaError naming the file on a syntax error. */
export function parseSchemaTs(path: string, text: string): SourceFile {
  const sf = project.createSourceFile(`/${Math.random().toString(36).slice(2)}/schema.ts`, text, { overwrite: true });
  // The parser's own diagnostics (syntax errors, codes 1xxx): what a parse can say. Asking for the pre-emit ones
  // would build a program and type-check it against the lib files, 2-3 s per revision for nothing we read.
  const diagnostics = (sf.compilerNode as unknown as { parseDiagnostics?: readonly ts.DiagnosticWithLocation[] }).parseDiagnostics ?? [];
  const d = diagnostics.find((x) => x.category === ts.DiagnosticCategory.Error);
  if (d) {
    const line = sf.compilerNode.getLineAndCharacterOfPosition(d.start).line + 1;
    throw new SchemaError(`${path}:${line}: syntax error: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
  }
  return sf;
}

function unionMembers(sf: SourceFile, name: string, seen = new Set<string>()): string[] {
  const alias = sf.getTypeAlias(name);
  if (!alias || seen.has(name)) return alias ? [] : [name];
  seen.add(name);
  const node = alias.getTypeNodeOrThrow();
  const parts = Node.isUnionTypeNode(node) ? node.getTypeNodes() : [node];
  const out: string[] = [];
  for (const p of parts) {
    if (!Node.isTypeReference(p)) continue;
    const ref = p.getTypeName().getText();
    if (sf.getTypeAlias(ref) && Node.isUnionTypeNode(sf.getTypeAliasOrThrow(ref).getTypeNodeOrThrow())) out.push(...unionMembers(sf, ref, seen));
    else out.push(ref);
  }
  return out;
}

function baseNames(decl: InterfaceDeclaration): string[] {
  return decl.getHeritageClauses().flatMap((h) => h.getTypeNodes().map((t) => t.getExpression().getText()));
}

function findProperty(sf: SourceFile, typeName: string, prop: string, seen = new Set<string>()): Node | undefined {
  if (seen.has(typeName)) return undefined;
  seen.add(typeName);
  const decl = sf.getInterface(typeName);
  if (!decl) return undefined;
  const own = decl.getProperty(prop);
  if (own) return own.getTypeNode();
  for (const base of baseNames(decl)) {
    const found = findProperty(sf, base, prop, seen);
    if (found) return found;
  }
  return undefined;
}

function literalMethod(sf: SourceFile, typeName: string): string | undefined {
  const node = findProperty(sf, typeName, "method");
  if (node && Node.isLiteralTypeNode(node)) {
    const lit = node.getLiteral();
    if (Node.isStringLiteral(lit)) return lit.getLiteralValue();
  }
  return undefined;
}

function extendsTransitively(sf: SourceFile, typeName: string, target: string, seen = new Set<string>()): boolean {
  if (seen.has(typeName)) return false;
  seen.add(typeName);
  const decl = sf.getInterface(typeName);
  if (!decl) return false;
  return baseNames(decl).some((b) => b === target || extendsTransitively(sf, b, target, seen));
}

function capabilityPaths(sf: SourceFile, name: string): string[] {
  const decl = sf.getInterface(name);
  if (!decl) return [];
  const out: string[] = [];
  const walk = (members: Node[], prefix: string) => {
    for (const m of members) {
      if (!Node.isPropertySignature(m)) continue;
      const key = m.getName().replace(/^"|"$/g, "");
      const path = prefix ? `${prefix}.${key}` : key;
      out.push(path);
      const t = m.getTypeNode();
      if (t && Node.isTypeLiteral(t)) walk(t.getMembers(), path);
    }
  };
  walk(decl.getMembers(), "");
  return out.sort();
}

/** Parse schema.json; throws SchemaError naming the file when it is not JSON. */
export function parseSchemaJson(path: string, text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new SchemaError(`${path}: invalid JSON: ${(err as Error).message}`);
  }
}

/** `jsonSchema`: the text of schema.json, or the parsed (and errata-patched) object. */
export function extractModel(tsPath: string, tsText: string, jsonPath: string, jsonSchema: string | Record<string, unknown>): SchemaModel {
  const sf = parseSchemaTs(tsPath, tsText);
  const json = typeof jsonSchema === "string" ? parseSchemaJson(jsonPath, jsonSchema) : jsonSchema;
  const definitionsKey = "$defs" in json ? "$defs" : "definitions";
  const defs = json[definitionsKey] as Record<string, { properties?: Record<string, unknown> }> | undefined;
  if (!defs || typeof defs !== "object") throw new SchemaError(`${jsonPath}: no "definitions" or "$defs" object`);

  const latest = sf.getVariableDeclaration("LATEST_PROTOCOL_VERSION")?.getInitializer();
  if (!latest || !Node.isStringLiteral(latest)) throw new SchemaError(`${tsPath}: no LATEST_PROTOCOL_VERSION string constant`);

  const errorCodes: SchemaModel["errorCodes"] = [];
  for (const stmt of sf.getVariableStatements()) {
    if (!stmt.isExported()) continue;
    for (const d of stmt.getDeclarations()) {
      const init = d.getInitializer();
      if (init && Node.isPrefixUnaryExpression(init) && init.getOperatorToken() === SyntaxKind.MinusToken) {
        errorCodes.push({ name: d.getName(), code: -Number(init.getOperand().getText()) });
      }
    }
  }

  const byMethod = new Map<string, MethodFact>();
  const add = (union: string, kind: MethodKind, direction: Direction) => {
    if (!sf.getTypeAlias(union)) return;
    for (const typeName of unionMembers(sf, union)) {
      const method = literalMethod(sf, typeName);
      if (!method) throw new SchemaError(`${tsPath}: ${union} member ${typeName} has no string literal "method"`);
      const existing = byMethod.get(method);
      if (existing) {
        if (!existing.directions.includes(direction)) existing.directions.push(direction);
        continue;
      }
      const paramsNode = findProperty(sf, typeName, "params");
      const paramsType = paramsNode && Node.isTypeReference(paramsNode) ? paramsNode.getTypeName().getText() : null;
      let resultType: string | null = null;
      if (kind !== "notification") {
        const candidate = typeName.replace(/Request$/, "Result");
        resultType = sf.getInterface(candidate) || sf.getTypeAlias(candidate) ? candidate : "EmptyResult";
      }
      byMethod.set(method, { method, kind, directions: [direction], typeName, paramsType, resultType });
    }
  };
  add("ClientRequest", "request", "client→server");
  add("ServerRequest", "request", "server→client");
  add("InputRequest", "inputRequest", "server→client");
  add("ClientNotification", "notification", "client→server");
  add("ServerNotification", "notification", "server→client");
  const methods = [...byMethod.values()].sort((a, b) => (a.method < b.method ? -1 : a.method > b.method ? 1 : 0));
  for (const m of methods) m.directions.sort();

  const metaKeys = new Set<string>();
  for (const p of sf.getDescendantsOfKind(SyntaxKind.PropertySignature)) {
    const name = p.getName().replace(/^"|"$/g, "");
    if (/^io\.modelcontextprotocol\//.test(name)) metaKeys.add(name);
  }

  const cacheableResults = sf
    .getInterfaces()
    .map((i) => i.getName())
    .filter((n) => extendsTransitively(sf, n, "CacheableResult"))
    .sort();

  // `XResultResponse { result: XResult | InputRequiredResult }` marks the methods that may answer input_required.
  const inputRequiredResults = new Set<string>();
  for (const i of sf.getInterfaces()) {
    const result = i.getProperty("result")?.getTypeNode();
    if (result && Node.isUnionTypeNode(result)) {
      const names = result.getTypeNodes().map((t) => t.getText());
      if (names.includes("InputRequiredResult")) names.filter((n) => n !== "InputRequiredResult").forEach((n) => inputRequiredResults.add(n));
    }
  }
  const inputRequiredMethods = methods.filter((m) => m.resultType && inputRequiredResults.has(m.resultType)).map((m) => m.method);

  const probe = methods.find((m) => m.kind === "request" && m.directions.includes("client→server"));
  const requestTypesIncludeEnvelope = probe ? findProperty(sf, probe.typeName, "jsonrpc") !== undefined : false;

  const definitions: Record<string, string[]> = {};
  for (const name of Object.keys(defs).sort()) {
    const props = (defs[name]?.properties ?? {}) as Record<string, { properties?: Record<string, unknown> }>;
    // Inline `params` objects (older revisions declare params in place) contribute `params.<field>` entries.
    const inline = Object.keys(props.params?.properties ?? {}).map((k) => `params.${k}`);
    definitions[name] = [...Object.keys(props), ...inline].sort();
  }

  const declarations: string[] = [];
  for (const s of sf.getStatements()) {
    if (Node.isInterfaceDeclaration(s) || Node.isTypeAliasDeclaration(s) || Node.isVariableStatement(s)) {
      if ((s as InterfaceDeclaration | TypeAliasDeclaration).isExported()) declarations.push(Node.isVariableStatement(s) ? s.getDeclarations()[0].getName() : s.getName());
    }
  }

  return {
    latestProtocolVersion: latest.getLiteralValue(),
    methods,
    errorCodes,
    capabilities: { server: capabilityPaths(sf, "ServerCapabilities"), client: capabilityPaths(sf, "ClientCapabilities") },
    metaKeys: [...metaKeys].sort(),
    cacheableResults,
    inputRequiredMethods,
    requestTypesIncludeEnvelope,
    definitions,
    definitionsKey,
    dialect: String(json.$schema ?? ""),
    declarations,
  };
}

/** Infer a revision's era from its schema: `server/discover` means modern, `initialize` legacy. */
export function inferEra(model: SchemaModel): "legacy" | "modern" {
  const names = new Set(model.methods.map((m) => m.method));
  if (names.has("server/discover")) return "modern";
  if (names.has("initialize")) return "legacy";
  throw new SchemaError("cannot infer era: the schema defines neither initialize nor server/discover");
}
