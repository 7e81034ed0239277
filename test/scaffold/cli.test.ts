// create-mcp-server [dir]: help, refusals (one line, exit 1, nothing written), determinism, and the time to scaffold.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";
import { create, hashTree, npm, tempDir } from "./support.js";

const work = tempDir("cli");

describe("create-mcp-server --help", () => {
  it("documents the scaffold options and keeps the subcommands", async () => {
    const r = await create(["--help"]);
    expect(r.status).toBe(0);
    for (const flag of ["--template", "--transport", "--revisions", "--name", "--description", "--yes", "--no-install", "--force", "--runtime", "--package-manager", "--no-git", "--telemetry"])
      expect(r.stdout).toContain(flag);
    for (const sub of ["generate", "schemas", "rules"]) expect(r.stdout).toContain(sub);
    expect(r.stdout).toMatch(/Usage: create-mcp-server \[options\] \[command\] \[dir\]/);
    const version = await create(["--version"]);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
  });

  it("runs through npm exec, which is what `npm create mcp-server` does with the create-mcp-server package", async () => {
    const r = await npm(tempDir("npm-exec"), ["exec", "--yes", `--package=${ROOT}`, "--", "create-mcp-server", "--version"]);
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split("\n").at(-1)).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
  }, 300_000);

  it("the packed package (npm pack, as published) holds the compiled command, the templates and the rules data, nothing of the repository's; it scaffolds a project on the published runtime and codegen of its version", async () => {
    const dir = tempDir("pack");
    // pretest has built dist/ (the command), out/ and the packages; the release packs with scripts off, as here.
    const pack = await npm(dir, ["pack", "--json", "--ignore-scripts", "--pack-destination", dir, ROOT]);
    expect(pack.status, pack.stderr).toBe(0);
    const packed: string[] = JSON.parse(pack.stdout)[0].files.map((f: { path: string }) => f.path);
    expect(packed.filter((p) => p.startsWith("out/"))).toEqual(["out/rules.json"]);
    expect(packed).toEqual(expect.arrayContaining(["bin/create-mcp-server.js", "dist/cli.js", "dist/scaffold.js", "dist/upgrade.js", "templates/_shared/package.json.hbs", "CHANGELOG.md"]));
    // The runtime and codegen are packages of their own; the TypeScript sources, tests and release tooling stay here.
    expect(packed.filter((p) => /^(runtime|codegen|test|node_modules)\//.test(p) || /^generator\/.*\.ts$/.test(p) || p === "dist/release.js")).toEqual([]);
    const tarball = join(
      dir,
      readdirSync(dir).find((f) => f.endsWith(".tgz"))!,
    );
    const r = await npm(dir, ["exec", "--yes", `--package=${tarball}`, "--", "create-mcp-server", "packed-server", "--yes", "--no-install", "--no-git"]);
    expect(r.status, r.stderr).toBe(0);
    for (const f of ["package.json", "mcp.json", "src/main.ts", ".create-mcp-server.json"]) expect(existsSync(join(dir, "packed-server", f)), f).toBe(true);
    expect(existsSync(join(dir, "packed-server", "vendor"))).toBe(false);
    // Installed from the registry, it names itself as npx runs it.
    expect(r.stdout).toContain("Add a tool: `npx create-mcp-server add tool <name>`");
    const pkg = JSON.parse(readFileSync(join(dir, "packed-server", "package.json"), "utf8"));
    expect([pkg.dependencies["@create-mcp-server/runtime"], pkg.devDependencies["@create-mcp-server/codegen"]]).toEqual(["^0.1.0", "^0.1.0"]);
    const revisions: { id: string }[] = JSON.parse(readFileSync(join(ROOT, "out", "rules.json"), "utf8")).revisions;
    const rules = await npm(dir, ["exec", "--yes", `--package=${tarball}`, "--", "create-mcp-server", "rules", "show", revisions[0].id]);
    expect(rules.status, rules.stderr).toBe(0);
    expect(rules.stdout).toMatch(new RegExp(`^revision ${revisions[0].id} \\((legacy|modern)\\)\nmethods:\n`));
    // The maintainers' generator needs the repository's development dependencies: one line says so.
    const generate = await npm(dir, ["exec", "--yes", `--package=${tarball}`, "--", "create-mcp-server", "generate"]);
    expect(generate.status).toBe(1);
    expect(generate.stderr).toMatch(/^create-mcp-server: 'generate' is a maintainer's command: run it in a clone of create-mcp-server after `npm install` \(/m);
  }, 300_000);

  it("is what `npm create mcp-server` runs: the package is create-mcp-server with a create-mcp-server bin (its dependencies: test/release/packages.test.ts)", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(pkg.name).toBe("create-mcp-server");
    expect(pkg.bin["create-mcp-server"]).toBe("bin/create-mcp-server.js");
    expect(pkg.files).toEqual(["bin", "dist", "templates", "schemas/manifest.json", "out/rules.json", "generator/released-files.json", "README.md", "CHANGELOG.md"]);
  });
});

describe("refusals: one clear line, exit 1, nothing written", () => {
  const cases: [string, string[], RegExp, (dir: string) => void][] = [
    ["a non-empty directory without --force", [], /is not empty; choose another directory, or pass --force/, (d) => (mkdirSync(d, { recursive: true }), writeFileSync(join(d, "keep.txt"), "mine"))],
    ["an invalid npm package name", ["--name", "Bad Name!"], /"Bad Name!" is not a valid npm package name/, () => {}],
    ["an invalid directory name as package name", [], /is not a valid npm package name/, () => {}],
    ["an unknown template", ["--template", "fancy"], /unknown template "fancy"; known templates: basic, everything/, () => {}],
    ["an unknown revision", ["--revisions", "2025-11-25,2099-01-01"], /unknown revision 2099-01-01; known revisions: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28/, () => {}],
    ["an unknown transport", ["--transport", "carrier-pigeon"], /unknown transport "carrier-pigeon"; choose one of: stdio, http, both/, () => {}],
    ["a runtime path that does not exist", ["--runtime", "file:/nonexistent"], /--runtime file:\/nonexistent: \/nonexistent does not exist/, () => {}],
  ];
  for (const [what, args, message, prepare] of cases) {
    it(`refuses ${what}`, async () => {
      const dir = join(work, what.includes("directory name") ? "Not_A_Valid Name" : what.replace(/\W+/g, "-"));
      prepare(dir);
      const before = existsSync(dir) ? readdirSync(dir) : null;
      const r = await create([dir, "--yes", "--no-install", ...args]);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(/^create-mcp-server: /);
      expect(existsSync(dir) ? readdirSync(dir) : null).toEqual(before);
    });
  }

  it("`help` prints the help, and a mistyped command is refused with a suggestion instead of becoming a project", async () => {
    const cwd = tempDir("commands");
    const help = await create(["help"], cwd);
    expect([help.status, help.stdout.includes("Usage: create-mcp-server")]).toEqual([0, true]);
    const typo = await create(["generat", "--yes", "--no-install"], cwd);
    expect(typo.status).toBe(1);
    expect(typo.stderr.trim()).toBe("create-mcp-server: 'generat' is not a command (did you mean 'generate'?); to create a project with that name, pass ./generat");
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("a mistyped command followed by its arguments or options gets the same one-line suggestion, not commander's complaint and the help", async () => {
    const cwd = tempDir("typos");
    const cases: [string[], string, string][] = [
      [["schema", "sync"], "schema", "schemas"],
      [["generat", "--check"], "generat", "generate"],
      [["rule", "show", "2025-11-25"], "rule", "rules"],
      [["--transport", "stdio", "-t", "basic", "genrate", "--yes"], "genrate", "generate"],
    ];
    const runs = await Promise.all(cases.map(([args]) => create(args, cwd)));
    runs.forEach((r, i) => {
      const [args, word, near] = cases[i];
      expect([r.status, r.stdout, r.stderr], args.join(" ")).toEqual([
        1,
        "",
        `create-mcp-server: '${word}' is not a command (did you mean '${near}'?); to create a project with that name, pass ./${word}\n`,
      ]);
    });
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("--force writes into a non-empty directory: adds what is missing, skips identical files, keeps other files", async () => {
    const dir = join(work, "forced");
    mkdirSync(dir);
    writeFileSync(join(dir, "keep.txt"), "mine");
    const r = await create([dir, "--yes", "--no-install", "--force", "--transport", "stdio"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(readFileSync(join(dir, "keep.txt"), "utf8")).toBe("mine");
    expect(existsSync(join(dir, "mcp.json"))).toBe(true);
    // Again: every file is already as it would be written.
    const before = hashTree(dir);
    const again = await create([dir, "--yes", "--no-install", "--force", "--transport", "stdio"]);
    expect([again.status, again.stderr]).toEqual([0, ""]);
    expect(again.stdout).toMatch(/Wrote 0 files to .*; \d+ already as the scaffolder writes them\)/);
    expect(hashTree(dir)).toBe(before);
  });

  it("--force refuses, listing them and writing nothing, when files differ from what it would write; --overwrite replaces and lists them; nothing is deleted", async () => {
    const dir = join(work, "existing-project");
    const base = [dir, "--yes", "--no-install", "--transport", "stdio"];
    expect((await create(base)).status).toBe(0);
    const original = readFileSync(join(dir, "mcp.json"), "utf8");
    // The user's project: a new tool in mcp.json with its handler, an edited handler, a lost README.
    const manifest = JSON.parse(original);
    manifest.tools.push({ name: "shout", inputSchema: { type: "object", properties: { text: { type: "string" } } } });
    writeFileSync(join(dir, "mcp.json"), JSON.stringify(manifest, null, 2));
    writeFileSync(join(dir, "src", "tools", "shout.ts"), "// the user's handler\n");
    writeFileSync(join(dir, "src", "tools", "echo.ts"), readFileSync(join(dir, "src", "tools", "echo.ts"), "utf8") + "// edited\n");
    rmSync(join(dir, "README.md"));
    const edited = hashTree(dir);

    const refused = await create([...base, "--force"]);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(
      `create-mcp-server: 2 files in ${dir} differ from what create-mcp-server would write; nothing was written. ` +
        "Pass --overwrite to replace them (no other file is changed or deleted):\n  mcp.json\n  src/tools/echo.ts\n",
    );
    expect(hashTree(dir), "nothing written, not even the missing README.md").toBe(edited);

    // Another template over it: its different files are listed too, and still nothing is written.
    const other = await create([...base, "--force", "--template", "everything"]);
    expect(other.status).toBe(1);
    const listed = other.stderr.trimEnd().split("\n").slice(1);
    expect(listed).toEqual(expect.arrayContaining(["  mcp.json", "  package.json"]));
    expect(other.stderr).toMatch(new RegExp(`^create-mcp-server: ${listed.length} files in `));
    expect(hashTree(dir)).toBe(edited);

    const overwritten = await create([...base, "--force", "--overwrite"]);
    expect([overwritten.status, overwritten.stderr]).toEqual([0, ""]);
    expect(overwritten.stdout).toContain("Overwrote 2 files that differed (--overwrite):\n  mcp.json\n  src/tools/echo.ts\n");
    expect(overwritten.stdout).toContain("handler file that the new mcp.json may not declare (delete or declare it before `npm run build`):\n  src/tools/shout.ts\n");
    expect(readFileSync(join(dir, "mcp.json"), "utf8")).toBe(original);
    expect(existsSync(join(dir, "README.md")), "the missing file is written").toBe(true);
    expect(readFileSync(join(dir, "src", "tools", "shout.ts"), "utf8"), "a file the scaffolder does not write is never deleted").toBe("// the user's handler\n");
  });

  it("a failed npm install says what failed and how to retry, and a rerun with --force goes on where it stopped", async () => {
    const dir = join(work, "failed-install");
    // A runtime tarball that is not one: npm install fails on it, without needing the network.
    const broken = join(work, "broken-runtime.tgz");
    writeFileSync(broken, "not a tarball\n");
    const args = [dir, "--yes", "--transport", "stdio", "--runtime", broken];
    const r = await create(args);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("TAR_BAD_ARCHIVE");
    expect(r.stderr.trimEnd().split("\n").slice(-2)).toEqual([
      `create-mcp-server: npm install failed (exit code 1; its output is above); the project's files are written in ${dir}`,
      `To retry, fix the cause shown above, then run \`npm install\` in ${dir}, or rerun this command with --force (add --overwrite if you change an option)`,
    ]);
    expect(r.stdout).not.toContain("Next:");
    const again = await create([...args, "--force", "--no-install"]);
    expect([again.status, again.stderr]).toEqual([0, ""]);
    expect(again.stdout).toMatch(/Wrote 0 files to /);
  }, 120_000);
});

describe("scaffolding without install", () => {
  it("writes a complete project and prints the next steps and client configuration", async () => {
    const dir = join(work, "timed-server");
    const r = await create([dir, "--yes", "--no-install", "--template", "everything"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const inProcess = Number(/Wrote \d+ files to .* in (\d+) ms/.exec(r.stdout)![1]);
    // From a checkout, whose packages the registry may not have, it names the command that ran.
    expect(r.stdout).toContain(`Add a tool: \`node ${join(ROOT, "bin", "create-mcp-server.js")} add tool <name>\``);
    console.log(`scaffold (everything, no install): ${inProcess} ms inside the command, ${r.ms.toFixed(0)} ms wall including Node and tsx start-up`);
    // Speed is the benchmark's to measure, not a timed test's: this bound only catches a scaffolder that hangs.
    expect(inProcess).toBeLessThan(30_000);
    for (const f of [
      "package.json",
      "tsconfig.json",
      "README.md",
      ".gitignore",
      "mcp.json",
      ".create-mcp-server.json",
      "src/main.ts",
      "src/server.ts",
      "test/protocol.test.ts",
      "test/fixture.test.ts",
    ]) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }
    // The generator is the codegen package's bin and the tests read the rules from the runtime's data: neither is copied in.
    for (const f of ["scripts/generate.mjs", "test/revisions.json"]) expect(existsSync(join(dir, f)), f).toBe(false);
    const scaffolded = JSON.parse(readFileSync(join(dir, ".create-mcp-server.json"), "utf8"));
    expect(scaffolded.options).toMatchObject({ template: "everything", transport: "both", name: "timed-server" });
    expect(scaffolded.files["src/server.ts"]).toBe(
      createHash("sha256")
        .update(readFileSync(join(dir, "src/server.ts")))
        .digest("hex"),
    );
    // Each vendored package is named by its version and the first 12 hex digits of the tarball's sha256.
    const vendored = readdirSync(join(dir, "vendor")).sort();
    expect(vendored).toHaveLength(2);
    for (const f of vendored)
      expect(f.slice(-16, -4), f).toBe(
        createHash("sha256")
          .update(readFileSync(join(dir, "vendor", f)))
          .digest("hex")
          .slice(0, 12),
      );
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(pkg.name).toBe("timed-server");
    expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(["build", "start", "dev", "test", "generate"]));
    expect(pkg.scripts.generate).toBe("create-mcp-server-generate");
    expect(pkg.dependencies["@create-mcp-server/runtime"]).toMatch(/^file:vendor\/create-mcp-server-runtime-0\.1\.0-[0-9a-f]{12}\.tgz$/);
    // The generator is a development dependency: a production install (npm ci --omit=dev) holds none of it.
    expect(pkg.devDependencies["@create-mcp-server/codegen"]).toMatch(/^file:vendor\/create-mcp-server-codegen-0\.1\.0-[0-9a-f]{12}\.tgz$/);
    expect(pkg.dependencies).not.toHaveProperty("@create-mcp-server/codegen");
    expect(vendored.map((f) => `file:vendor/${f}`).sort()).toEqual([pkg.devDependencies["@create-mcp-server/codegen"], pkg.dependencies["@create-mcp-server/runtime"]]);
    // mcp.json names its schema first, for editors.
    expect(Object.keys(JSON.parse(readFileSync(join(dir, "mcp.json"), "utf8")))[0]).toBe("$schema");
    expect(JSON.parse(readFileSync(join(dir, "mcp.json"), "utf8")).$schema).toBe("./node_modules/@create-mcp-server/codegen/mcp.schema.json");
    expect(r.stdout).toContain("npm install");
    // The project is outside the current directory (a temporary one): its path absolute, not ../../tmp/...
    expect(r.stdout).toContain(`\n  cd ${dir}\n`);
    expect(r.stdout).toContain('"mcpServers"');
    expect(r.stdout).toContain("npx @modelcontextprotocol/inspector node");
  });

  it("is deterministic: the same flags give the same files", async () => {
    const a = join(work, "same-a", "srv");
    const b = join(work, "same-b", "srv");
    for (const d of [a, b]) expect((await create([d, "--yes", "--no-install", "--revisions", "2025-06-18,2026-07-28", "--description", "Same"])).status).toBe(0);
    expect(hashTree(a)).toBe(hashTree(b));
    const manifest = JSON.parse(readFileSync(join(a, "mcp.json"), "utf8"));
    expect(manifest.revisions).toEqual(["2025-06-18", "2026-07-28"]);
    expect(manifest.transports).toEqual(["stdio", "http"]);
  });

  it("writes prettier-formatted files (the project's .prettierrc.json), whatever the substituted values", async () => {
    const prettier = await import("prettier");
    for (const [template, transport] of [
      ["basic", "http"],
      ["everything", "stdio"],
    ]) {
      const dir = join(work, `formatted-${template}`);
      const long = "A description long enough that no line of the README, the manifest or package.json may be left as the template wrote it";
      expect((await create([dir, "--yes", "--no-install", "--template", template, "--transport", transport, "--description", long, "--revisions", "2025-11-25,2026-07-28"])).status).toBe(0);
      const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? (e.name === "vendor" ? [] : walk(join(d, e.name))) : [join(d, e.name)]));
      for (const file of walk(dir).filter((f) => /\.(ts|mjs|json|md)$/.test(f))) {
        const options = await prettier.resolveConfig(file);
        expect(options, "the project has a prettier configuration").toMatchObject({ printWidth: 120 });
        expect(await prettier.check(readFileSync(file, "utf8"), { ...options, filepath: file }), file).toBe(true);
      }
    }
  });

  it("--runtime <version> depends on the published packages, the codegen of the same version, instead of the vendored tarballs", async () => {
    const dir = join(work, "published-runtime");
    const r = await create([dir, "--yes", "--no-install", "--runtime", "^0.1.0"]);
    expect(r.status).toBe(0);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect([pkg.dependencies["@create-mcp-server/runtime"], pkg.devDependencies["@create-mcp-server/codegen"]]).toEqual(["^0.1.0", "^0.1.0"]);
    expect(existsSync(join(dir, "vendor"))).toBe(false);
  });
});
