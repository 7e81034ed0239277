/**
 * `create-mcp-server upgrade` as real processes: a revision added here (`schemas add draft` in a copy of this
 * repository) reaches a project through `upgrade --add-revisions`, with its rule diff, and the project serves it. No
 * npm install runs: the project links this repository's node_modules and gets the runtime and codegen by extracting
 * the vendored tarballs, which is what npm would install. Projects of older releases, upgraded with a real install
 * and an npm ci from an empty cache: upgrade-old.test.ts; from the registry: test/release/registry.test.ts.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, SYNCED } from "../helpers.js";
import { expectOk, npm, run, tempDir, type Run } from "./support.js";

const work = tempDir("upgrade");
const cliAt = (checkout: string, args: string[], cwd: string): Promise<Run> => run(process.execPath, [join(checkout, "bin", "create-mcp-server.js"), ...args], { cwd });

/**
 * node_modules for a project without npm install: this repository's packages as symlinks (a scope as a real folder
 * of symlinks), and the runtime and the codegen extracted from the project's vendored tarballs, with their bins linked
 * as npm links them (the codegen's deps resolve through the linked packages: it is extracted inside the project).
 */
function linkProject(project: string): void {
  const src = realpathSync(join(ROOT, "node_modules"));
  const dst = join(project, "node_modules");
  rmSync(dst, { recursive: true, force: true });
  mkdirSync(join(dst, ".bin"), { recursive: true });
  for (const entry of readdirSync(src)) {
    if (entry.startsWith(".") || entry === "@create-mcp-server") continue;
    if (!entry.startsWith("@")) symlinkSync(join(src, entry), join(dst, entry));
    else {
      mkdirSync(join(dst, entry));
      for (const pkg of readdirSync(join(src, entry))) symlinkSync(join(src, entry, pkg), join(dst, entry, pkg));
    }
  }
  for (const bin of ["tsc", "vitest", "tsx"]) symlinkSync(realpathSync(join(src, ".bin", bin)), join(dst, ".bin", bin));
  const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
  const specs: Record<string, string> = { ...pkg.dependencies, ...pkg.devDependencies };
  for (const name of ["runtime", "codegen"]) {
    const tarball = join(project, specs[`@create-mcp-server/${name}`].replace(/^file:/, ""));
    const target = join(dst, "@create-mcp-server", name);
    mkdirSync(target, { recursive: true });
    execFileSync("tar", ["-xzf", tarball, "-C", target, "--strip-components", "1"]);
    const bins = JSON.parse(readFileSync(join(target, "package.json"), "utf8")).bin ?? {};
    for (const [bin, file] of Object.entries<string>(bins)) symlinkSync(join("..", "@create-mcp-server", name, file), join(dst, ".bin", bin));
  }
}

/** An upgrade in a test never installs (the projects' node_modules are links into this repository's). */
async function upgradeWith(checkout: string, project: string, flags: string[] = []): Promise<Run> {
  const r = await cliAt(checkout, ["upgrade", "--no-install", ...flags], project);
  expectOk(r, `create-mcp-server upgrade ${flags.join(" ")}`);
  expect(r.stdout).toContain("✔ Upgraded my-server, not installed. Next: npm install, then npm run build && npm test");
  return r;
}

describe("create-mcp-server upgrade", () => {
  it("a revision added here (schemas add draft) reaches a project through upgrade --add-revisions, with its rule diff, and the project serves it", async () => {
    // A copy of this repository (what a new release of create-mcp-server is) with the draft schema added and its runtime rebuilt.
    const next = join(work, "next-create-mcp-server");
    for (const f of ["bin", "generator", "templates", "schemas", "package.json", "tsconfig.json"]) cpSync(join(ROOT, f), join(next, f), { recursive: true });
    for (const f of ["src", "package.json", "build.mjs", "tsconfig.json"]) cpSync(join(ROOT, "runtime", f), join(next, "runtime", f), { recursive: true });
    cpSync(join(ROOT, "codegen"), join(next, "codegen"), { recursive: true }); // built: the release vendors it as it is
    symlinkSync(realpathSync(join(ROOT, "node_modules")), join(next, "node_modules"));
    const upstream = JSON.parse(readFileSync(join(SYNCED, "manifest.json"), "utf8")).files["draft/schema.ts"].url.replace(/\/schema\.ts$/, "");
    const project = join(work, "draft", "my-server");
    // The project is scaffolded by this checkout, independently of the next release: meanwhile.
    const [, scaffolded] = await Promise.all([
      (async () => {
        expectOk(await cliAt(next, ["schemas", "add", "draft", "--from", join(SYNCED, "draft"), "--url", upstream], next), "schemas add draft");
        expectOk(await run(process.execPath, [join(next, "runtime", "build.mjs")], { cwd: next }), "the runtime build with draft");
      })(),
      cliAt(ROOT, [project, "--yes", "--no-install", "--transport", "stdio"], ROOT),
    ]);
    expectOk(scaffolded, "scaffold");
    const served = JSON.parse(readFileSync(join(project, "mcp.json"), "utf8")).revisions;

    // Without a terminal and without --add-revisions, the diff is printed and mcp.json is left alone (in a copy; the
    // two upgrades are of separate folders, so they run side by side).
    const declined = join(work, "draft-declined", "my-server");
    cpSync(project, declined, { recursive: true });
    const [asked, r] = await Promise.all([upgradeWith(next, declined), upgradeWith(next, project, ["--add-revisions"])]);
    expect(asked.stdout).toContain("rules diff 2026-07-28 → draft");
    expect(asked.stdout).toContain("Not added to mcp.json: draft (rerun with --add-revisions");
    expect(JSON.parse(readFileSync(join(declined, "mcp.json"), "utf8")).revisions).toEqual(served);

    expect(r.stdout).toContain("rules diff 2026-07-28 → draft");
    expect(JSON.parse(readFileSync(join(project, "mcp.json"), "utf8")).revisions).toEqual([...served, "draft"]);
    expect(r.stdout).not.toContain("Kept ");
    linkProject(project);
    // npm test builds first (its pretest: npm run build, then lint), so a build that fails with draft fails here.
    const test = await npm(project, ["test", "--", "--reporter", "verbose"]);
    expectOk(test, "npm test (its pretest: npm run build) with draft");
    // eslint-disable-next-line no-control-regex -- vitest colours its report
    expect(test.stdout.replace(/\x1b\[[0-9;]*m/g, "")).toMatch(/over stdio > at draft > echo returns its text/);
  }, 600_000);
});
