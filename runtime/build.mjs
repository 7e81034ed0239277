// Builds the runtime package: tsc (runtime/src and the generated out/ modules) into dist/,
// copies the generated ajv standalone validators and the rules data, and writes the dist/index entry.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { build as bundle } from "esbuild";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "out");
if (!existsSync(join(out, "rules.ts"))) {
  console.error("runtime build: ../out/rules.ts is missing; run 'npm run generate' first");
  process.exit(1);
}
// Build into a temporary directory and swap it in, so a server running from dist/ never sees it half-built.
const tmp = join(here, `dist.tmp-${process.pid}`);
const old = join(here, `dist.old-${process.pid}`);
rmSync(tmp, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
try {
  execFileSync(process.execPath, [tsc, "-p", join(here, "tsconfig.json"), "--outDir", tmp], { stdio: "inherit" });
} catch {
  // tsc reported the errors above; leave dist/ as it was and no half-built directory behind.
  rmSync(tmp, { recursive: true, force: true });
  process.exit(1);
}
for (const revision of readdirSync(out, { withFileTypes: true }).filter((d) => d.isDirectory())) {
  const target = join(tmp, "out", revision.name);
  mkdirSync(target, { recursive: true });
  for (const f of ["validators.js", "validators.d.ts", "dispatch-validators.js", "dispatch-validators.d.ts", "requests"]) cpSync(join(out, revision.name, f), join(target, f), { recursive: true });
}
// The rules as data (the package's "./rules.json" export): a project's tests read what each revision requires from
// it, never from the runtime's code, so a runtime that breaks a rule fails them; `create-mcp-server upgrade` diffs it.
cpSync(join(out, "rules.json"), join(tmp, "out", "rules.json"));
// The entry is bundled (esbuild, code-split at the lazy imports of the HTTP side): Node loads ~40 ESM files one by one
// (30 ms at start-up, against 12 ms for the bundle), and a stdio server is measured on its cold start. The generated
// validators stay separate files, loaded on first use as before; so do the npm dependencies. The tsc output of every
// module (dist/out/rules.js too, the package's "./rules" export) stays beside it for the declarations.
await bundle({
  // Paths in the bundle's comments are relative to the build directory, whose name has the pid in it: the same
  // sources then build to the same bytes (a vendored tarball's name carries a hash of them).
  absWorkingDir: tmp,
  entryPoints: [join(tmp, "runtime", "src", "index.js")],
  outdir: join(tmp, "runtime", "src"),
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  chunkNames: "bundle-[name]-[hash]",
  // The rules module is bundled in (its predicates are then plain calls, not getters of a re-exported namespace); the
  // validator loaders stay a file of their own, beside the validators they import.
  external: ["../../out/loaders.js", "ajv", "ajv/*", "ajv-formats", "ajv-formats/*", "eventsource-parser", "jose", "@opentelemetry/api", "node:*"],
  // The package's version, as RUNTIME_VERSION (runtime/src/index.ts).
  define: { __RUNTIME_VERSION__: JSON.stringify(JSON.parse(readFileSync(join(here, "package.json"), "utf8")).version) },
  logLevel: "warning",
});
writeFileSync(join(tmp, "index.js"), 'export * from "./runtime/src/index.js";\n');
writeFileSync(join(tmp, "index.d.ts"), 'export * from "./runtime/src/index.js";\n');
const dist = join(here, "dist");
if (existsSync(dist)) renameSync(dist, old);
renameSync(tmp, dist);
rmSync(old, { recursive: true, force: true });
