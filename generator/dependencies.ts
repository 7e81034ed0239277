/**
 * The two packages of create-mcp-server a project depends on: @create-mcp-server/runtime (a dependency: it serves)
 * and @create-mcp-server/codegen (a devDependency: `npm run generate`). From a checkout (its runtime/ and codegen/ built;
 * the published command carries neither) each is packed into vendor/, named by its version and a hash of its content, so a changed
 * package never reuses a tarball that npm cached under the same name; otherwise both are the published packages of
 * this CLI's version.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { PROJECT_ROOT } from "./manifest.js";
import { shellQuote } from "./client-config.js";
import { packPackage } from "./pack.js";
import { CODEGEN_DIR, CODEGEN_PACKAGE, RUNTIME_DIR, RUNTIME_PACKAGE, refuse } from "./scaffold-options.js";

export interface RuntimeDependency {
  /** The dependency spec written into package.json. */
  spec: string;
  /** Files to write into the project (a vendored tarball), path → bytes. */
  files: Map<string, Buffer>;
  describe: string;
}

/** Whether a --runtime value names a tarball or directory rather than a published version, range or tag. */
export const looksLikePath = (s: string) => /^(file:|\.{0,2}\/|[A-Za-z]:\\)/.test(s) || s.endsWith(".tgz");

/** The vendored file name of a packed package: `vendor/<stem>-<version>-<first 12 hex of the tarball's sha256>.tgz`. */
export function vendoredName(stem: string, version: string, tarball: Buffer): string {
  return `vendor/${stem}-${version}-${createHash("sha256").update(tarball).digest("hex").slice(0, 12)}.tgz`;
}

/** `dir` (a package of this checkout, built) packed into vendor/; undefined when this CLI has no such folder. */
function vendored(dir: string, pkgName: string, stem: string): RuntimeDependency | undefined {
  const pkgPath = join(dir, "package.json");
  if (!existsSync(pkgPath)) return undefined;
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { version: string };
  if (!existsSync(join(dir, "dist", "index.js"))) {
    refuse(`${pkgName} in ${dir} is not built: run \`npm run build\` in ${PROJECT_ROOT} first, or pass --runtime <version> to use the published packages`);
  }
  const tarball = packPackage(dir);
  const target = vendoredName(stem, pkg.version, tarball);
  return { spec: `file:${target}`, files: new Map([[target, tarball]]), describe: `${pkgName} ${pkg.version} as bundled with create-mcp-server, packed into ${target}` };
}

/**
 * How a user runs this command again, in the words to print: `npx create-mcp-server` where it came from the registry;
 * from a checkout of this repository (its TypeScript sources beside bin/, which the published package does not hold),
 * `node <checkout>/bin/create-mcp-server.js`, as the registry may have no such package.
 */
export function commandLine(): string {
  if (!existsSync(join(PROJECT_ROOT, "generator", "cli.ts"))) return "npx create-mcp-server";
  const bin = join(PROJECT_ROOT, "bin", "create-mcp-server.js");
  return `node ${shellQuote(bin)}`;
}

/** The published package `pkgName` at this CLI's own version (`^<version>`). */
function published(pkgName: string): RuntimeDependency {
  const own = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string };
  return { spec: `^${own.version}`, files: new Map(), describe: `${pkgName}@^${own.version} from the registry` };
}

/**
 * Which runtime the project depends on:
 * - `--runtime <version|range|tag>`: the published package;
 * - `--runtime <path/to/runtime.tgz | file:dir>`: that tarball (copied into vendor/) or directory;
 * - otherwise, from a checkout with a built runtime (runtime/dist): this checkout's runtime, packed into vendor/;
 * - otherwise the published package of the same version as this command.
 */
export function runtimeDependency(runtime: string | undefined): RuntimeDependency {
  if (runtime !== undefined) {
    if (!looksLikePath(runtime)) return { spec: runtime, files: new Map(), describe: `${RUNTIME_PACKAGE}@${runtime} from the registry` };
    const path = resolve(runtime.replace(/^file:/, ""));
    if (!existsSync(path)) refuse(`--runtime ${runtime}: ${path} does not exist`);
    if (statSync(path).isDirectory()) return { spec: `file:${path}`, files: new Map(), describe: `${RUNTIME_PACKAGE} linked from ${path}` };
    const target = `vendor/${basename(path)}`;
    return { spec: `file:${target}`, files: new Map([[target, readFileSync(path)]]), describe: `${RUNTIME_PACKAGE} from ${target} (copied from ${path})` };
  }
  return vendored(RUNTIME_DIR, RUNTIME_PACKAGE, "create-mcp-server-runtime") ?? published(RUNTIME_PACKAGE);
}

/**
 * Which codegen the project develops with: the same published version when `--runtime` names one (the packages are
 * released in lockstep), else this checkout's codegen packed into vendor/ (also beside a runtime tarball or
 * directory), else the published package of this command's version.
 */
export function codegenDependency(runtime: string | undefined): RuntimeDependency {
  if (runtime !== undefined && !looksLikePath(runtime)) return { spec: runtime, files: new Map(), describe: `${CODEGEN_PACKAGE}@${runtime} from the registry` };
  return vendored(CODEGEN_DIR, CODEGEN_PACKAGE, "create-mcp-server-codegen") ?? published(CODEGEN_PACKAGE);
}
