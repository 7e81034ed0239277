/**
 * Compiles user JSON Schemas (tool inputSchema / outputSchema) with ajv.
 * 2020-12 is the default dialect (spec/2025-11-25/basic/index.mdx#json-schema-usage);
 * a schema whose `$schema` names draft-07 is compiled as draft-07.
 */
import { createRequire } from "node:module";
import type { Ajv, ValidateFunction } from "ajv";

export interface SchemaValidator {
  (data: unknown): boolean;
  /** One line describing why the last call returned false. */
  describe(): string;
}

// ajv is loaded on first compile only: generated projects pass precompiled (standalone) validators and never need it.
// So is the `require` that loads it: made at module scope it would throw on import where there is no
// `import.meta.url` (workerd), and the runtime would not load at all.
let load: NodeJS.Require | undefined;
let ajv2020: Ajv | undefined;
let ajv07: Ajv | undefined;

const require = (id: string): unknown => (load ??= createRequire(import.meta.url))(id);

function withFormats(ajv: Ajv): Ajv {
  const formats = require("ajv-formats") as { default?: (a: Ajv) => void } & ((a: Ajv) => void);
  (formats.default ?? formats)(ajv);
  return ajv;
}

const isDraft07 = (schema: Record<string, unknown>): boolean => typeof schema.$schema === "string" && /draft-07/.test(schema.$schema);

/** A fresh ajv for `schema`'s dialect (2020-12 unless `$schema` names draft-07). */
function newEngine(schema: Record<string, unknown>): Ajv {
  if (isDraft07(schema)) {
    const { Ajv: Ajv07 } = require("ajv") as typeof import("ajv");
    return withFormats(new Ajv07({ strict: false, allErrors: false }));
  }
  const { Ajv2020 } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  return withFormats(new Ajv2020({ strict: false, allErrors: false }) as unknown as Ajv);
}

/** The process's ajv for the tools' schemas, which it keeps (each is compiled once). */
function engine(schema: Record<string, unknown>): Ajv {
  return isDraft07(schema) ? (ajv07 ??= newEngine(schema)) : (ajv2020 ??= newEngine(schema));
}

let transient07: Ajv | undefined;
let transient2020: Ajv | undefined;
let transientCompiles = 0;
/** Compiles after which the transient ajvs are replaced: ajv's code scope keeps every compiled schema's values. */
const TRANSIENT_COMPILES_PER_ENGINE = 256;

/**
 * The ajv of schemas not kept (compileTransientSchema): emptied after each compile, and replaced every
 * TRANSIENT_COMPILES_PER_ENGINE compiles, so that what it holds is collected with the validators that use it.
 */
function transientEngine(schema: Record<string, unknown>): Ajv {
  if (++transientCompiles % TRANSIENT_COMPILES_PER_ENGINE === 0) transient07 = transient2020 = undefined;
  return isDraft07(schema) ? (transient07 ??= withMailbox(newEngine(schema))) : (transient2020 ??= withMailbox(newEngine(schema)));
}

/**
 * `format: "email"` as RFC 5321's Mailbox, which JSON Schema names (a user's `root@localhost`, `"john doe"@example.com`,
 * `user@[192.168.0.1]`): a local part, `@`, a domain or address literal without spaces. ajv-formats' pattern refuses
 * those, and a form's answer the user typed is no place to be stricter than the RFC.
 */
function withMailbox(ajv: Ajv): Ajv {
  return ajv.addFormat("email", (s: string) => {
    const at = s.lastIndexOf("@");
    return at > 0 && at < s.length - 1 && !/\s/.test(s.slice(at + 1)) && (s.startsWith('"') ? s.slice(0, at).endsWith('"') && at > 1 : !/[\s@]/.test(s.slice(0, at)));
  });
}

/**
 * Raised when this host cannot compile a JSON Schema at all: ajv compiles a schema to JavaScript source and evaluates
 * it, which workerd (Cloudflare Workers) forbids, and a bundle may not contain ajv. The remedy is the same everywhere:
 * a validator compiled ahead of time (ajv standalone code, as generated projects make for every tool), passed as the
 * tool's `validateInput` / `validateOutput`. One line, as it becomes a -32603 error's message.
 */
export class SchemaCompileUnavailableError extends Error {
  constructor(reason: string, cause?: unknown) {
    super(`this host cannot compile JSON Schemas at run time (${reason}): pass the tool a precompiled validateInput (and validateOutput), e.g. fromAjv(<ajv standalone code>); see docs/hosting.md`, {
      cause,
    });
    this.name = "SchemaCompileUnavailableError";
  }
}

const firstLine = (err: unknown): string => ((err as Error)?.message ?? String(err)).split("\n")[0];

let codeGeneration: { refused?: string } | undefined;
/** Why this host refuses to evaluate generated code (`new Function`), or undefined when it allows it; checked once. */
function codeGenerationRefused(): string | undefined {
  codeGeneration ??= (() => {
    try {
      new Function("return 0");
      return {};
    } catch (err) {
      return { refused: firstLine(err) };
    }
  })();
  return codeGeneration.refused;
}

/** Wrap an ajv-style validating function (compiled or standalone) as a SchemaValidator. */
export function fromAjv(fn: ValidateFunction | ((d: unknown) => boolean)): SchemaValidator {
  const v = ((data: unknown) => fn(data) as boolean) as SchemaValidator;
  v.describe = () => {
    const e = (fn as ValidateFunction).errors?.[0];
    if (!e) return "invalid";
    const extra = e.keyword === "additionalProperties" ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : "";
    return `${e.instancePath || "/"} ${e.message ?? e.keyword}${extra}`;
  };
  return v;
}

/**
 * Compile `schema`; throws TypeError when it is not a valid JSON Schema, SchemaCompileUnavailableError when this host
 * cannot compile one (code generation from strings disallowed, or no ajv to load).
 */
export function compileSchema(schema: Record<string, unknown>): SchemaValidator {
  return compileWith(engine, schema);
}

/**
 * Compile `schema` without the process keeping it (an elicitation's requestedSchema, one per ask): an ajv of its own
 * that forgets every schema after the compile, so that none accumulates and no `$id` meets a tool's or another
 * form's. Throws as compileSchema does.
 */
export function compileTransientSchema(schema: Record<string, unknown>): SchemaValidator {
  return compileWith(transientEngine, schema, (ajv) => ajv.removeSchema());
}

function compileWith(pick: (schema: Record<string, unknown>) => Ajv, schema: Record<string, unknown>, after?: (ajv: Ajv) => void): SchemaValidator {
  const refused = codeGenerationRefused();
  if (refused !== undefined) throw new SchemaCompileUnavailableError(refused);
  let ajv: Ajv;
  try {
    ajv = pick(schema);
  } catch (err) {
    throw new SchemaCompileUnavailableError(`ajv cannot be loaded: ${firstLine(err)}`, err);
  }
  try {
    return fromAjv(ajv.compile(schema));
  } catch (err) {
    throw new TypeError(`invalid JSON Schema: ${(err as Error).message}`, { cause: err });
  } finally {
    after?.(ajv);
  }
}
