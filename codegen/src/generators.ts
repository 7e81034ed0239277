/**
 * The code generators (ajv, json-schema-to-typescript, prettier), loaded on first use: an up-to-date generated/ is
 * confirmed without them, which is most runs of `npm run build`.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Ajv as AjvClass, Options as AjvOptions } from "ajv";

export interface Generators {
  /** A new ajv for `schema`: JSON Schema 2020-12, or draft-07 when its `$schema` names draft-07, with ajv-formats. */
  ajv(schema: Record<string, unknown>, options: AjvOptions): AjvClass;
  /** ajv's standalone code of a compiled validator. */
  standaloneCode: (ajv: AjvClass, validate: ReturnType<AjvClass["compile"]>) => string;
  compile: typeof import("json-schema-to-typescript").compile;
  prettier: typeof import("prettier");
}

let loaded: Promise<Generators> | undefined;

/** The generators, loaded once. */
export function generators(): Promise<Generators> {
  loaded ??= load();
  return loaded;
}

/** Whether a JSON Schema declares draft-07 (then ajv's draft-07 class checks it; anything else is 2020-12, MCP's default). */
export function isDraft07(schema: Record<string, unknown>): boolean {
  return typeof schema.$schema === "string" && /draft-07/.test(schema.$schema);
}

async function load(): Promise<Generators> {
  const [ajv, ajv2020, standalone, formats, jstt, prettier] = await Promise.all([
    import("ajv"),
    import("ajv/dist/2020.js"),
    import("ajv/dist/standalone/index.js"),
    import("ajv-formats"),
    import("json-schema-to-typescript"),
    import("prettier"),
  ]);
  // CommonJS modules seen from ESM: the default import is module.exports, whose `default` is the function.
  const addFormats = formats.default.default;
  return {
    ajv(schema, options) {
      const instance = isDraft07(schema) ? new ajv.Ajv(options) : new ajv2020.Ajv2020(options);
      addFormats(instance);
      return instance;
    },
    standaloneCode: (instance, validate) => standalone.default.default(instance, validate),
    compile: jstt.compile,
    prettier,
  };
}

/** The packages this module loads, with the versions installed beside this package: what generated/ also depends on. */
export function generatorVersions(): string[] {
  const require = createRequire(import.meta.url);
  return ["ajv", "ajv-formats", "json-schema-to-typescript", "prettier"].map((pkg) => {
    try {
      return `${pkg}@${(JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), "utf8")) as { version: string }).version}`;
    } catch {
      return `${pkg}@?`; // not resolvable: loading the generators reports it if they are needed
    }
  });
}
