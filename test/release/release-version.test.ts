/**
 * The release command's version and dist-tag, without a registry: a version npm would refuse stops the release before
 * anything is written, and a prerelease is not published as `latest` unless asked.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { distTag, isSemver, release, setVersions } from "../../generator/release.js";
import { ROOT } from "../helpers.js";

describe("release: versions and dist-tags", () => {
  it("takes only semantic versions npm publishes: no leading zeros, no empty identifiers", () => {
    expect(["0.2.0", "1.0.0-rc.1", "1.0.0-rc.1+build.5", "10.20.30", "1.0.0-0a"].filter((v) => !isSemver(v))).toEqual([]);
    expect(["01.2.3", "1.02.3", "1.2.03", "1.2.3-01", "1.2.3-a..b", "1.2.3-.", "1.2.3+", "1.2", "v1.2.3"].filter(isSemver)).toEqual([]);
  });

  it("refuses a version with a leading zero before it changes anything", async () => {
    await expect(release({ root: ROOT, version: "01.2.3", build: false, dryRun: true, out: () => {} })).rejects.toThrow("--version 01.2.3: not a semantic version (e.g. 0.2.0 or 0.2.0-rc.1)");
  });

  it("publishes a prerelease under next, a release under latest, and --tag when given", () => {
    expect([distTag("0.2.0-rc.1", undefined), distTag("0.2.0", undefined), distTag("0.2.0+build.1-x", undefined), distTag("0.2.0-rc.1", "beta")]).toEqual(["next", "latest", "latest", "beta"]);
  });

  it("sets the version in each package.json (and the codegen's peer range) keeping the file's own layout", () => {
    const dir = mkdtempSync(join(tmpdir(), "release-versions-"));
    try {
      for (const f of ["package.json", "runtime/package.json", "codegen/package.json"]) cpSync(join(ROOT, f), join(dir, f));
      const before = readFileSync(join(dir, "runtime", "package.json"), "utf8");
      expect(setVersions(dir, "7.8.9")).toBe(true);
      const after = readFileSync(join(dir, "runtime", "package.json"), "utf8");
      expect(after).toBe(before.replace(/"version": "[^"]*"/, '"version": "7.8.9"'));
      expect(after).toContain('"engines": { "node": ">=20" },');
      const codegen = JSON.parse(readFileSync(join(dir, "codegen", "package.json"), "utf8"));
      expect([codegen.version, codegen.peerDependencies["@create-mcp-server/runtime"]]).toEqual(["7.8.9", "7.8.9"]);
      expect(setVersions(dir, "7.8.9")).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
