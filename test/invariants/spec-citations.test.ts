/**
 * Invariant: every `spec/<revision>/<page>.mdx#<anchor>` cited in the hand-written source (runtime/src, generator/,
 * templates/, bench/, bin/) names a pinned spec page (synced to schemas/spec/) and a heading on that page. A citation is
 * how a reviewer checks a rule against the spec, so one that points nowhere is a defect, not a typo.
 *
 * Placeholders (`spec/<revision>/...`, `spec/${r}/...`) are not citations of one page and are skipped; the resolved
 * citations of the overlay's rules are checked by test/generator/cli.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";
import { citationProblem, isConcreteSegment } from "../spec-pages.js";

const ROOTS = ["runtime/src", "generator", "templates", "bench", "bin"];
const TEXT = /\.(ts|mts|js|mjs|cjs|hbs|md|mdx|json)$/;
const SKIP_DIRS = new Set(["node_modules", "dist", ".generated"]);

function* files(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) yield* files(p);
    } else if (TEXT.test(e.name)) yield p;
  }
}

/**
 * `spec/` not preceded by a word character, a revision segment, a path ending in a word character (so a sentence's
 * full stop is not part of it) and an optional anchor.
 */
const CITATION = /(?<![\w-])spec\/([^\s/]+)\/([\w./-]*[\w-])(?:#([\w-]*\w))?/g;

interface Citation {
  where: string;
  cite: string;
}

function citations(): Citation[] {
  const out: Citation[] = [];
  for (const root of ROOTS) {
    for (const file of files(join(ROOT, root))) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          for (const m of line.matchAll(CITATION)) {
            if (!isConcreteSegment(m[1])) continue;
            out.push({ where: `${relative(ROOT, file)}:${i + 1}`, cite: m[0] });
          }
        });
    }
  }
  return out;
}

describe("every spec citation in the source resolves to a page and heading", () => {
  const all = citations();

  it("finds the citations (the scan itself works)", () => {
    // The runtime cites the transports page in many places; an empty scan means the pattern or the roots broke.
    expect(all.filter((c) => c.where.startsWith("runtime/src/")).length).toBeGreaterThan(10);
    expect(all.some((c) => c.cite === "spec/2025-11-25/basic/transports.mdx#stdio")).toBe(true);
  });

  it("no citation is broken", () => {
    const broken = all.flatMap(({ where, cite }) => {
      const problem = citationProblem(cite);
      return problem ? [`${where}: ${cite}: ${problem}`] : [];
    });
    if (broken.length) console.error(`broken spec citations (${broken.length}):\n${broken.join("\n")}`);
    expect(broken).toEqual([]);
  });
});
