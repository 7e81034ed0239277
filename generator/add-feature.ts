/**
 * `create-mcp-server add tool|prompt|resource NAME`, inside a project: runs the project's own code generator
 * (`create-mcp-server-generate add …` of its installed @create-mcp-server/codegen), which knows the project's
 * handler types and name rules: it writes the mcp.json entry, the handler file and a test stub, then regenerates.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { CODEGEN_PACKAGE, ScaffoldError } from "./scaffold-options.js";

/** The nearest directory holding an mcp.json, from `cwd` up. */
function projectRoot(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "mcp.json"))) return dir;
    if (dirname(dir) === dir) throw new ScaffoldError(`add: no mcp.json in ${cwd} or above: run it inside a project made by create-mcp-server`);
  }
}

/** The project's `create-mcp-server-generate`, if its codegen has `add`. */
function codegenBin(root: string): string {
  let pkgPath: string;
  try {
    pkgPath = createRequire(join(root, "package.json")).resolve(`${CODEGEN_PACKAGE}/package.json`);
  } catch {
    throw new ScaffoldError(`add: ${CODEGEN_PACKAGE} is not installed in ${root}: run npm install first`);
  }
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { version: string; bin: Record<string, string> };
  if (!existsSync(join(dirname(pkgPath), "dist", "add.js")))
    throw new ScaffoldError(`add: the project's ${CODEGEN_PACKAGE} ${pkg.version} has no add command: run \`npx create-mcp-server@latest upgrade\` first`);
  return join(dirname(pkgPath), pkg.bin["create-mcp-server-generate"]);
}

/** Runs the project's `add`; its lines go to this process's stdout and stderr. Returns its exit code. */
export function addCommand(kind: string, name: string, opts: { dir?: string }): number {
  const root = projectRoot(opts.dir ?? process.cwd());
  const r = spawnSync(process.execPath, [codegenBin(root), "add", kind, name], { cwd: root, stdio: "inherit" });
  return r.status ?? 1;
}
