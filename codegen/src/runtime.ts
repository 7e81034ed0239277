/**
 * The project's installed @create-mcp-server/runtime, resolved from the project directory: the revisions it knows
 * (its rules data) and its tool-name rule are what mcp.json is checked against, so a runtime upgrade moves them and
 * nothing here is a copy that could fall behind.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Revision } from "@create-mcp-server/runtime";
import { fail } from "./errors.js";

export const RUNTIME_PACKAGE = "@create-mcp-server/runtime";

/** The installed runtime: its version, where its files are, and its rules data. */
export interface ProjectRuntime {
  version: string;
  /** The resolved path of its package.json. */
  packageJson: string;
  /** The resolved path of its rules data (`@create-mcp-server/runtime/rules.json`). */
  rulesJson: string;
  /** Every revision the runtime serves, oldest first. */
  revisions: Revision[];
}

/** The runtime installed in `root` (resolved as the project's own code would), or a one-line mistake if there is none. */
export function projectRuntime(root: string): ProjectRuntime {
  const require = createRequire(join(root, "package.json"));
  let packageJson: string;
  let rulesJson: string;
  try {
    packageJson = require.resolve(`${RUNTIME_PACKAGE}/package.json`);
    rulesJson = require.resolve(`${RUNTIME_PACKAGE}/rules.json`);
  } catch {
    return fail(`generate: ${RUNTIME_PACKAGE} is not installed in ${root}: run npm install (mcp.json is checked against the revisions it knows)`);
  }
  const { version } = JSON.parse(readFileSync(packageJson, "utf8")) as { version: string };
  const rules = JSON.parse(readFileSync(rulesJson, "utf8")) as { revisions: { id: Revision }[] };
  return { version, packageJson, rulesJson, revisions: rules.revisions.map((r) => r.id) };
}

/** The runtime's own tool-name rule (its exported TOOL_NAME), loaded from the project's runtime. */
export async function toolNameRule(root: string): Promise<RegExp> {
  const entry = createRequire(join(root, "package.json")).resolve(RUNTIME_PACKAGE);
  const runtime = (await import(pathToFileURL(entry).href)) as typeof import("@create-mcp-server/runtime");
  return runtime.TOOL_NAME;
}
