/**
 * Emits one revision's ajv standalone validators (`out/<revision>/validators.js`
 * and its `.d.ts`): one validating function per schema definition, plus lookup
 * tables by method so that dispatch validates a message against its own
 * definition and never against the big anyOf unions.
 *
 * draft-07 schemas compile with Ajv, 2020-12 schemas with Ajv2020; both with
 * ajv-formats and strict mode, so an unknown keyword or format is an error.
 */
import { Ajv, type Options } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";
import addFormats from "ajv-formats";
import type { SchemaModel } from "./extract.js";
import type { SchemaErratum } from "./overlay.js";
import { inlineFormats } from "./inline-formats.js";
import { requestModulePath } from "./request-modules.js";
import { SchemaError } from "./sync.js";

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

const SCHEMA_MAPS = new Set(["properties", "patternProperties", "definitions", "$defs", "dependentSchemas"]);

/**
 * Drop `description` annotations (not `properties.description`!) so the
 * standalone code, which embeds schema objects, stays small; validation
 * is unchanged because annotations never affect it.
 */
function stripAnnotations(node: unknown, isMap = false): unknown {
  if (Array.isArray(node)) return node.map((n) => stripAnnotations(n));
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!isMap && key === "description" && typeof value === "string") continue;
    out[key] = isMap ? stripAnnotations(value) : stripAnnotations(value, SCHEMA_MAPS.has(key));
  }
  return out;
}

/** Identifier-safe export name of a definition's validator: `validate<Definition>`. */
export function validatorName(definition: string): string {
  return `validate${definition.replace(/[^A-Za-z0-9_$]/g, "_")}`;
}

function makeAjv(dialect: string, warnings: string[]) {
  const options: Options = {
    strict: true,
    allowUnionTypes: true, // RequestId is "type": ["string", "integer"] in every revision

    allErrors: false,
    inlineRefs: false, // one function per definition, shared by reference: 4x smaller code
    // lines: one statement a line, since prettier does not lay this code out (generate.ts).
    code: { source: true, esm: true, lines: true, optimize: true },
    logger: { log: () => {}, warn: (...a: unknown[]) => warnings.push(a.join(" ")), error: (...a: unknown[]) => warnings.push(a.join(" ")) },
  };
  if (dialect === DRAFT_07) return new Ajv(options);
  if (dialect === DRAFT_2020_12) return new Ajv2020(options);
  throw new SchemaError(`unsupported JSON Schema dialect ${JSON.stringify(dialect)}`);
}

/**
 * ajv standalone code still calls `require(...)` for its runtime helpers (ajv-formats' format checks, ajv's `equal`,
 * `ucs2length`): turn each into a static ESM default import, whose value is the CommonJS `module.exports` that
 * `require` returns in Node, Bun, Deno and a bundler (esbuild for Workers) alike. `createRequire(import.meta.url)`
 * would not do: workerd has no `import.meta.url`, and a bundler does not follow a require made at run time.
 * A package subpath without an extension gets `.js`, which ESM resolution needs when the package has no `exports`.
 */
export function esmRequires(code: string): string {
  const bindings = new Map<string, string>();
  const body = code.replace(/\brequire\("([^"]+)"\)/g, (_, specifier: string) => {
    if (!bindings.has(specifier)) bindings.set(specifier, `__require${bindings.size}`);
    return bindings.get(specifier)!;
  });
  const imports = [...bindings].map(([specifier, name]) => {
    const file = /^(@[^/]+\/)?[^/]+\/.+/.test(specifier) && !/\.[cm]?js$/.test(specifier) ? `${specifier}.js` : specifier;
    return `import ${name} from ${JSON.stringify(file)};\n`;
  });
  return imports.join("") + body;
}

/**
 * Emits `validators.js` (every definition) and `dispatch-validators.js`: only what a server validates on every
 * inbound message (client requests and notifications, and the results a client returns to input requests), with the
 * code those reach. The dispatch module is what a server loads at start; it is a fraction of the full one.
 */
