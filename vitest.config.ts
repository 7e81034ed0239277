import { configDefaults, defineConfig } from "vitest/config";
import LongestFirst from "./test/sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Projects scaffolded by older releases (upgrade fixtures): their own tests run inside a scaffolded copy, not here.
    exclude: [...configDefaults.exclude, "test/fixtures/projects/**"],
    // One temporary folder per run, removed at the end (TMPDIR for the workers and their children).
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: "forks",
    // Three test files at a time on this 2-core machine (vitest would run one: cores - 1). The suites are mostly child
    // processes, installs and servers waiting on I/O: with the longest first, three finished the run in 465 s on CI's
    // kind of machine, two in 500-524 s. Timing-sensitive checks (RSS, progress pacing) are bounded loosely.
    maxWorkers: 3,
    minWorkers: 1,
    reporters: ["default"],
    sequence: { sequencer: LongestFirst },
  },
});
