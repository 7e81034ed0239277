/**
 * Compiles user JSON Schemas (tool inputSchema / outputSchema) with ajv.
 * 2020-12 is the default dialect (spec/2025-11-25/basic/index.mdx#json-schema-usage);
 * a schema whose `$schema` names draft-07 is compiled as draft-07.
 */
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

export interface SchemaValidator {
  (data: unknown): boolean;
  /** One line describing why the last call returned false. */
  describe(): string;
}

const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
let ajv2020: Ajv2020 | undefined;
let ajv07: Ajv | undefined;

function engine(schema: Record<string, unknown>): Ajv {
  const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
  if (/draft-07/.test(dialect)) {
    if (!ajv07) {
      ajv07 = new Ajv({ strict: false, allErrors: false });
      (addFormats as unknown as (a: Ajv) => void)(ajv07);
    }
    return ajv07;
  }
  if (!ajv2020) {
    ajv2020 = new Ajv2020({ strict: false, allErrors: false });
    (addFormats as unknown as (a: Ajv) => void)(ajv2020);
  }
  return ajv2020;
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
    throw new TypeError(`invalid JSON Schema: ${(err as Error).message}`);
  }
}
