/**
 * Invariant: the runtime's layers, re-derived from the source so that they cannot be weakened silently.
 *
 * runtime/src/{wire,protocol,server,transport,client}/, one request flowing transport → protocol → server:
 * - wire/ (JSON-RPC framing, encodings) imports nothing of the runtime but other wire/ files and the generated rules
 *   (runtime/src/rules.ts, or out/ directly): it is the bottom layer every other one may use.
 * - state/ (the task store, the message bus: state shared across requests and processes) imports only wire/ and the
 *   generated rules, so that protocol/, server/ and transport/ can all use it.
 * - transport/ does not import server/ (the feature modules): a transport moves classified messages, it does not
 *   know what a tool or a resource is.
 * - protocol/ imports neither transport/ nor client/: the protocol core serves any transport and either side.
 *
 * Every module reference counts: `import` and `import type`, `export ... from`, `import x = require()`, dynamic
 * `import()` (a template-literal specifier is resolved by its static prefix), and `typeof import()` types. The rules
 * are checked over direct imports; relative specifiers are resolved (`.js` → `.ts`), bare ones (packages, `node:`)
 * are outside the runtime and allowed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

const SRC = join(ROOT, "runtime", "src");
const LAYERS = ["wire", "state", "protocol", "server", "transport", "client"] as const;

/** Module specifiers referenced by a source text, with their line. */
export function moduleReferences(fileName: string, text: string): { specifier: string; line: number; prefixOnly: boolean }[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: { specifier: string; line: number; prefixOnly: boolean }[] = [];
  const add = (node: ts.Node, specifier: string, prefixOnly = false) => out.push({ specifier, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, prefixOnly });
  const visit = (n: ts.Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) add(n, n.moduleSpecifier.text);
    else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference) && ts.isStringLiteral(n.moduleReference.expression)) add(n, n.moduleReference.expression.text);
    else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) add(n, n.argument.literal.text);
    else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments.length) {
      const a = n.arguments[0];
      if (ts.isStringLiteralLike(a)) add(n, a.text);
      else if (ts.isTemplateExpression(a)) add(n, a.head.text, true);
      // A computed specifier with no static prefix cannot be checked; it must not hide an edge.
      else add(n, "<computed>");
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

function* tsFiles(dir: string): Generator<string> {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* tsFiles(p);
    else if (/\.(ts|mts)$/.test(e.name) && !e.name.endsWith(".d.ts")) yield p;
  }
}

/** The path a relative specifier names (a `.js` import of a `.ts` source resolves to the `.ts`). */
function resolveSpecifier(from: string, specifier: string): string {
  const p = resolve(dirname(from), specifier);
  for (const c of [p.replace(/\.(m?)js$/, ".$1ts"), p, `${p}.ts`, join(p, "index.ts")]) if (existsSync(c) && statSync(c).isFile()) return c;
  return p;
}

/** What a reference points at, as the rules see it. */
function target(from: string, specifier: string, prefixOnly: boolean): { kind: "package" } | { kind: "computed" } | { kind: "path"; path: string; layer?: string } {
  if (specifier === "<computed>") return { kind: "computed" };
  if (!specifier.startsWith(".") && !specifier.startsWith("/")) return { kind: "package" };
  const path = prefixOnly ? resolve(dirname(from), specifier) : resolveSpecifier(from, specifier);
  const rel = relative(SRC, path);
  const inSrc = !rel.startsWith("..") && !rel.startsWith(sep) && rel !== "";
  return { kind: "path", path, layer: inSrc ? rel.split(sep)[0] : undefined };
}

interface Edge {
  from: string;
  line: number;
  specifier: string;
  to: ReturnType<typeof target>;
}

function edges(): Edge[] {
  return [...tsFiles(SRC)].flatMap((file) =>
    moduleReferences(file, readFileSync(file, "utf8")).map((r) => ({ from: file, line: r.line, specifier: r.specifier, to: target(file, r.specifier, r.prefixOnly) })),
  );
}

const layerOf = (file: string) => relative(SRC, file).split(sep)[0];
const show = (e: Edge) => `runtime/src/${relative(SRC, e.from)}:${e.line} imports ${e.specifier}`;
const GENERATED_RULES = [join(SRC, "rules.ts"), join(ROOT, "out")];
const isGeneratedRules = (p: string) => p === GENERATED_RULES[0] || p === GENERATED_RULES[1] || p.startsWith(GENERATED_RULES[1] + sep);

