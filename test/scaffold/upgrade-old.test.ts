/**
 * `create-mcp-server upgrade` from this checkout (vendor mode) on projects scaffolded by older releases, kept as
 * fixtures (test/fixtures/projects/, as their users would have them in git): 4c77207 (before .create-mcp-server.json,
 * its own scripts/generate.mjs) and c08a4f3 (the generator a bin of the runtime). Each is copied, edited as a user
 * would, upgraded with a real install, then installed again from an empty npm cache as another machine would (the
 * lock file must name the new tarballs by their integrity), built and tested: the runtime that runs is this
 * checkout's (it exports RUNTIME_VERSION, which the old ones do not), the user's files are as they were, and no file
 * is added that needs something a kept file lacks.
 */
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, ROOT } from "../helpers.js";
import { expectOk, npm, run } from "./support.js";

const FIXTURES = join(ROOT, "test", "fixtures", "projects");
const work = mkdtempSync(join(tmpdir(), "upgrade-old-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const VENDORED = (name: string) => new RegExp(`^file:vendor/create-mcp-server-${name}-0\\.1\\.0-[0-9a-f]{12}\\.tgz$`);
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));

function copyFixture(name: string): string {
  const project = join(work, name);
  cpSync(join(FIXTURES, name), project, { recursive: true });
  return project;
}

/** After the upgrade: another machine's install (no node_modules, an empty cache), build, test, and which runtime runs. */
async function installedElsewhereAndTested(project: string): Promise<void> {
  rmSync(join(project, "node_modules"), { recursive: true, force: true });
  expectOk(await npm(project, ["ci", "--cache", mkdtempSync(join(work, "empty-cache-")), "--no-audit", "--no-fund"]), "npm ci from an empty cache");
  expectOk(await npm(project, ["test"]), "npm test after the upgrade");
  const runs = await run(process.execPath, ["--input-type=module", "-e", 'import("@create-mcp-server/runtime").then((m) => process.stdout.write(String(m.RUNTIME_VERSION)))'], { cwd: project });
  expect(runs.stdout).toBe("0.1.0");
}

