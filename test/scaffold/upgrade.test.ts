/**
 * `create-mcp-server upgrade` as real processes: a project scaffolded by an OLDER create-mcp-server (this
 * repository at UPGRADE_FROM, default the commit before upgrade existed, exported with git archive and built) with a
 * changed handler and mcp.json is upgraded by this checkout, keeps the user's changes (listed), and builds and passes
 * its tests; a revision added here (`schemas add draft` in a copy of this repository) reaches a project through
 * `upgrade --add-revisions`, and the project serves it. No npm install runs: every project links this repository's
 * node_modules and gets its runtime by extracting the vendored tarball, which is what npm would install.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { mirrorOfSynced, ROOT, SYNCED } from "../helpers.js";
import { expectOk, npm, run, tempDir, type Run } from "./support.js";

const FROM = process.env.UPGRADE_FROM ?? "c0c0c50";
const work = tempDir("upgrade");
const OLD = join(work, "old-create-mcp-server");
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
  expect(r.stdout).toContain("Next: npm install, then npm run build && npm test");
  return r;
}

describe("create-mcp-server upgrade", () => {
  beforeAll(async () => {
    // The older create-mcp-server: this repository at FROM, built as a user's clone would be.
    mkdirSync(OLD, { recursive: true });
    execFileSync("sh", ["-c", `git archive ${FROM} | tar -x -C ${JSON.stringify(OLD)}`], { cwd: ROOT });
    symlinkSync(realpathSync(join(ROOT, "node_modules")), join(OLD, "node_modules"));
    // Its schemas come from a mirror made of this checkout's synced copy (an absolute path: the checkout is elsewhere).
    const mirror = mirrorOfSynced(join(work, "mirror"));
    const build = await run("npm", ["run", "build"], { cwd: OLD, env: { MCP_SCHEMA_MIRROR: mirror }, timeoutMs: 300_000 });
    expectOk(build, `npm run build in create-mcp-server at ${FROM}`);
  }, 300_000);

  it("upgrades a project scaffolded by an older create-mcp-server: the user's handler and mcp.json are kept and listed, the rest re-rendered, and it builds and passes its tests", async () => {
    const project = join(work, "old", "my-server");
    expectOk(await cliAt(OLD, [project, "--yes", "--no-install", "--transport", "stdio"], ROOT), "scaffold with the older create-mcp-server");
    expect(existsSync(join(project, "scripts", "generate.mjs")), "the older scaffolder copies its generator").toBe(true);
    // The user's changes: a handler, and a new tool in mcp.json with its handler.
    appendFileSync(join(project, "src", "tools", "echo.ts"), "\n// the user's change\nexport const echoed = true;\n");
    const mcp = JSON.parse(readFileSync(join(project, "mcp.json"), "utf8"));
    mcp.tools.push({ name: "shout", description: "Upper-cases a text", inputSchema: { type: "object", properties: { text: { type: "string" } } } });
    writeFileSync(join(project, "mcp.json"), JSON.stringify(mcp, null, 2) + "\n");
    writeFileSync(
      join(project, "src", "tools", "shout.ts"),
      'import type { ShoutTool } from "../../generated/handlers.js";\n\nexport const handler: ShoutTool = ({ text = "" }) => ({ content: [{ type: "text", text: text.toUpperCase() }] });\n',
    );
    const echo = readFileSync(join(project, "src", "tools", "echo.ts"), "utf8");
    const manifest = readFileSync(join(project, "mcp.json"), "utf8");

    const r = await upgradeWith(ROOT, project);
    const kept = r.stdout.slice(r.stdout.indexOf("Kept "), r.stdout.indexOf("No longer used"));
    for (const f of ["src/tools/echo.ts", "mcp.json", "package.json"]) expect(kept, r.stdout).toContain(`  ${f}\n`);
    expect(kept).not.toContain("test/helpers.ts");
    expect(r.stdout).toMatch(/No longer used by the project \(kept; delete them\):\n {2}scripts\/generate\.mjs\n {2}test\/revisions\.json\n/);
    // The user's files are as they were; unchanged template files are this release's; package.json has what the upgrade needs.
    expect(readFileSync(join(project, "src", "tools", "echo.ts"), "utf8")).toBe(echo);
    expect(readFileSync(join(project, "mcp.json"), "utf8")).toBe(manifest);
    expect(readFileSync(join(project, "test", "helpers.ts"), "utf8")).toBe(readFileSync(join(ROOT, "templates", "_shared", "test", "helpers.ts"), "utf8"));
    const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
    expect(pkg.scripts.generate).toBe("create-mcp-server-generate");
    expect(pkg.scripts.build).toBe("create-mcp-server-generate && tsc -p tsconfig.json");
    expect(existsSync(join(project, pkg.dependencies["@create-mcp-server/runtime"].replace(/^file:/, "")))).toBe(true);
    expect(existsSync(join(project, ".create-mcp-server.json"))).toBe(true);

    linkProject(project);
    const build = await npm(project, ["run", "build"]);
    expectOk(build, "npm run build after the upgrade");
    expect(build.stdout).toMatch(/generated\/: \d+ files from mcp\.json \(3 tools,/);
    const test = await npm(project, ["test"]);
    expectOk(test, "npm test after the upgrade");

    // Upgrading again (now with a manifest) writes only the runtime and still keeps the user's files.
    const again = await upgradeWith(ROOT, project);
    expect(again.stdout).toMatch(/; 2 files written \(the vendored packages included\), serving /);
    expect(again.stdout).toMatch(/Kept \d+ files you changed since they were scaffolded/);
    expect(again.stdout).toContain("  src/tools/echo.ts\n");
    expect(readFileSync(join(project, "src", "tools", "echo.ts"), "utf8")).toBe(echo);
  }, 600_000);

  it("a revision added here (schemas add draft) reaches a project through upgrade --add-revisions, with its rule diff, and the project serves it", async () => {
    // A copy of this repository (what a new release of create-mcp-server is) with the draft schema added and its runtime rebuilt.
    const next = join(work, "next-create-mcp-server");
    for (const f of ["bin", "generator", "templates", "schemas", "package.json", "tsconfig.json"]) cpSync(join(ROOT, f), join(next, f), { recursive: true });
    for (const f of ["src", "package.json", "build.mjs", "tsconfig.json"]) cpSync(join(ROOT, "runtime", f), join(next, "runtime", f), { recursive: true });
    cpSync(join(ROOT, "codegen"), join(next, "codegen"), { recursive: true }); // built: the release vendors it as it is
    symlinkSync(realpathSync(join(ROOT, "node_modules")), join(next, "node_modules"));
    const upstream = JSON.parse(readFileSync(join(SYNCED, "manifest.json"), "utf8")).files["draft/schema.ts"].url.replace(/\/schema\.ts$/, "");
    expectOk(await cliAt(next, ["schemas", "add", "draft", "--from", join(SYNCED, "draft"), "--url", upstream], next), "schemas add draft");
    expectOk(await run(process.execPath, [join(next, "runtime", "build.mjs")], { cwd: next }), "the runtime build with draft");

    const project = join(work, "draft", "my-server");
    expectOk(await cliAt(ROOT, [project, "--yes", "--no-install", "--transport", "stdio"], ROOT), "scaffold");
    const served = JSON.parse(readFileSync(join(project, "mcp.json"), "utf8")).revisions;

    // Without a terminal and without --add-revisions, the diff is printed and mcp.json is left alone.
    const declined = join(work, "draft-declined", "my-server");
    cpSync(project, declined, { recursive: true });
    const asked = await upgradeWith(next, declined);
    expect(asked.stdout).toContain("rules diff 2026-07-28 → draft");
    expect(asked.stdout).toContain("Not added to mcp.json: draft (rerun with --add-revisions");
    expect(JSON.parse(readFileSync(join(declined, "mcp.json"), "utf8")).revisions).toEqual(served);

    const r = await upgradeWith(next, project, ["--add-revisions"]);
    expect(r.stdout).toContain("rules diff 2026-07-28 → draft");
    expect(JSON.parse(readFileSync(join(project, "mcp.json"), "utf8")).revisions).toEqual([...served, "draft"]);
    expect(r.stdout).not.toContain("Kept ");
    linkProject(project);
    expectOk(await npm(project, ["run", "build"]), "npm run build with draft");
    const test = await npm(project, ["test", "--", "--reporter", "verbose"]);
    expectOk(test, "npm test with draft");
    // eslint-disable-next-line no-control-regex -- vitest colours its report
    expect(test.stdout.replace(/\x1b\[[0-9;]*m/g, "")).toMatch(/over stdio > at draft > echo returns its text/);
  }, 600_000);
});
