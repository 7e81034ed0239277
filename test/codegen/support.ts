/**
 * Temporary projects for the generator's suites: an mcp.json, handler files, and node_modules holding only the
 * runtime (a link to this checkout's built runtime/), as an installed project has it; the generator runs as the real
 * bin of codegen/ (built by `npm run build`).
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ROOT } from "../helpers.js";

export const BIN = join(ROOT, "codegen", "bin", "create-mcp-server-generate.js");

/** A folder under os.tmpdir() for one suite's projects; `remove` deletes it (call it in afterAll). */
export function workDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `cms-codegen-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The smallest valid mcp.json with one tool, to change in each case. */
export function minimalManifest(): Record<string, any> {
  return {
    name: "demo",
    version: "1.0.0",
    tools: [{ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }],
  };
}

/**
 * A project in `dir`: mcp.json (an object is written as JSON, a string as it is), the given files, and the runtime
 * installed (unless `runtime: false`).
 */
export function makeProject(dir: string, manifest: object | string, files: Record<string, string> = {}, options: { runtime?: boolean } = {}): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "demo", version: "1.0.0", type: "module", private: true }, null, 2));
  writeFileSync(join(dir, "mcp.json"), typeof manifest === "string" ? manifest : JSON.stringify(manifest, null, 2) + "\n");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  if (options.runtime ?? true) {
    mkdirSync(join(dir, "node_modules", "@create-mcp-server"), { recursive: true });
    symlinkSync(join(ROOT, "runtime"), join(dir, "node_modules", "@create-mcp-server", "runtime"));
  }
  return dir;
}

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `create-mcp-server-generate` in `cwd`, as a real process. */
export function generate(cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN], { cwd, encoding: "utf8" }, (err, stdout, stderr) => {
      const status = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : null) : 0;
      resolve({ status, stdout, stderr });
    });
  });
}