export function emitValidators(
  jsonPath: string,
  schemaJson: Record<string, unknown>,
  model: SchemaModel,
  errata: readonly SchemaErratum[] = [],
): { js: string; dts: string; dispatchJs: string; dispatchDts: string; requestModules: { method: string; path: string; js: string; dts: string }[] } {
  // Say in the generated file which upstream defects were patched, so a reader of a validator knows why it differs.
  const errataNote = errata.map((e) => `// Schema erratum ${e.pointer}: ${e.cite}.\n`).join("");
  const warnings: string[] = [];
  const ajv = makeAjv(model.dialect, warnings);
  addFormats.default(ajv);
  const id = "mcp";
  const { $schema: _dialect, ...body } = stripAnnotations(schemaJson) as Record<string, unknown>;
  try {
    ajv.addSchema({ ...body, $id: id }, id);
  } catch (err) {
    throw new SchemaError(`${jsonPath}: ${(err as Error).message}`);
  }
  const refs: Record<string, string> = {};
  for (const name of Object.keys(model.definitions)) refs[validatorName(name)] = `${id}#/${model.definitionsKey}/${name}`;
  let code: string;
  try {
    for (const ref of Object.values(refs)) ajv.getSchema(ref);
    code = standaloneCode.default(ajv, refs);
  } catch (err) {
    throw new SchemaError(`${jsonPath}: ajv cannot compile: ${(err as Error).message}`);
  }
  if (warnings.length) throw new SchemaError(`${jsonPath}: ajv strict mode warnings: ${warnings[0]}`);

  const envelope = model.requestTypesIncludeEnvelope ? "" : "JSONRPC";
  const table = (kind: string, direction: string) =>
    model.methods
      .filter((m) => m.kind === kind && m.directions.includes(direction as never))
      .map((m) => `  ${JSON.stringify(m.method)}: ${validatorName(m.typeName)},`)
      .join("\n");
  const results = model.methods
    .filter((m) => m.resultType && model.definitions[m.resultType])
    .map((m) => `  ${JSON.stringify(m.method)}: ${validatorName(m.resultType!)},`)
    .join("\n");
  const js =
    `// Generated by create-mcp-server from ${model.latestProtocolVersion}/schema.json. Do not edit.\n` +
    errataNote +
    esmRequires(inlineFormats(code).replace(/^"use strict";/, "")) +
    `\n/** Client→server request method → validator of its request message. */\nexport const clientRequestValidators = {\n${table("request", "client→server")}\n};\n` +
    `/** Server→client request method → validator of its request message. */\nexport const serverRequestValidators = {\n${table("request", "server→client")}\n};\n` +
    `/** Client→server notification method → validator. */\nexport const clientNotificationValidators = {\n${table("notification", "client→server")}\n};\n` +
    `/** Server→client notification method → validator. */\nexport const serverNotificationValidators = {\n${table("notification", "server→client")}\n};\n` +
    `/** Input request method (modern MRTR) → validator. */\nexport const inputRequestValidators = {\n${table("inputRequest", "server→client")}\n};\n` +
    `/** Request method → validator of its result. */\nexport const resultValidators = {\n${results}\n};\n` +
    `/** Whether the method validators above cover the JSON-RPC envelope (jsonrpc, id); when false, validate it with validateJSONRPC${envelope ? "Request" : "Request"} too. */\n` +
    `export const requestTypesIncludeEnvelope = ${model.requestTypesIncludeEnvelope};\n`;
  // The dispatch subset: ajv standalone emits only the functions reachable from these exports.
  const inbound = model.methods.filter((m) => m.directions.includes("client→server") && m.kind !== "inputRequest");
  const asked = model.methods.filter((m) => m.directions.includes("server→client") && m.kind !== "notification" && m.resultType && model.definitions[m.resultType]);
  const dispatchRefs: Record<string, string> = {};
  for (const m of inbound) dispatchRefs[validatorName(m.typeName)] = refs[validatorName(m.typeName)];
  for (const m of asked) dispatchRefs[validatorName(m.resultType!)] = refs[validatorName(m.resultType!)];
  const dispatchCode = standaloneCode.default(ajv, dispatchRefs);
  const dispatchTable = (kind: string) =>
    inbound
      .filter((m) => m.kind === kind)
      .map((m) => `  ${JSON.stringify(m.method)}: ${validatorName(m.typeName)},`)
      .join("\n");
  const dispatchJs =
    `// Generated by create-mcp-server from ${model.latestProtocolVersion}/schema.json. Do not edit.\n` +
    `// The validators a server runs on every inbound message; validators.js has every definition.\n` +
    errataNote +
    esmRequires(inlineFormats(dispatchCode).replace(/^"use strict";/, "")) +
    `\n/** Client→server request method → validator of its request message. */\nexport const clientRequestValidators = {\n${dispatchTable("request")}\n};\n` +
    `/** Client→server notification method → validator. */\nexport const clientNotificationValidators = {\n${dispatchTable("notification")}\n};\n` +
    `/** Server→client request or input request method → validator of the result a client answers with. */\nexport const answerValidators = {\n${asked.map((m) => `  ${JSON.stringify(m.method)}: ${validatorName(m.resultType!)},`).join("\n")}\n};\n` +
    `export const requestTypesIncludeEnvelope = ${model.requestTypesIncludeEnvelope};\n`;
  const dispatchDts =
    `// Generated by create-mcp-server. Do not edit.\n` +
    `export interface Validator { (data: unknown): boolean; errors?: { instancePath: string; schemaPath: string; keyword: string; params: Record<string, unknown>; message?: string }[] | null }\n` +
    Object.keys(dispatchRefs)
      .map((n) => `export declare const ${n}: Validator;`)
      .join("\n") +
    `\nexport declare const clientRequestValidators: Record<string, Validator>;\nexport declare const clientNotificationValidators: Record<string, Validator>;\n` +
    `export declare const answerValidators: Record<string, Validator>;\nexport declare const requestTypesIncludeEnvelope: boolean;\n`;

  // One module per client request method (request-modules.ts), its validator exported as `validate`. Dispatch
  // validates a request with its inputResponses emptied: their entries are validated when a handler uses them, each
  // against the result of the method it asked (spec/2026-07-28/basic/patterns/mrtr.mdx#error-handling). So these
  // modules check only that inputResponses is an object, and do not carry every answer's schema (CreateMessageResult,
  // ElicitResult: 74 of tools/call's 108 KB). dispatch-validators.js keeps the answers' validators.
  // (Revisions without MRTR use the compiled schema as it is.)
  const defs = body[model.definitionsKey] as Record<string, unknown> | undefined;
  let relaxed = ajv;
  if (defs?.InputResponses) {
    relaxed = makeAjv(model.dialect, warnings);
    addFormats.default(relaxed);
    relaxed.addSchema({ ...body, [model.definitionsKey]: { ...defs, InputResponses: { type: "object" } }, $id: id }, id);
  }
  const requestModules = inbound
    .filter((m) => m.kind === "request")
    .map((m) => {
      const ref = refs[validatorName(m.typeName)];
      relaxed.getSchema(ref);
      const code = standaloneCode.default(relaxed, { validate: ref });
      const js =
        `// Generated by create-mcp-server from ${model.latestProtocolVersion}/schema.json. Do not edit.\n` +
        `// The ${m.method} request's validator (${m.typeName}), loaded when a client first calls it; inputResponses entries are validated when used.\n` +
        errataNote +
        esmRequires(inlineFormats(code).replace(/^"use strict";/, "")) +
        "\n";
      const dts =
        `// Generated by create-mcp-server. Do not edit.\n` +
        `export interface Validator {\n  (data: unknown): boolean;\n  errors?: { instancePath: string; schemaPath: string; keyword: string; params: Record<string, unknown>; message?: string }[] | null;\n}\n` +
        `export declare const validate: Validator;\n`;
      return { method: m.method, path: requestModulePath(m.method), js, dts };
    });
  if (warnings.length) throw new SchemaError(`${jsonPath}: ajv strict mode warnings: ${warnings[0]}`);

  const names = Object.keys(refs);
  const dts =
    `// Generated by create-mcp-server. Do not edit.\n` +
    `export interface ValidationError { instancePath: string; schemaPath: string; keyword: string; params: Record<string, unknown>; message?: string }\n` +
    `export interface Validator { (data: unknown): boolean; errors?: ValidationError[] | null }\n` +
    names.map((n) => `export declare const ${n}: Validator;`).join("\n") +
    `\nexport declare const clientRequestValidators: Record<string, Validator>;\nexport declare const serverRequestValidators: Record<string, Validator>;\n` +
    `export declare const clientNotificationValidators: Record<string, Validator>;\nexport declare const serverNotificationValidators: Record<string, Validator>;\n` +
    `export declare const inputRequestValidators: Record<string, Validator>;\nexport declare const resultValidators: Record<string, Validator>;\n` +
    `export declare const requestTypesIncludeEnvelope: boolean;\n`;
  return { js, dts, dispatchJs, dispatchDts, requestModules };
}

