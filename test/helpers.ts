/** Paths and process helpers shared by the test suites. */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const OUT = join(ROOT, "out");
export const CLI = join(ROOT, "bin", "create-mcp-server.js");

/** The upstream mirror (`MCP_SCHEMA_MIRROR`, default `../shared/schemas`): the tests read examples and spec pages there. */
export const MIRROR = resolve(ROOT, process.env.MCP_SCHEMA_MIRROR ?? "../shared/schemas");
export const SPEC = resolve(MIRROR, "..", "spec");

export function requireDir(dir: string, what: string): string {
  if (!existsSync(dir)) throw new Error(`${what} not found at ${dir}; set MCP_SCHEMA_MIRROR to the upstream schemas mirror`);
  return dir;
}

/** Run the CLI as a real process (asynchronously, so the test worker stays responsive). */
export function cli(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, ...env }, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const status = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : null) : 0;
      resolve({ status, stdout, stderr });
    });
  });
}
