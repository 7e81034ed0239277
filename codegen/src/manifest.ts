/**
 * Reading mcp.json: its text, then its syntax, its schema (mcp.schema.json) and what the schema cannot say, each
 * mistake reported as one line; and the manifest the emitters work from.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fail, ManifestError } from "./errors.js";
import { parseJson } from "./json-source.js";
import type { Manifest, McpJson } from "./manifest-types.js";
import { templateVariables } from "./names.js";
import { toolNameRule, type ProjectRuntime } from "./runtime.js";
import { schemaProblems } from "./schema-check.js";
import { semanticProblems } from "./semantic-check.js";

/** The project: the nearest directory holding an mcp.json, from `cwd` up (npm runs scripts at the package root). */
export function projectRoot(cwd: string = process.cwd()): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "mcp.json"))) return dir;
    if (dirname(dir) === dir) fail(`generate: no mcp.json in ${cwd} or above: run create-mcp-server-generate in a project`);
  }
}

/** mcp.json of `root`, checked against its schema and the project's runtime; every mistake found stops it (ManifestError). */
export async function loadManifest(root: string, runtime: ProjectRuntime): Promise<Manifest> {
  const value = parseJson(readFileSync(join(root, "mcp.json"), "utf8"));
  const shape = await schemaProblems(value, await toolNameRule(root));
  // The semantic checks read the shape the schema promises: they run once it holds.
  if (shape.length) throw new ManifestError(shape);
  const m = value as McpJson;
  const semantic = await semanticProblems(m, runtime.revisions, runtime.version);
  if (semantic.length) throw new ManifestError(semantic);
  return withDefaults(m);
}

/** mcp.json already checked (the inputs of an up-to-date generated/ were), with the absent lists filled in. */
export function readCheckedManifest(root: string): Manifest {
  return withDefaults(JSON.parse(readFileSync(join(root, "mcp.json"), "utf8").replace(/^\uFEFF/, "")) as McpJson);
}

function withDefaults(m: McpJson): Manifest {
  return {
    ...m,
    tools: m.tools ?? [],
    prompts: (m.prompts ?? []).map((p) => ({ ...p, arguments: p.arguments ?? [] })),
    resources: m.resources ?? [],
    resourceTemplates: (m.resourceTemplates ?? []).map((r) => ({ ...r, variables: templateVariables(r.uriTemplate) })),
  };
}