/**
 * `out/loaders.ts`: per revision, a loader of each validators module with a static specifier, each module loaded on
 * first use. A specifier computed at run time (`import(\`./${revision}/...\`)`) is one that Deno asks read permission
 * for and that a bundler can only guess at; these are resolved ahead of time by both.
 */
export function emitLoaders(revisions: readonly { id: string; requestMethods: readonly string[] }[]): string {
  const table = (file: string) => revisions.map((r) => `  ${JSON.stringify(r.id)}: () => import(${JSON.stringify(`./${r.id}/${file}`)}),`).join("\n");
  const requests = revisions
    .map((r) => {
      const entries = r.requestMethods.map((m) => `    ${JSON.stringify(m)}: () => import(${JSON.stringify(`./${r.id}/${requestModulePath(m)}`)}),`).join("\n");
      return `  ${JSON.stringify(r.id)}: {\n${entries}\n  },`;
    })
    .join("\n");
  return (
    `// Generated by create-mcp-server. Do not edit.\n` +
    `import type { Revision } from "./rules.js";\n\n` +
    `/** \`<revision>/requests/<method>.js\`: one client request method's validator (\`validate\`), loaded when first called. */\n` +
    `export const requestValidatorLoaders: Record<Revision, Readonly<Record<string, () => Promise<unknown>>>> = {\n${requests}\n};\n\n` +
    `/** \`<revision>/dispatch-validators.js\`: every inbound message's validators, the answers' to input requests among them. */\n` +
    `export const dispatchValidatorLoaders: Record<Revision, () => Promise<unknown>> = {\n${table("dispatch-validators.js")}\n};\n\n` +
    `/** \`<revision>/validators.js\`: every definition (large; loaded only to check outgoing results). */\n` +
    `export const validatorLoaders: Record<Revision, () => Promise<unknown>> = {\n${table("validators.js")}\n};\n`
  );
}
