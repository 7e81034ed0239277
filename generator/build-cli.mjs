// Builds the published command: generator/*.ts → dist/*.js (esbuild, one file each, no bundling), so that an install
// of create-mcp-server runs plain JavaScript and needs no TypeScript loader. Type-checking is `npm run typecheck`'s.
// The release tooling (generator/release.ts) is the maintainers' and is not part of the package.
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
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
});