describe("upgrade of projects scaffolded by older releases", () => {
  it.concurrent(
    "4c77207 (no manifest): kept files stay, the Dockerfile, CI workflow and dev script that need what they lack are left out with one line each, the lock follows, npm ci works",
    async () => {
      const project = copyFixture("4c77207-basic");
      appendFileSync(join(project, "src", "tools", "echo.ts"), "\n// the user's change\nexport const echoed = true;\n");
      const echo = readFileSync(join(project, "src", "tools", "echo.ts"), "utf8");
      const main = readFileSync(join(project, "src", "main.ts"), "utf8");

      const r = await run(process.execPath, [CLI, "upgrade"], { cwd: project });
      expectOk(r, "upgrade");
      // The old main.ts (kept: no release can tell it from an edit) takes neither --allow-remote nor serves /healthz;
      // the kept package.json has no lint script and its dev script does not run scripts/dev.mjs.
      expect(r.stdout).toContain("Not written: Dockerfile passes --allow-remote to dist/src/main.js, which your src/main.ts (kept) does not have: bring src/main.ts up to date");
      expect(r.stdout).toContain(
        'Not written: .github/workflows/test.yml runs the script "lint", which your package.json (kept) does not have: add it to package.json\'s scripts, then run upgrade again',
      );
      expect(r.stdout).toContain("Not written: scripts/dev.mjs is run by a package.json script, which your package.json (kept) does not have");
      for (const f of ["Dockerfile", ".github/workflows/test.yml", "scripts/dev.mjs"]) expect(existsSync(join(project, f)), f).toBe(false);
      expect(r.stdout).toContain("Removed the superseded vendored package:\n  vendor/create-mcp-server-runtime-0.1.0.tgz\n");
      expect(r.stdout).toMatch(/No longer used by the project \(kept; delete them\):\n {2}scripts\/generate\.mjs\n {2}test\/revisions\.json\n/);
      expect(readFileSync(join(project, "src", "tools", "echo.ts"), "utf8")).toBe(echo);
      expect(readFileSync(join(project, "src", "main.ts"), "utf8")).toBe(main);

      const pkg = readJson(join(project, "package.json"));
      expect(pkg.dependencies["@create-mcp-server/runtime"]).toMatch(VENDORED("runtime"));
      expect(pkg.devDependencies["@create-mcp-server/codegen"]).toMatch(VENDORED("codegen"));
      expect(pkg.scripts.generate).toBe("create-mcp-server-generate");
      const lock = readJson(join(project, "package-lock.json")).packages;
      expect(lock["node_modules/@create-mcp-server/runtime"].resolved).toBe(pkg.dependencies["@create-mcp-server/runtime"]);
      await installedElsewhereAndTested(project);

      // Upgrading again (now with a manifest) writes nothing (the vendored packages are the same bytes), and still
      // keeps and leaves out the same.
      const again = await run(process.execPath, [CLI, "upgrade", "--no-install"], { cwd: project });
      expectOk(again, "upgrade again");
      expect(again.stdout).toMatch(/\): 0 files written, serving /);
      expect(again.stdout).toContain("Not written: Dockerfile passes --allow-remote");
      expect(readFileSync(join(project, "src", "tools", "echo.ts"), "utf8")).toBe(echo);
    },
    600_000,
  );

  it.concurrent(
    "c08a4f3 (manifest, generator in the runtime): the user's package.json and main.ts are kept and updated only where needed, the new Dockerfile is written as the kept main.ts has what it needs, npm ci works",
    async () => {
      const project = copyFixture("c08a4f3-basic");
      const pkgBefore = readJson(join(project, "package.json"));
      pkgBefore.scripts.hello = "echo hello";
      writeFileSync(join(project, "package.json"), JSON.stringify(pkgBefore, null, 2) + "\n");
      appendFileSync(join(project, "src", "main.ts"), "// the user's change\n");
      const main = readFileSync(join(project, "src", "main.ts"), "utf8");

      const r = await run(process.execPath, [CLI, "upgrade"], { cwd: project });
      expectOk(r, "upgrade");
      expect(r.stdout).not.toContain("Not written");
      expect(r.stdout).toMatch(
        /Kept 2 files you changed since they were scaffolded \(not overwritten; package\.json only updated where the upgrade needs it\):\n {2}package\.json\n {2}src\/main\.ts\n/,
      );
      expect(readFileSync(join(project, "src", "main.ts"), "utf8")).toBe(main);
      expect(readFileSync(join(project, "Dockerfile"), "utf8")).toContain("--omit=dev");
      const pkg = readJson(join(project, "package.json"));
      expect(pkg.scripts.hello).toBe("echo hello");
      expect(pkg.dependencies["@create-mcp-server/runtime"]).toMatch(VENDORED("runtime"));
      expect(pkg.devDependencies["@create-mcp-server/codegen"]).toMatch(VENDORED("codegen"));
      const lock = readJson(join(project, "package-lock.json")).packages;
      expect(lock["node_modules/@create-mcp-server/codegen"].resolved).toBe(pkg.devDependencies["@create-mcp-server/codegen"]);
      await installedElsewhereAndTested(project);
    },
    600_000,
  );

  it("--runtime with a version that is not published is refused before anything is written", async () => {
    const project = copyFixture("c08a4f3-everything");
    const before = readFileSync(join(project, "package.json"), "utf8");
    const r = await run(process.execPath, [CLI, "upgrade", "--runtime", "9.9.9", "--no-install"], { cwd: project });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^create-mcp-server upgrade: --runtime 9\.9\.9: no published version of @create-mcp-server\/runtime matches it \(.+\); nothing was changed\n$/);
    expect(readFileSync(join(project, "package.json"), "utf8")).toBe(before);
  }, 120_000);
});
