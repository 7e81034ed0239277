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
const require = createRequire(import.meta.url);
let ajv2020: Ajv | undefined;
let ajv07: Ajv | undefined;

function withFormats(ajv: Ajv): Ajv {
  const formats = require("ajv-formats") as { default?: (a: Ajv) => void } & ((a: Ajv) => void);
  (formats.default ?? formats)(ajv);
  return ajv;
}

function engine(schema: Record<string, unknown>): Ajv {
  const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
  if (/draft-07/.test(dialect)) {
    const { Ajv: Ajv07 } = require("ajv") as typeof import("ajv");
    return (ajv07 ??= withFormats(new Ajv07({ strict: false, allErrors: false })));
  }
  const { Ajv2020 } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  return (ajv2020 ??= withFormats(new Ajv2020({ strict: false, allErrors: false }) as unknown as Ajv));
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

/** Compile `schema`; throws TypeError when it is not a valid JSON Schema. */
export function compileSchema(schema: Record<string, unknown>): SchemaValidator {
  try {
    return fromAjv(engine(schema).compile(schema));
  } catch (err) {
    throw new TypeError(`invalid JSON Schema: ${(err as Error).message}`, { cause: err });
  }
}
