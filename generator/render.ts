/**
 * Rendering out/: every file of every revision, in memory, formatted by prettier (but the validators: ajv's
 * standalone code, one statement a line, which nobody edits and which took four fifths of the time to format).
 * generate.ts writes it, or compares it with out/. Deterministic: rendering twice gives identical bytes.
 */
import { join, resolve } from "node:path";
import * as prettier from "prettier";
import { applyErrata, errataFor } from "./errata.js";
import { extractModel, inferEra, parseSchemaJson, type SchemaModel } from "./extract.js";
import type { Generated, GeneratedFile, GenerateOptions } from "./generate.js";
import { type Manifest, PROJECT_ROOT, loadManifest } from "./manifest.js";
import { buildRules, emitRulesModule } from "./rules.js";
import { SchemaError, readSchemaFiles } from "./sync.js";
import { emitErrors, emitTypes } from "./types.js";
import { clientRequestMethods, requestModulePath, sharedModule } from "./request-modules.js";
import { emitLoaders, emitValidators } from "./validators.js";

const PRETTIER: prettier.Options = { printWidth: 120 };

export async function render(options: GenerateOptions = {}): Promise<Generated> {
  const schemasDir = resolve(options.schemasDir ?? join(PROJECT_ROOT, "schemas"));
  const manifest: Manifest = loadManifest(join(schemasDir, "manifest.json"));
  const timings: Record<string, number> = { parse: 0, validators: 0, types: 0, format: 0 };
  const time = <T>(key: string, f: () => T): T => {
    const t0 = performance.now();
    try {
      return f();
    } finally {
      timings[key] += performance.now() - t0;
    }
  };
  // `formatted`: written laid out already (prettier would leave it as it is).
  const files: (GeneratedFile & { formatted?: boolean })[] = [];
  const inputs: { id: string; era: "legacy" | "modern"; model: SchemaModel; requestMethods: string[] }[] = [];
  for (const r of manifest.revisions) {
    const { ts, json, dir } = readSchemaFiles(r, schemasDir);
    const tsPath = join(dir, "schema.ts");
    const jsonPath = join(dir, "schema.json");
    // Errata first, so the validators and the rules data are built from the same corrected schema.
    const schemaJson = time("parse", () => applyErrata(r.id, parseSchemaJson(jsonPath, json), jsonPath));
    const model = time("parse", () => extractModel(tsPath, ts, jsonPath, schemaJson));
    const inferred = inferEra(model);
    if (inferred !== r.era) throw new SchemaError(`${tsPath}: manifest says era ${r.era} but the schema defines ${inferred === "modern" ? "server/discover" : "initialize"} (era ${inferred})`);
    const v = time("validators", () => emitValidators(jsonPath, schemaJson, model, errataFor(r.id)));
    // stamp.ts names the request modules from schema.json's ClientRequest union alone: the model must agree.
    const requestMethods = v.requestModules.map((m) => m.method).sort();
    const named = clientRequestMethods(schemaJson);
    if (requestMethods.join() !== named.join()) throw new SchemaError(`${jsonPath}: ClientRequest lists ${named.join(", ")}, but the types' client requests are ${requestMethods.join(", ")}`);
    const shared = sharedModule(requestMethods);
    if (shared) throw new SchemaError(`${jsonPath}: the request methods ${shared[0]} and ${shared[1]} would share the module ${requestModulePath(shared[1])}`);
    inputs.push({ id: r.id, era: r.era, model, requestMethods });
    files.push({ path: `${r.id}/validators.js`, content: v.js });
    files.push({ path: `${r.id}/validators.d.ts`, content: v.dts });
    files.push({ path: `${r.id}/dispatch-validators.js`, content: v.dispatchJs });
    files.push({ path: `${r.id}/dispatch-validators.d.ts`, content: v.dispatchDts });
    for (const m of v.requestModules) {
      files.push({ path: `${r.id}/${m.path}`, content: m.js, formatted: true });
      files.push({ path: `${r.id}/${m.path.replace(/\.js$/, ".d.ts")}`, content: m.dts, formatted: true });
    }
    files.push({ path: `${r.id}/types.ts`, content: time("types", () => emitTypes(tsPath, ts, model, r.id)) });
    files.push({ path: `${r.id}/index.ts`, content: `export * from "./types.js";\nexport * as errors from "./errors.js";\nexport * as validators from "./validators.js";\n` });
  }
  const rules = buildRules(inputs);
  for (const { id } of inputs) {
    const codes = Object.entries(rules.errorCodes).flatMap(([name, list]) => list.filter((c) => c.revisions.includes(id)).map((c) => ({ name, code: c.code, source: c.source })));
    files.push({ path: `${id}/errors.ts`, content: emitErrors(id, codes) });
  }
  const newest = inputs[inputs.length - 1].id;
  files.push({
    path: "latest.ts",
    content: `// The protocol types of the newest revision (${newest}): what handlers are typed with.\nexport * from "./${newest}/types.js";\nexport const LATEST_REVISION = ${JSON.stringify(newest)};\n`,
  });
  files.push({ path: "rules.json", content: JSON.stringify(rules, null, 2) + "\n" });
  files.push({ path: "rules.ts", content: emitRulesModule(rules) });
  files.push({ path: "loaders.ts", content: emitLoaders(inputs) });
  const t0 = performance.now();
  const formatted = await Promise.all(
    files.map(async ({ formatted, ...f }) => {
      // ajv's own layout (code.lines), as codegen leaves it too; the request modules' declarations are written laid out.
      if (formatted || f.path.endsWith("validators.js")) return f;
      const parser = f.path.endsWith(".json") ? "json" : f.path.endsWith(".js") ? "babel" : "typescript";
      return { path: f.path, content: await prettier.format(f.content, { ...PRETTIER, parser }) };
    }),
  );
  timings.format = performance.now() - t0;
  formatted.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files: formatted, rules, timings };
}
