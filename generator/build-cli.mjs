// Builds the published command: generator/*.ts → dist/*.js (esbuild, one file each), so that an install of
// create-mcp-server runs plain JavaScript and needs no TypeScript loader. Imports stay imports, except the few of the
// codegen's sources the command shares (its names): the package does not carry codegen/, so those are inlined.
// Type-checking is `npm run typecheck`'s.
// The release tooling (generator/release.ts) is the maintainers' and is not part of the package.
import { readdirSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// generator/openapi/ (the OpenAPI import) builds to dist/openapi/, beside the rest.
const sources = readdirSync(join(root, "generator"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && f !== "release.ts");
rmSync(join(root, "dist"), { recursive: true, force: true });
await build({
  entryPoints: sources.map((f) => join(root, "generator", f)),
  outdir: join(root, "dist"),
  outbase: join(root, "generator"),
  format: "esm",
  platform: "node",
  target: "node20",
  logLevel: "warning",
  bundle: true,
  plugins: [inlineOnlyCodegen()],
});

/** Every import external (packages, node:, the command's own modules) but those that resolve into codegen/src. */
function inlineOnlyCodegen() {
  return {
    name: "inline-only-codegen",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === "entry-point") return undefined;
        if (!args.path.startsWith(".")) return { external: true };
        const target = relative(root, join(args.resolveDir, args.path));
        return target.startsWith("codegen/src/") ? undefined : { external: true };
      });
    },
  };
}
