/**
 * What each package carries at run time, checked on the checkout (the registry test installs them for real): the
 * runtime's and the command's dependencies are only what they run, and the runtime builds to the same bytes from the
 * same sources (a vendored runtime's file name carries a hash of its tarball).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

const deps = (dir: string) => Object.keys(JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")).dependencies ?? {}).sort();

describe("the packages", () => {
  it("the command depends only on what scaffold and upgrade run", () => {
    expect(deps(".")).toEqual(["@inquirer/prompts", "commander", "handlebars", "prettier", "validate-npm-package-name"]);
  });

  it("the runtime's bundle names no build directory (the same sources build to the same bytes)", () => {
    const dir = join(ROOT, "runtime", "dist", "runtime", "src");
    const bundles = readdirSync(dir).filter((f) => f === "index.js" || f.startsWith("bundle-"));
    expect(bundles.length).toBeGreaterThan(1);
    for (const f of bundles) expect(readFileSync(join(dir, f), "utf8"), f).not.toMatch(/dist\.tmp-\d+/);
  });
});
