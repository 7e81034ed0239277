/**
 * Bundles a Workers module with esbuild for workerd (`nodejs_compat`), as wrangler would: one ES module, node:*
 * left to workerd's built-ins, the `workerd`/`worker`/`browser` export conditions.
 *
 * Two things of the built runtime do not load in workerd as they are, and this bundler works around them (each
 * rewrite is reported, so a test can show which ones were still needed; see the hosts report):
 *  - `const require = createRequire(import.meta.url);` at module scope (runtime/src/schema.ts and every generated
 *    validators module, for ajv / ajv-formats): workerd has no `import.meta.url`, so createRequire throws at import
 *    and the whole runtime fails to load. Dropping the line leaves plain `require(...)` calls that esbuild bundles.
 *  - `createRequire(import.meta.url)("node:crypto")` (runtime/src/mrtr.ts): replaced by `process.getBuiltinModule`,
 *    which workerd, Node >= 20.16, Bun and Deno all have.
 * The template-literal `import(`../../out/${revision}/${file}`)` (runtime/src/rules.ts) needs no help: esbuild turns
 * it into a map of every file under runtime/dist/out, each still loaded on first use.
 *
 * It also serves `hosts:echo-validator`: ajv standalone code for app.ts's ECHO_INPUT, since workerd forbids the
 * code generation from strings that ajv's compile needs.
 */
import { build, type Plugin } from "esbuild";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { ECHO_INPUT } from "./app.ts";

const MODULE_SCOPE_REQUIRE = /^const require = createRequire\(import\.meta\.url\);$/m;
const LAZY_CRYPTO = 'createRequire(import.meta.url)("node:crypto")';

export interface Bundle {
  outfile: string;
  bytes: number;
  /** Runtime files (relative to runtime/dist) that needed each rewrite. */
  rewrites: { moduleScopeRequire: string[]; lazyCrypto: string[] };
}

export async function bundleWorker(entry: string, outfile: string): Promise<Bundle> {
  const rewrites: Bundle["rewrites"] = { moduleScopeRequire: [], lazyCrypto: [] };
  const runtimeForWorkerd: Plugin = {
    name: "runtime-for-workerd",
    setup(b) {
      b.onLoad({ filter: /[\\/]runtime[\\/]dist[\\/].*\.js$/ }, async (args) => {
        let text = await readFile(args.path, "utf8");
        const rel = args.path.replace(/^.*[\\/]runtime[\\/]dist[\\/]/, "");
        if (MODULE_SCOPE_REQUIRE.test(text)) {
          text = text.replace(MODULE_SCOPE_REQUIRE, "");
          rewrites.moduleScopeRequire.push(rel);
        }
        if (text.includes(LAZY_CRYPTO)) {
          text = text.replaceAll(LAZY_CRYPTO, 'process.getBuiltinModule("node:crypto")');
          rewrites.lazyCrypto.push(rel);
        }
        return { contents: text, loader: "js" };
      });
    },
  };
  const echoValidator: Plugin = {
    name: "echo-validator",
    setup(b) {
      b.onResolve({ filter: /^hosts:echo-validator$/ }, (args) => ({ path: args.path, namespace: "hosts" }));
      b.onLoad({ filter: /.*/, namespace: "hosts" }, () => {
        const require = createRequire(import.meta.url);
        const { Ajv2020 } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
        const standaloneCode = (require("ajv/dist/standalone/index.js") as typeof import("ajv/dist/standalone/index.js")).default;
        const ajv = new Ajv2020({ code: { source: true, esm: true }, strict: false });
        return { contents: standaloneCode(ajv, ajv.compile(ECHO_INPUT)), loader: "js" };
      });
    },
  };
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    external: ["node:*"],
    plugins: [runtimeForWorkerd, echoValidator],
    metafile: true,
    logLevel: "error",
  });
  const bytes = Object.values(result.metafile!.outputs).reduce((n, o) => n + o.bytes, 0);
  rewrites.moduleScopeRequire.sort();
  rewrites.lazyCrypto.sort();
  return { outfile, bytes, rewrites };
}
