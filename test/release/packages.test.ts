/**
 * What each package carries at run time, checked on the checkout (the registry test installs them for real): the
 * runtime's and the command's dependencies are only what they run, and the runtime builds to the same bytes from the
 * same sources (a vendored runtime's file name carries a hash of its tarball).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

const deps = (dir: string) => Object.keys(JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")).dependencies ?? {}).sort();

describe("the packages", () => {
  it("the command depends only on what scaffold, upgrade and import openapi run", () => {
    // swagger-parser reads and dereferences the OpenAPI document of --from-openapi and import openapi.
    expect(deps(".")).toEqual(["@apidevtools/swagger-parser", "@inquirer/prompts", "commander", "handlebars", "prettier", "validate-npm-package-name"]);
  });

  it("the command's built files import nothing outside the package (it carries dist/, not generator/ nor codegen/)", async () => {
    const dist = join(ROOT, "dist");
    const files = readdirSync(dist, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".js"));
    expect(files).toContain(join("openapi", "names.js"));
    // esbuild follows every relative import, static and dynamic, as node would; an unresolvable one fails the build.
    const { metafile } = await build({
      entryPoints: files.map((f) => join(dist, f)),
      bundle: true,
      packages: "external",
      platform: "node",
      format: "esm",
      write: false,
      outdir: "unused",
      metafile: true,
      logLevel: "silent",
    });
    const outside = Object.keys(metafile.inputs).filter((input) => !resolve(ROOT, input).startsWith(dist + sep));
    expect(outside).toEqual([]);
  });

  it("the runtime's bundle names no build directory (the same sources build to the same bytes)", () => {
    const dir = join(ROOT, "runtime", "dist", "runtime", "src");
    const bundles = readdirSync(dir).filter((f) => f === "index.js" || f.startsWith("bundle-"));
    expect(bundles.length).toBeGreaterThan(1);
    for (const f of bundles) expect(readFileSync(join(dir, f), "utf8"), f).not.toMatch(/dist\.tmp-\d+/);
  });
});
