/**
 * The run's temporary folder (test/global-setup.ts): every worker and child process writes under one folder that
 * teardown removes, and a folder left by a killed run is removed at a later start once it is a day old.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import setup, { RUN_PREFIX, removeStale } from "../global-setup.js";
import { ROOT } from "../helpers.js";

describe("one temporary folder per run", () => {
  it("is the worker's tmpdir() and its child processes' (TMPDIR, TMP, TEMP)", () => {
    expect(basename(tmpdir())).toMatch(new RegExp(`^${RUN_PREFIX}`));
    expect([process.env.TMP, process.env.TEMP]).toEqual([tmpdir(), tmpdir()]);
    const child = execFileSync(process.execPath, ["-e", "console.log(require('node:os').tmpdir())"], { encoding: "utf8" });
    expect(child.trim()).toBe(tmpdir());
  });

  it("teardown removes the folder with what the tests left in it, and restores the variables", () => {
    const before = process.env.TMPDIR;
    const teardown = setup();
    const run = process.env.TMPDIR!;
    expect(run).not.toBe(before);
    mkdirSync(join(mkdtempSync(join(tmpdir(), "cms-basic-")), "node_modules", "x"), { recursive: true });
    teardown();
    expect(existsSync(run)).toBe(false);
    expect(process.env.TMPDIR).toBe(before);
  });

  it("a run stopped by SIGTERM removes its folder too (vitest exits without teardown then)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sigterm-"));
    const base = join(dir, "tmp");
    mkdirSync(base);
    // Threads, not forks: a forked worker would outlive its killed parent.
    const config = { test: { include: ["*.test.mjs"], globals: true, pool: "threads", globalSetup: [join(ROOT, "test", "global-setup.ts")] } };
    writeFileSync(join(dir, "vitest.config.mjs"), `export default ${JSON.stringify(config)};\n`);
    writeFileSync(join(dir, "wait.test.mjs"), `it("waits", () => new Promise((r) => setTimeout(r, 20000)), 30000);\n`);
    const vitest = join(ROOT, "node_modules", "vitest", "vitest.mjs");
    const child = spawn(process.execPath, [vitest, "run", "--root", dir], { cwd: dir, env: { ...process.env, TMPDIR: base }, stdio: "ignore" });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    const runs = () => readdirSync(base).filter((n) => n.startsWith(RUN_PREFIX));
    for (let i = 0; i < 300 && !runs().length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(runs()).toHaveLength(1);
    child.kill("SIGTERM");
    await exited;
    expect(runs()).toEqual([]);
  });

  it("removes a run folder untouched for a day, and leaves younger ones and others' folders alone", () => {
    const base = mkdtempSync(join(tmpdir(), "stale-"));
    const old = join(base, `${RUN_PREFIX}killed`);
    const young = join(base, `${RUN_PREFIX}running`);
    const other = join(base, "someone-elses");
    for (const d of [old, young, other]) mkdirSync(join(d, "inner"), { recursive: true });
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    for (const d of [old, other]) utimesSync(d, twoDaysAgo, twoDaysAgo);
    expect(removeStale(base)).toEqual([old]);
    expect(readdirSync(base).sort()).toEqual([`${RUN_PREFIX}running`, "someone-elses"]);
  });
});
