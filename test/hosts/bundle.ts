/**
 * Bundles a Workers module with esbuild for workerd (`nodejs_compat`), as wrangler would: one ES module, node:*
 * left to workerd's built-ins, the `workerd`/`worker`/`browser` export conditions. The built runtime is bundled as it
 * is: nothing of it is rewritten (it makes no `require` at module scope, its validator imports are static).
 *
 * It also serves `hosts:validators`: ajv standalone code for app.ts's tool schemas, made at bundle time, since
 * workerd forbids the code generation from strings that ajv's compile needs (a generated project ships the same kind
 * of precompiled validators in src/generated/validators/).
 */
import { build, type Plugin } from "esbuild";
import { createRequire } from "node:module";
import { ASK_INPUT, ECHO_INPUT } from "./app.ts";

export interface Bundle {
  outfile: string;
  bytes: number;
}

export async function bundleWorker(entry: string, outfile: string): Promise<Bundle> {
  const validators: Plugin = {
    name: "hosts-validators",
    setup(b) {
      b.onResolve({ filter: /^hosts:validators$/ }, (args) => ({ path: args.path, namespace: "hosts" }));
      b.onLoad({ filter: /.*/, namespace: "hosts" }, () => {
        const require = createRequire(import.meta.url);
        const { Ajv2020 } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
        const standaloneCode = (require("ajv/dist/standalone/index.js") as typeof import("ajv/dist/standalone/index.js")).default;
        const ajv = new Ajv2020({ code: { source: true, esm: true }, strict: false });
        ajv.addSchema({ ...ECHO_INPUT, $id: "echo" }).addSchema({ ...ASK_INPUT, $id: "ask" });
        return { contents: standaloneCode(ajv, { echo: "echo", ask: "ask" }), loader: "js" };
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
    plugins: [validators],
    metafile: true,
    logLevel: "error",
  });
  const bytes = Object.values(result.metafile!.outputs).reduce((n, o) => n + o.bytes, 0);
  return { outfile, bytes };
}
