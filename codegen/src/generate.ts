/**
 * `create-mcp-server-generate`: mcp.json → generated/, the typed contract between the manifest and the handlers in src/.
 *
 *   generated/types/tool-<file>.ts     argument types (json-schema-to-typescript); tool-<file>.result.ts: structured-result types
 *   generated/validators/<file>.*.ts   ajv standalone validators of each tool's inputSchema / outputSchema
 *   generated/handlers.ts              one handler interface per tool, prompt, resource and resource template
 *   generated/register.ts              imports every handler from src/ and registers it with the runtime
 *   generated/manifest.ts              the server's name, version, revisions and transports
 *
 * Run in the project (the nearest directory with an mcp.json, from the working directory up). The output is
 * deterministic, and files whose content did not change are not rewritten.
 */
import { join } from "node:path";
import { generatedFiles } from "./emit.js";
import { ManifestError } from "./errors.js";
import { clientReachWarning } from "./clients.js";
import { checkHandlers } from "./handlers-check.js";
import { loadManifest, projectRoot, readCheckedManifest } from "./manifest.js";
import type { Manifest } from "./manifest-types.js";
import { plural } from "./names.js";
import { projectRuntime } from "./runtime.js";
import { inputsDigest, upToDate, writeStamp } from "./stamp.js";
import { outputsDigest, writeFiles } from "./writer.js";

/** What a run did. */
export interface GenerateResult {
  /** The one line the command prints on stdout. */
  summary: string;
  /** mcp.json, checked. */
  manifest: Manifest;
}

/** Generate `<root>/generated` from `<root>/mcp.json`; throws ManifestError (one line per mistake) when mcp.json has any. */
export async function generate(root: string): Promise<GenerateResult> {
  const t0 = performance.now();
  const out = join(root, "generated");
  const runtime = projectRuntime(root);
  const inputs = inputsDigest(root, runtime);
  const ms = () => `${(performance.now() - t0).toFixed(0)} ms`;
  const current = upToDate(out, inputs);
  if (current) {
    const summary = `generated/: up to date, ${current.files} files from mcp.json, 0 written, 0 removed, sha256 ${current.outputs.slice(0, 12)}, ${ms()}`;
    return { summary, manifest: readCheckedManifest(root) };
  }
  const m = await loadManifest(root, runtime);
  const files = await generatedFiles(m);
  const { written, removed } = writeFiles(out, files);
  const outputs = outputsDigest(files);
  writeStamp(out, inputs, outputs);
  const counts = `${plural(m.tools.length, "tool")}, ${plural(m.prompts.length, "prompt")}, ${plural(m.resources.length + m.resourceTemplates.length, "resource")}`;
  const summary = `generated/: ${files.size} files from mcp.json (${counts}), ${written} written, ${removed} removed, sha256 ${outputs.slice(0, 12)}, ${ms()}`;
  return { summary, manifest: m };
}

/**
 * The command: generate in the project found from the working directory; `add tool|prompt|resource NAME` declares one
 * first (add.ts). Mistakes are lines on stderr and exit code 1.
 */
export async function main(args: readonly string[] = process.argv.slice(2)): Promise<void> {
  try {
    if (args[0] === "add") {
      const { add } = await import("./add.js");
      for (const line of await add(args.slice(1))) process.stdout.write(`${line}\n`);
      return;
    }
    const root = projectRoot();
    const { summary, manifest } = await generate(root);
    process.stdout.write(`${summary}\n`);
    // A warning, not a mistake: the server works, for clients that speak what it serves.
    // No "revisions": every revision the runtime knows, the legacy ones included.
    const unreachable = manifest.revisions && clientReachWarning(manifest.revisions);
    if (unreachable) process.stderr.write(`${unreachable}\n`);
    // After generated/ is written: a new handler is typed by the interface just generated for it.
    if (checkHandlers(root, manifest)) process.exitCode = 1;
  } catch (err) {
    // A mistake in the project is its lines; anything else is a bug of this package, shown with its stack.
    const lines = err instanceof ManifestError ? err.problems : [`generate: ${(err as Error)?.stack ?? String(err)}`];
    for (const line of lines) process.stderr.write(`${line}\n`);
    process.exitCode = 1;
  }
}
