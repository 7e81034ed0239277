/**
 * Invariant: revision facts live in one place. Outside generator/overlay.ts (and an errata file next to it, where
 * revision facts are written by hand and reviewed as data), runtime/src and generator/ neither spell a revision id
 * nor order revisions by their string value. Revision order is declaration order (schemas/manifest.json, emitted as
 * `compareRevisions` in out/rules.ts); a future revision is not guaranteed to be date-shaped, and a hand-written id
 * is a rule that the rules module does not know about.
 *
 * The scan parses the source with the TypeScript compiler and its type checker. The heuristic, chosen so that an
 * unrelated date or string comparison is not a finding:
 *
 * - Revision literal: a string literal (or template literal without substitutions, or a literal type) whose whole
 *   text is `YYYY-MM-DD`, the shape of every revision id. Comments are not literals, so spec citations in comments
 *   are fine; a date inside a longer string (an error message citing a page) is fine.
 * - Revision-ish expression: its type is a revision (a union of date-shaped string literals, such as `Revision`,
 *   or an array of it), or it is a string-like value whose name says revision: the identifier, property or
 *   element-access key is `rev`/`revs` or contains `revision` or `protocolVersion` (`revision`, `negotiatedRevision`,
 *   `r.protocolVersion`). Numbers are never revision-ish, so `revisions.length > 1` and
 *   `revisionIndex < n` pass. A call such as `revisions.map(...)`, `.filter(...)`, `.slice()` or a spread
 *   `[...revisions]` carries the name of the array it is called on.
 * - Relational comparison: `<`, `>`, `<=`, `>=` with a revision-ish operand; `a.localeCompare(b)` with a
 *   revision-ish `a` or `b`; `.sort()`/`.toSorted()` without a comparator on a revision-ish array; and a comparator
 *   passed to `.sort`/`.toSorted` of a revision-ish array that itself compares with `<`, `>`, `<=`, `>=` or
 *   `localeCompare` (`ids.sort((a, b) => (a < b ? -1 : 1))`).
 *
 * The first describe block holds the scanner to a truth table, so a weakened heuristic fails here too.
 */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

const DATE_SHAPED = /^\d{4}-\d{2}-\d{2}$/;
const REVISION_NAME = /^revs?$|revision|protocolversion/i;
const RELATIONAL = new Set([ts.SyntaxKind.LessThanToken, ts.SyntaxKind.GreaterThanToken, ts.SyntaxKind.LessThanEqualsToken, ts.SyntaxKind.GreaterThanEqualsToken]);
/** Array methods whose result is (a part of) the same array: the result is named after the receiver. */
const CARRIES_NAME = new Set(["map", "filter", "slice", "concat", "flat", "flatMap", "toSorted", "toReversed", "reverse", "sort"]);
const SORTS = new Set(["sort", "toSorted"]);

export interface Finding {
  file: string;
  line: number;
  what: string;
}

/** Strip wrappers that do not change what value an expression is: `(x)`, `x!`, `x as T`, `<T>x`, `x satisfies T`. */
function unwrap(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e) || ts.isTypeAssertionExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
  return e;
}

/** The name an expression goes by, for the name half of the heuristic. */
function nameOf(e: ts.Expression): string | undefined {
  e = unwrap(e);
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (ts.isElementAccessExpression(e)) {
    // obj["key"] goes by its key; revisions[i] is an element of `revisions`.
    return ts.isStringLiteralLike(e.argumentExpression) ? e.argumentExpression.text : nameOf(e.expression);
  }
  if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && CARRIES_NAME.has(e.expression.name.text)) return nameOf(e.expression.expression);
  if (ts.isArrayLiteralExpression(e) && e.elements.length === 1 && ts.isSpreadElement(e.elements[0])) return nameOf(e.elements[0].expression);
  return undefined;
}

function isDateLiteralType(t: ts.Type): boolean {
  return t.isStringLiteral() && DATE_SHAPED.test(t.value);
}

/** A revision by type: a date-shaped literal, a union of them (optionally with undefined/null), or an array of one. */
function isRevisionType(t: ts.Type, checker: ts.TypeChecker): boolean {
  if (checker.isArrayType(t) || checker.isTupleType(t)) {
    const args = checker.getTypeArguments(t as ts.TypeReference);
    return args.length > 0 && args.every((a) => isRevisionType(a, checker));
  }
  if (t.isUnion()) {
    const parts = t.types.filter((p) => !(p.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)));
    return parts.length > 0 && parts.every((p) => isRevisionType(p, checker));
  }
  return isDateLiteralType(t);
}

function isNumberish(t: ts.Type): boolean {
  const flags = t.isUnion() ? t.types.reduce((f, p) => f | p.flags, 0) : t.flags;
  return (flags & (ts.TypeFlags.NumberLike | ts.TypeFlags.BigIntLike)) !== 0 && (flags & ts.TypeFlags.StringLike) === 0;
}

function isRevisionish(e: ts.Expression, checker: ts.TypeChecker): boolean {
  const t = checker.getTypeAtLocation(e);
  if (isNumberish(t)) return false;
  if (isRevisionType(t, checker)) return true;
  const name = nameOf(e);
  return name !== undefined && REVISION_NAME.test(name);
}

/** Relational comparisons (or localeCompare) anywhere inside a comparator function. */
function comparesAsStrings(fn: ts.Node): boolean {
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isBinaryExpression(n) && RELATIONAL.has(n.operatorToken.kind)) found = true;
    else if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === "localeCompare") found = true;
    else ts.forEachChild(n, visit);
  };
  ts.forEachChild(fn, visit);
  return found;
}

