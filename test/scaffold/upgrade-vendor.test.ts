/**
 * What `create-mcp-server upgrade` deletes in vendor/: only the tarballs of ours that package.json named and no longer
 * does. Other files there are the user's, even one whose name looks like ours (their own build of the runtime). And
 * what it adds to a kept package.json: the generate script it runs itself. No install: the files are what is checked.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, ROOT } from "../helpers.js";
import { expectOk, run } from "./support.js";

const work = mkdtempSync(join(tmpdir(), "upgrade-vendor-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("upgrade and vendor/", () => {
  it("removes the superseded tarball package.json named, and keeps the user's own tarballs, ours by name or not", async () => {
    const project = join(work, "c08a4f3-basic");
    cpSync(join(ROOT, "test", "fixtures", "projects", "c08a4f3-basic"), project, { recursive: true });
    mkdirSync(join(project, "vendor"));
    // The fixture's package.json names vendor/create-mcp-server-runtime-0.1.0.tgz (left out of the fixture: a stand-in).
    for (const f of ["create-mcp-server-runtime-0.1.0.tgz", "create-mcp-server-runtime-0.1.0-patched.tgz", "create-mcp-server-codegen-fork.tgz", "my-lib-1.0.0.tgz"])
      writeFileSync(join(project, "vendor", f), "");
    const r = await run(process.execPath, [CLI, "upgrade", "--no-install"], { cwd: project });
    expectOk(r, "upgrade");
    expect(r.stdout).toContain("Removed the superseded vendored package:\n  vendor/create-mcp-server-runtime-0.1.0.tgz\n");
    const left = readdirSync(join(project, "vendor")).filter((f) => !/^create-mcp-server-(runtime|codegen)-0\.1\.0-[0-9a-f]{12}\.tgz$/.test(f));
    expect(left.sort()).toEqual(["create-mcp-server-codegen-fork.tgz", "create-mcp-server-runtime-0.1.0-patched.tgz", "my-lib-1.0.0.tgz"]);
    expect(existsSync(join(project, "vendor", "create-mcp-server-runtime-0.1.0.tgz"))).toBe(false);
  });

  it("gives a kept package.json without scripts the generate script, which the upgrade runs after installing", async () => {
    const project = join(work, "no-scripts");
    cpSync(join(ROOT, "test", "fixtures", "projects", "c08a4f3-basic"), project, { recursive: true });
    const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
    delete pkg.scripts;
    writeFileSync(join(project, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
    expectOk(await run(process.execPath, [CLI, "upgrade", "--no-install"], { cwd: project }), "upgrade");
    expect(JSON.parse(readFileSync(join(project, "package.json"), "utf8")).scripts).toEqual({ generate: "create-mcp-server-generate" });
  });
});
