/**
 * Whether generated/ is up to date without running the generators: the stamp (generated/.inputs) holds the digest of
 * what the last run was made from and of what it wrote. A run whose inputs and outputs still match has nothing to do,
 * and its mcp.json was already checked (the stamp is written only after a run that checked it).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generatorVersions } from "./generators.js";
import type { ProjectRuntime } from "./runtime.js";
import { SCHEMA_PATH } from "./schema-check.js";
import { currentFiles, listFiles, outputsDigest, STAMP } from "./writer.js";

/**
 * sha256 of what generated/ is made from and checked against: mcp.json, this package's code and schema, the versions
 * of the generators, and the project's runtime (its version and rules data: the revisions mcp.json may name).
 */
export function inputsDigest(root: string, runtime: ProjectRuntime): string {
  const h = createHash("sha256").update(readFileSync(join(root, "mcp.json")));
  const dist = fileURLToPath(new URL(".", import.meta.url));
  for (const file of listFiles(dist).filter((f) => f.endsWith(".js")))
    h.update(file)
      .update("\0")
      .update(readFileSync(join(dist, file)));
  h.update(readFileSync(SCHEMA_PATH));
  for (const v of generatorVersions()) h.update(v);
  return h.update(`runtime@${runtime.version}`).update(readFileSync(runtime.rulesJson)).digest("hex");
}

/** The files of generated/ when the stamp says they are what the last run wrote from these same inputs; else undefined. */
export function upToDate(out: string, inputs: string): { files: number; outputs: string } | undefined {
  const stampPath = join(out, STAMP);
  if (!existsSync(stampPath)) return undefined;
  const [stampedInputs, stampedOutputs] = readFileSync(stampPath, "utf8").trim().split("\n");
  if (stampedInputs !== inputs) return undefined;
  const current = currentFiles(out);
  const outputs = outputsDigest(current);
  // Every output still as that run wrote it: nothing edited or lost.
  return stampedOutputs === outputs ? { files: current.length, outputs } : undefined;
}

/** Record that generated/ (with the digest `outputs`) was made from `inputs`. */
export function writeStamp(out: string, inputs: string, outputs: string): void {
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, STAMP), `${inputs}\n${outputs}\n`);
}