export function scan(sf: ts.SourceFile, checker: ts.TypeChecker, file = sf.fileName): Finding[] {
  const findings: Finding[] = [];
  const add = (n: ts.Node, what: string) => findings.push({ file, line: sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1, what: `${what}: ${n.getText(sf).slice(0, 120)}` });
  const visit = (n: ts.Node): void => {
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && DATE_SHAPED.test(n.text)) add(n, "revision literal");
    else if (ts.isBinaryExpression(n) && RELATIONAL.has(n.operatorToken.kind)) {
      if (isRevisionish(n.left, checker) || isRevisionish(n.right, checker)) add(n, "relational comparison of revisions");
    } else if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
      const method = n.expression.name.text;
      const receiver = n.expression.expression;
      if (method === "localeCompare" && (isRevisionish(receiver, checker) || (n.arguments[0] !== undefined && isRevisionish(n.arguments[0], checker)))) {
        add(n, "localeCompare of revisions");
      } else if (SORTS.has(method) && isRevisionish(receiver, checker)) {
        const cmp = n.arguments[0];
        if (cmp === undefined) add(n, `.${method}() of revisions in string order`);
        else if ((ts.isArrowFunction(cmp) || ts.isFunctionExpression(cmp)) && comparesAsStrings(cmp)) add(n, `.${method}() of revisions by a string comparator`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return findings;
}

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  allowJs: true,
  checkJs: false,
  allowImportingTsExtensions: true,
  resolveJsonModule: true,
  types: ["node"],
};

/** Where revision facts are written by hand: the overlay and an errata file next to it. */
const HAND_WRITTEN_FACTS = /^generator\/(overlay|errata)([.-][^/]*)?\.(ts|mts|js|mjs)$/;

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== "node_modules") yield* sources(p);
    } else if (/\.(ts|mts|js|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts")) yield p;
  }
}

describe("the scanner (truth table)", () => {
  const SNIPPET = `
    type Revision = "2024-11-05" | "2025-11-25";
    declare const revision: Revision;
    declare const other: Revision | undefined;
    declare const ids: string[];
    declare const revisions: string[];
    declare const manifest: { revisions: { id: string; protocolVersion: string }[] };
    declare const deadline: number;
    declare function compareRevisions(a: Revision, b: Revision): number;
    const a1 = revision === "2025-11-25";
    const a2 = revision < other!;
    const a3 = manifest.revisions[0].protocolVersion >= ids[0];
    const a4 = revisions.sort();
    const a5 = manifest.revisions.map((r) => r.id).sort();
    const a6 = [...revisions].sort((x, y) => (x < y ? -1 : 1));
    const a7 = revisions[0].localeCompare(ids[0]);
    const a8 = \`2026-07-28\`;
    const ok1 = revisions.length > 1;
    const ok2 = Date.now() > deadline;
    const ok3 = ids.sort();
    const ok4 = [revision].sort(compareRevisions);
    const ok5 = "released 2025-11-25 (see spec)";
    const ok6 = ids.indexOf(revision) < ids.indexOf(other!);
    const ok7 = revisions.sort((x, y) => ids.indexOf(x) - ids.indexOf(y));
    // "2025-11-25" in a comment is fine
  `;
  const findings = (() => {
    const name = join(ROOT, "test", "invariants", "__snippet__.ts");
    const host = ts.createCompilerHost(COMPILER_OPTIONS);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (f, lang, ...rest) => (f === name ? ts.createSourceFile(f, SNIPPET, lang, true) : getSourceFile(f, lang, ...rest));
    host.fileExists = (
      (exists) => (f: string) =>
        f === name || exists(f)
    )(host.fileExists.bind(host));
    const program = ts.createProgram([name], COMPILER_OPTIONS, host);
    return scan(program.getSourceFile(name)!, program.getTypeChecker());
  })();
  const lineOf = (v: string) => SNIPPET.split("\n").findIndex((l) => l.includes(`const ${v} `)) + 1;

  it.each(["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"])("flags %s", (v) => {
    expect(findings.map((f) => f.line)).toContain(lineOf(v));
  });
  it.each(["ok1", "ok2", "ok3", "ok4", "ok5", "ok6", "ok7"])("passes %s", (v) => {
    expect(findings.filter((f) => f.line === lineOf(v))).toEqual([]);
  });
});

describe("no revision literal and no string ordering of revisions outside the overlay", () => {
  const files = ["runtime/src", "generator"].flatMap((d) => [...sources(join(ROOT, d))]).filter((f) => !HAND_WRITTEN_FACTS.test(relative(ROOT, f)));
  const program = ts.createProgram(files, COMPILER_OPTIONS);
  const checker = program.getTypeChecker();

  it("scans the runtime and the generator", () => {
    expect(files.some((f) => relative(ROOT, f).startsWith("runtime/src/"))).toBe(true);
    expect(files.map((f) => relative(ROOT, f))).toContain("generator/scaffold.ts");
    expect(files.map((f) => relative(ROOT, f))).not.toContain("generator/overlay.ts");
  });

  for (const root of ["runtime/src", "generator"]) {
    it(root, () => {
      const found = files
        .filter((f) => relative(ROOT, f).startsWith(`${root}/`))
        .flatMap((f) => scan(program.getSourceFile(f)!, checker, relative(ROOT, f)))
        .map((f) => `${f.file}:${f.line}: ${f.what}`);
      if (found.length) console.error(`${root}: ${found.length} revision finding(s):\n${found.join("\n")}`);
      expect(found).toEqual([]);
    });
  }
});
