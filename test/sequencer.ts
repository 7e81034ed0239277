/**
 * The order test files start in: the longest first, so that the workers finish together instead of one running a
 * long file alone at the end. vitest orders by the durations of the last run when it has them, and otherwise (a fresh
 * clone, as on CI) by file size, which put the longest files (a 5-line basic.test.ts, a short registry test) last.
 * The files below took over 40 s each in a whole run on a loaded 2-core machine (2026-12-02, npm run bench:suite),
 * longest first (their shares of the run's installed projects made by whichever starts first); the rest keep vitest's order.
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const LONGEST = [
  "test/release/registry.test.ts",
  "test/scaffold/basic.test.ts",
  "test/scaffold/small-fixes.test.ts",
  "test/generator/cli.test.ts",
  "test/scaffold/upgrade.test.ts",
  "test/scaffold/devx.test.ts",
  "test/scaffold/cli.test.ts",
  "test/deploy/scale-out.test.ts",
  "test/scaffold/everything.test.ts",
  "test/scaffold/auth.test.ts",
  "test/scaffold/upgrade-old.test.ts",
  "test/codegen/manifest-errors.test.ts",
  "test/scaffold/auth-dev.test.ts",
  "test/runtime/tasks-shared-adversarial.test.ts",
  "test/runtime/stdio.test.ts",
  "test/generator/errata.test.ts",
  "test/codegen/generate.test.ts",
  "test/runtime/tasks-shared.test.ts",
  "test/runtime/tasks.test.ts",
];

export default class LongestFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST.indexOf(relative(this.ctx.config.root, f.moduleId).split("\\").join("/"));
      return i < 0 ? LONGEST.length : i;
    };
    return [...ordered].sort((a, b) => rank(a) - rank(b));
  }
}
