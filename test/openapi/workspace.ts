/**
 * Projects imported from OpenAPI documents in process, without an install each: one workspace folder whose
 * node_modules links this checkout's runtime, codegen and @types/node, one folder per project under it (Node's
 * resolution climbs to the workspace's node_modules), the project's codegen run in process, and every project
 * type-checked by one `tsc --strict` program.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ROOT } from "../helpers.js";
import { tempDir } from "../scaffold/support.js";
import { DOCUMENT_DIR } from "../../generator/openapi/emit.js";
import { loadDocument } from "../../generator/openapi/load.js";
import { planImport, type ImportChanges } from "../../generator/openapi/project.js";
import { projectFormatter } from "../../generator/openapi/command.js";
import type { Filters } from "../../generator/openapi/select.js";

/**
 * Until the API client (src/api/client.ts, another branch of issue #23) lands: the signatures the handlers call, as
 * the contract between the importer and the client states them, declared and not implemented (type-checking only).
 */
export const CLIENT_STUB = `import type { ApiDescriptor, OperationDescriptor } from "./descriptor.js";
export interface ApiResponse<T> { status: number; headers: Record<string, string>; body: T }
export interface CallToolResultLike { content: { type: "text"; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean }
export declare function callOperation<T = unknown>(api: ApiDescriptor, op: OperationDescriptor, args: Record<string, unknown>, ctx?: unknown): Promise<ApiResponse<T>>;
export declare function callTool<T = unknown>(api: ApiDescriptor, op: OperationDescriptor, args: Record<string, unknown>, ctx?: unknown): Promise<CallToolResultLike>;
`;

export interface Workspace {
  dir: string;
}

/** A workspace: node_modules with the packages an imported project's code needs, and the tsconfig of the one program. */
export function workspace(prefix: string): Workspace {
  const dir = tempDir(prefix);
  const nm = join(dir, "node_modules");
  mkdirSync(join(nm, "@create-mcp-server"), { recursive: true });
  mkdirSync(join(nm, "@types"), { recursive: true });
  symlinkSync(join(ROOT, "runtime"), join(nm, "@create-mcp-server", "runtime"));
  symlinkSync(join(ROOT, "codegen"), join(nm, "@create-mcp-server", "codegen"));
  symlinkSync(join(ROOT, "node_modules", "@types", "node"), join(nm, "@types", "node"));
  const tsconfig = JSON.parse(readFileSync(join(ROOT, "templates", "_shared", "tsconfig.json"), "utf8")) as { compilerOptions: Record<string, unknown> };
  const compilerOptions: Record<string, unknown> = { ...tsconfig.compilerOptions, noEmit: true, incremental: false };
  delete compilerOptions.outDir;
  delete compilerOptions.tsBuildInfoFile;
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["projects/*/src/**/*.ts", "projects/*/generated/**/*.ts"] }, null, 2));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "openapi-workspace", private: true, type: "module" }));
  return { dir };
}

/** The files an import of `document` writes into a new project (what --from-openapi adds to the scaffold), written under projects/<id>. */
export async function importProject(ws: Workspace, id: string, document: string, filters: Filters = {}): Promise<{ dir: string; changes: ImportChanges }> {
  const dir = join(ws.dir, "projects", id);
  const d = await loadDocument(document);
  const mcp = { $schema: "./node_modules/@create-mcp-server/codegen/mcp.schema.json", name: id, version: "0.1.0", description: `Imported from ${document}`, transports: ["stdio", "http"] };
  const changes = await planImport(d, filters, { mcp, read: () => undefined }, await projectFormatter());
  changes.files.set("package.json", Buffer.from(JSON.stringify({ name: id, private: true, type: "module" })));
  changes.files.set("src/api/descriptor.ts", readFileSync(join(ROOT, "templates", "_openapi", "src", "api", "descriptor.ts")));
  changes.files.set("src/api/client.ts", Buffer.from(CLIENT_STUB));
  for (const [path, data] of changes.files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), data);
  }
  return { dir, changes };
}

/** The project's codegen (what `npm run generate` runs), in process. */
export async function codegen(dir: string): Promise<void> {
  const { generate } = (await import(join(ROOT, "codegen", "dist", "index.js"))) as { generate: (root: string) => Promise<unknown> };
  await generate(dir);
}

/**
 * One `tsc --strict` over the projects `ids` of the workspace (every project when absent): its diagnostics (empty when
 * all type-check). The default stack: the validators' exports are declared (codegen/src/validators.ts), so tsc no
 * longer walks ajv's code.
 */
export function typecheck(ws: Workspace, name = "all", ids?: string[]): Promise<string> {
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  let tsconfig = join(ws.dir, "tsconfig.json");
  if (ids) {
    tsconfig = join(ws.dir, `tsconfig.${name}.json`);
    const include = ids.flatMap((id) => [`projects/${id}/src/**/*.ts`, `projects/${id}/generated/**/*.ts`]);
    writeFileSync(tsconfig, JSON.stringify({ extends: "./tsconfig.json", include }, null, 2));
  }
  return new Promise((resolve) => {
    execFile(process.execPath, ["--max-old-space-size=4096", tsc, "-p", tsconfig, "--pretty", "false"], { cwd: ws.dir, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve(err ? `${stdout}${stderr}` || String(err) : ""),
    );
  });
}

export { DOCUMENT_DIR };