describe("the import scan", () => {
  it("sees every kind of module reference", () => {
    const refs = moduleReferences(
      "x.ts",
      [
        `import a from "./a.js";`,
        `import type { B } from "./b.js";`,
        `export * from "./c.js";`,
        `export type { D } from "./d.js";`,
        `import e = require("./e.js");`,
        `type F = typeof import("./f.js");`,
        `const g = await import("./g.js");`,
        "const h = await import(`../out/${x}/h.js`);",
        `const i = await import(name);`,
        `import "./j.js";`,
      ].join("\n"),
    ).map((r) => r.specifier);
    expect(refs).toEqual(["./a.js", "./b.js", "./c.js", "./d.js", "./e.js", "./f.js", "./g.js", "../out/", "<computed>", "./j.js"]);
  });

  it("derives edges from the runtime source (the scan finds the generated rules module)", () => {
    const all = edges();
    expect(all.length).toBeGreaterThan(0);
    expect(all.some((e) => e.to.kind === "path" && isGeneratedRules(e.to.path))).toBe(true);
  });
});

/** The folder table of docs/architecture.md: each folder, the source files its row names, and what it may import. */
export function folderTable(markdown: string): { folder: string; files: string[]; mayImport: string[] }[] {
  const section = markdown.split(/^## /m).find((s) => s.startsWith("Folders"));
  if (!section) throw new Error("docs/architecture.md has no '## Folders' section");
  const ticks = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  return section
    .split("\n")
    .filter((l) => /^\| `[a-z]+\/` \|/.test(l))
    .map((l) => {
      const [, folder, what, may] = l.split("|").map((c) => c.trim());
      return { folder: ticks(folder)[0], files: ticks(what).filter((t) => /^[\w-]+\.ts$/.test(t)), mayImport: ticks(may) };
    });
}

/** Strongly connected components of more than one module (Tarjan), each a list of paths. */
export function importCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      scc.push(w);
      if (w === v) break;
    }
    if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(scc.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

describe("the cycle scan", () => {
  it("finds a cycle through any number of modules, and none in a chain", () => {
    const g = (pairs: [string, string][]) => {
      const m = new Map<string, string[]>();
      for (const [a, b] of pairs) m.set(a, [...(m.get(a) ?? []), b]).set(b, m.get(b) ?? []);
      return m;
    };
    expect(
      importCycles(
        g([
          ["a", "b"],
          ["b", "c"],
        ]),
      ),
    ).toEqual([]);
    expect(
      importCycles(
        g([
          ["a", "b"],
          ["b", "a"],
        ]),
      ),
    ).toEqual([["a", "b"]]);
    expect(
      importCycles(
        g([
          ["a", "b"],
          ["b", "c"],
          ["c", "a"],
          ["c", "d"],
        ]),
      ),
    ).toEqual([["a", "b", "c"]]);
    expect(importCycles(g([["a", "a"]]))).toEqual([["a"]]);
  });

  it("reads the folder table of docs/architecture.md", () => {
    const md = [
      "## Folders",
      "",
      "| folder | what | may import |",
      "| --- | --- | --- |",
      "| `wire/` | pure: `jsonrpc.ts` (`McpError`) | `rules.ts`, `wire/` |",
      "",
      "## Next",
      "| `x/` | `y.ts` | |",
    ].join("\n");
    expect(folderTable(md)).toEqual([{ folder: "wire/", files: ["jsonrpc.ts"], mayImport: ["rules.ts", "wire/"] }]);
  });
});

describe("runtime layering", () => {
  const all = edges();
  const table = folderTable(readFileSync(join(ROOT, "docs", "architecture.md"), "utf8"));

  it("has no import cycle in runtime/src, type-only imports included", () => {
    const graph = new Map<string, string[]>();
    for (const file of tsFiles(SRC)) graph.set(relative(SRC, file), []);
    for (const e of all) if (e.to.kind === "path" && e.to.layer !== undefined) graph.get(relative(SRC, e.from))!.push(relative(SRC, e.to.path));
    expect(importCycles(graph).map((c) => c.join(" → "))).toEqual([]);
  });

  it("docs/architecture.md's folder table names every folder of runtime/src, and only those", () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `${e.name}/`)
      .sort();
    expect(table.map((r) => r.folder).sort()).toEqual(folders);
    expect(folders).toEqual(expect.arrayContaining(LAYERS.map((l) => `${l}/`)));
  });

  it("each row names every source file of its folder, and only files that exist", () => {
    const wrong: Record<string, { unnamed: string[]; missing: string[] }> = {};
    for (const row of table) {
      const present = [...tsFiles(join(SRC, row.folder))].map((f) => f.split(sep).pop()!);
      const named = new Set(row.files);
      const unnamed = present.filter((f) => !named.has(f)).sort();
      const missing = [...named].filter((f) => !present.includes(f)).sort();
      if (unnamed.length || missing.length) wrong[row.folder] = { unnamed, missing };
    }
    expect(wrong).toEqual({});
  });

  it("the table's layers form no cycle (a folder may import only folders below it)", () => {
    const graph = new Map(table.map((r) => [r.folder, r.mayImport.filter((m) => m.endsWith("/") && m !== r.folder)]));
    expect(importCycles(graph)).toEqual([]);
  });

  it("every folder imports only what its row of docs/architecture.md allows", () => {
    const bad: string[] = [];
    for (const e of all) {
      const row = table.find((r) => r.folder === `${layerOf(e.from)}/`);
      if (!row) continue; // top-level files (index.ts, rules.ts) are the entry and the generated rules
      if (e.to.kind === "computed") bad.push(`${show(e)} (a computed specifier)`);
      if (e.to.kind !== "path") continue;
      const allowed = isGeneratedRules(e.to.path) ? row.mayImport.includes("rules.ts") : e.to.layer !== undefined && (e.to.layer === layerOf(e.from) || row.mayImport.includes(`${e.to.layer}/`));
      if (!allowed) bad.push(show(e));
    }
    expect(bad).toEqual([]);
  });

  it.each(LAYERS)("runtime/src/%s/ exists and holds source", (layer) => {
    expect(existsSync(join(SRC, layer)), `runtime/src/${layer}/ is missing`).toBe(true);
    expect([...tsFiles(join(SRC, layer))].length, `runtime/src/${layer}/ has no .ts file`).toBeGreaterThan(0);
  });

  const from = (layer: string) => all.filter((e) => layerOf(e.from) === layer);

  it("wire/ imports nothing of the runtime but wire/ and the generated rules", () => {
    const bad = from("wire").filter((e) => e.to.kind === "computed" || (e.to.kind === "path" && !isGeneratedRules(e.to.path) && e.to.layer !== "wire"));
    expect(bad.map(show)).toEqual([]);
  });

  it("state/ (the stores and the bus every layer may share) imports nothing of the runtime but state/, wire/ and the generated rules", () => {
    const bad = from("state").filter((e) => e.to.kind === "computed" || (e.to.kind === "path" && !isGeneratedRules(e.to.path) && e.to.layer !== "state" && e.to.layer !== "wire"));
    expect(bad.map(show)).toEqual([]);
  });

  it("transport/ does not import server/", () => {
    const bad = from("transport").filter((e) => e.to.kind === "computed" || (e.to.kind === "path" && e.to.layer === "server"));
    expect(bad.map(show)).toEqual([]);
  });

  it("server/ (the features a handler registers) imports none of protocol/, transport/ and client/", () => {
    const bad = from("server").filter((e) => e.to.kind === "computed" || (e.to.kind === "path" && ["protocol", "transport", "client"].includes(e.to.layer ?? "")));
    expect(bad.map(show)).toEqual([]);
  });

  it("client/ imports nothing of the runtime but client/, wire/ and the generated rules", () => {
    const bad = from("client").filter((e) => e.to.kind === "computed" || (e.to.kind === "path" && !isGeneratedRules(e.to.path) && e.to.layer !== "client" && e.to.layer !== "wire"));
    expect(bad.map(show)).toEqual([]);
  });

  it("protocol/ imports neither transport/ nor client/", () => {
    const bad = from("protocol").filter((e) => e.to.kind === "computed" || (e.to.kind === "path" && (e.to.layer === "transport" || e.to.layer === "client")));
    expect(bad.map(show)).toEqual([]);
  });
});
