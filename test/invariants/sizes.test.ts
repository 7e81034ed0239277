/**
 * Invariant: the runtime stays readable in pieces. No class over 250 lines, no function over 60 lines, no parameter
 * list over 5 in runtime/src (the generated rules module aside). A piece kept over a bound is listed in KEPT with
 * why; an entry that no longer applies fails too, so the list cannot go stale.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

const SRC = join(ROOT, "runtime", "src");
const MAX_CLASS_LINES = 250;
const MAX_FUNCTION_LINES = 60;
const MAX_PARAMETERS = 5;

/** Pieces kept over a bound, as `measure` names them, with the reason. */
const KEPT: Record<string, string> = {};

/** Each class, function and parameter list over its bound in one source text, e.g. `function route: 69 lines`. */
export function measure(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lines = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getEnd()).line - sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const nameOf = (n: ts.Node): string => {
    const own = (n as { name?: ts.Node }).name;
    if (own) return own.getText(sf);
    const p = n.parent;
    if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p))) return p.name.getText(sf);
    return "<anonymous>";
  };
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if ((ts.isClassDeclaration(n) || ts.isClassExpression(n)) && lines(n) > MAX_CLASS_LINES) out.push(`class ${nameOf(n)}: ${lines(n)} lines`);
    if (ts.isFunctionLike(n) && "body" in n && n.body) {
      if (lines(n) > MAX_FUNCTION_LINES) out.push(`function ${nameOf(n)}: ${lines(n)} lines`);
      if (n.parameters.length > MAX_PARAMETERS) out.push(`function ${nameOf(n)}: ${n.parameters.length} parameters`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")) yield p;
  }
}

describe("the size scan", () => {
  it("measures classes, functions, methods and arrow functions", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  x${i}();`).join("\n");
    const text = [
      `class Big {\n${body(250)}\n}`,
      `class Small {\n  m(a, b, c, d, e, f) {}\n  n() {\n${body(59)}\n  }\n}`,
      `function long() {\n${body(59)}\n}`,
      `const arrow = (a, b, c, d, e) => {\n${body(58)}\n};`,
    ].join("\n");
    expect(measure("x.ts", text)).toEqual(["class Big: 252 lines", "function m: 6 parameters", "function n: 61 lines", "function long: 61 lines"]);
  });
});

describe("runtime sizes", () => {
  const found = [...sources(SRC)].filter((f) => f !== join(SRC, "rules.ts")).flatMap((f) => measure(f, readFileSync(f, "utf8")).map((m) => `${relative(SRC, f).split(sep).join("/")} ${m}`));

  it(`no class over ${MAX_CLASS_LINES} lines, no function over ${MAX_FUNCTION_LINES} lines, no parameter list over ${MAX_PARAMETERS}, but those kept (and why)`, () => {
    expect(found.filter((f) => !(f in KEPT))).toEqual([]);
  });

  it("every piece kept over a bound is still over it", () => {
    expect(Object.keys(KEPT).filter((k) => !found.includes(k))).toEqual([]);
  });
});
