/**
 * The generated modules load in every host the runtime serves from (Node, Bun, Deno, a workerd bundle): no
 * `require` made at run time (workerd has no `import.meta.url`, a bundler does not follow one), and the validator
 * modules loaded through static specifiers (out/loaders.ts), which Deno resolves without --allow-read.
 * test/hosts runs them in those hosts; this checks the emitted text and the CommonJS interop in Node (esmRequires:
 * the generated validators import nothing today, their format checks inlined by generator/inline-formats.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { esmRequires } from "../../generator/validators.js";
import { loadManifest } from "../../generator/manifest.js";
import { OUT, ROOT } from "../helpers.js";

const revisions = loadManifest(join(ROOT, "schemas", "manifest.json")).revisions.map((r) => r.id);
type Validator = ((d: unknown) => boolean) & { errors?: unknown };

describe("esmRequires", () => {
  it("binds each required module once, as a default import, with .js on a package subpath", () => {
    const code =
      'const a = require("ajv-formats/dist/formats").fullFormats.uri;\nconst b = require("ajv/dist/runtime/equal").default;\nconst c = require("ajv-formats/dist/formats").fullFormats.byte;\nconst d = require("pkg");';
    expect(esmRequires(code)).toBe(
      'import __require0 from "ajv-formats/dist/formats.js";\nimport __require1 from "ajv/dist/runtime/equal.js";\nimport __require2 from "pkg";\n' +
        "const a = __require0.fullFormats.uri;\nconst b = __require1.default;\nconst c = __require0.fullFormats.byte;\nconst d = __require2;",
    );
  });
});

describe.each(revisions)("%s", (rev) => {
  it.each(["validators.js", "dispatch-validators.js"])("%s makes no require and reads no import.meta", (file) => {
    const text = readFileSync(join(OUT, rev, file), "utf8");
    expect(text).not.toMatch(/\brequire\(|createRequire|import\.meta/);
  });

  it("its format checks are ajv-formats' inlined (a blob that is not base64 is refused, and a uri that is not one)", async () => {
    const { validateBlobResourceContents: v } = (await import(join(OUT, rev, "validators.js"))) as Record<string, Validator>;
    expect(v({ uri: "file:///a", blob: "aGk=" })).toBe(true);
    expect(v({ uri: "file:///a", blob: "not base64!" })).toBe(false);
    expect(v({ uri: "not a uri", blob: "aGk=" })).toBe(false);
  });

  it("out/loaders.ts loads it through a static specifier", () => {
    const loaders = readFileSync(join(OUT, "loaders.ts"), "utf8");
    for (const file of ["validators.js", "dispatch-validators.js"]) expect(loaders).toContain(`${JSON.stringify(rev)}: () => import(${JSON.stringify(`./${rev}/${file}`)})`);
  });
});
