/**
 * The acceptance suite of one template: for each transport choice, scaffold into a temp directory, install
 * (once per template: the other choices share that install), `npm run build`, `npm test`; `npm run generate`
 * is idempotent; for basic also the type-safety contract and the mutation proof.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers.js";
import { beforeAll, describe, expect, it } from "vitest";
import { create, expectOk, hashTree, linkNodeModules, npm, passedCount, run, tempDir, type Template, type TransportChoice } from "./support.js";

export const timings: Record<string, number> = {};

export function projectSuite(template: Template, options: { typeSafety?: boolean; mutations?: boolean; conformance?: string[] } = {}): void {
  const work = tempDir(template);
  const dir = (t: TransportChoice | string) => join(work, t, `${template}-${t}`);
  const CHOICES: TransportChoice[] = ["both", "stdio", "http"];

  describe(`the ${template} template`, () => {
    beforeAll(async () => {
      // One npm install per template ("both"); the stdio and http projects link to its node_modules.
      const r = await create([dir("both"), "--yes", "--template", template]);
      expectOk(r, `create-mcp-server ${template} (with install)`);
      expect(r.stdout).toMatch(/Installing dependencies with npm install\.\.\.\n✔ Installing dependencies with npm install \(\d+\.\d s\)/);
      timings[`${template}: scaffold + npm install`] = r.ms;
      for (const t of CHOICES.slice(1)) {
        expectOk(await create([dir(t), "--yes", "--no-install", "--template", template, "--transport", t]), `create-mcp-server ${template} --transport ${t}`);
        linkNodeModules(dir("both"), dir(t));
      }
    }, 600_000);

    for (const t of CHOICES) {
      it(`--transport ${t}: npm run build, then npm test, pass`, async () => {
        const build = await npm(dir(t), ["run", "build"]);
        expectOk(build, `npm run build (${template}, ${t})`);
        const test = await npm(dir(t), ["test"]);
        expectOk(test, `npm test (${template}, ${t})`);
        timings[`${template} ${t}: npm test`] = test.ms;
        const passed = passedCount(test.stdout);
        console.log(`${template} --transport ${t}: npm test passed ${passed} tests in ${(test.ms / 1000).toFixed(1)} s (build ${(build.ms / 1000).toFixed(1)} s)`);
        expect(passed).toBeGreaterThan(t === "both" ? 100 : 40);
        expect(test.ms).toBeLessThan(60_000);
        const main = readFileSync(join(dir(t), "src", "main.ts"), "utf8");
        expect(main.includes("serveHttp")).toBe(t !== "stdio");
        expect(main.includes("serveStdio")).toBe(t !== "http");
      }, 300_000);
    }

    it("npm run generate is idempotent: a second run writes nothing and generated/ is unchanged", async () => {
      const project = dir("both");
      const before = hashTree(join(project, "generated"));
      const first = await npm(project, ["run", "generate"]);
      expectOk(first, "npm run generate");
      expect(first.stdout).toMatch(/, 0 written, 0 removed, sha256 [0-9a-f]{12}/);
      expect(hashTree(join(project, "generated"))).toBe(before);
      // Removing generated/ and regenerating gives the same bytes.
      rmSync(join(project, "generated"), { recursive: true });
      expectOk(await npm(project, ["run", "generate"]), "npm run generate (from nothing)");
      expect(hashTree(join(project, "generated"))).toBe(before);
    }, 120_000);

    for (const requirements of options.conformance ?? []) {
      // The official suite over HTTP against the built project; a scenario may fail only if listed (with its reason)
      // in expected-failures-<revision>.json, and a listed scenario that passes fails the run: the file only shrinks.
      it(`passes the official conformance suite --requirements ${requirements} over HTTP (expected failures listed)`, async () => {
        const project = dir("both");
        if (!existsSync(join(project, "dist", "src", "main.js"))) expectOk(await npm(project, ["run", "build"]), "npm run build");
        const server = spawn(process.execPath, [join(project, "dist", "src", "main.js"), "--transport", "http", "--port", "0"], { cwd: project, stdio: ["ignore", "pipe", "pipe"] });
        try {
          const url = await new Promise<string>((resolve, reject) => {
            let out = "";
            const timer = setTimeout(() => reject(new Error(`no listening line within 10 s: ${out}`)), 10_000);
            const onData = (c: Buffer) => {
              out += c;
              const m = /(http:\/\/\S+\/mcp)\b/.exec(out);
              if (m) {
                clearTimeout(timer);
                resolve(m[1]);
              }
            };
            server.stdout!.on("data", onData);
            server.stderr!.on("data", onData);
            server.once("exit", (code) => reject(new Error(`server exited ${code}: ${out}`)));
          });
          const expected = join(ROOT, "test", "scaffold", "conformance", `expected-failures-${requirements}.json`);
          const r = await run(process.execPath, [join(ROOT, "test", "conformance", "run-conformance.mjs"), "--url", url, "--requirements", requirements, "--out", tempDir(`conformance-${requirements}`), "--expected-failures", expected], { timeoutMs: 240_000 });
          const summary = /conformance \S+: (\d+) scenarios passed, (\d+) failed/.exec(r.stdout);
          console.log(`conformance --requirements ${requirements} against the everything template over HTTP: ${summary ? `${summary[1]}/${Number(summary[1]) + Number(summary[2])} scored scenarios passed` : "no summary"}\n${r.stdout}`);
          expectOk(r, `run-conformance --requirements ${requirements}`);
        } finally {
          server.kill("SIGTERM");
        }
      }, 300_000);
    }

    if (options.typeSafety) {
      it("a handler that no longer matches its regenerated interface, or a declared tool without a handler, fails npm run build", async () => {
        const project = dir("stdio");
        const manifestPath = join(project, "mcp.json");
        const original = readFileSync(manifestPath, "utf8");
        try {
          // 1. echo's inputSchema renames text → message: src/tools/echo.ts still destructures text.
          const m = JSON.parse(original);
          const echo = m.tools.find((t: { name: string }) => t.name === "echo");
          echo.inputSchema = { type: "object", properties: { message: { type: "string" } }, required: ["message"] };
          writeFileSync(manifestPath, JSON.stringify(m, null, 2));
          const renamed = await npm(project, ["run", "build"]);
          expect(renamed.status).not.toBe(0);
          expect(renamed.stdout + renamed.stderr).toMatch(/src\/tools\/echo\.ts.*error TS2339: Property 'text' does not exist on type 'EchoArgs'/);

          // 2. add's outputSchema now requires "total": the handler's structuredContent {sum} no longer fits.
          const m2 = JSON.parse(original);
          const add = m2.tools.find((t: { name: string }) => t.name === "add");
          add.outputSchema = { type: "object", properties: { total: { type: "number" } }, required: ["total"], additionalProperties: false };
          writeFileSync(manifestPath, JSON.stringify(m2, null, 2));
          const output = await npm(project, ["run", "build"]);
          expect(output.status).not.toBe(0);
          expect(output.stdout + output.stderr).toMatch(/src\/tools\/add\.ts.*error TS2322/);

          // 3. a declared tool without a handler file.
          const m3 = JSON.parse(original);
          m3.tools.push({ name: "shout", description: "Upper-cases a text", inputSchema: { type: "object", properties: { text: { type: "string" } } } });
          writeFileSync(manifestPath, JSON.stringify(m3, null, 2));
          const missing = await npm(project, ["run", "build"]);
          expect(missing.status).not.toBe(0);
          expect(missing.stdout + missing.stderr).toMatch(/error TS2307: Cannot find module '\.\.\/src\/tools\/shout\.js'/);

          // ... and writing it, typed by the generated interface, makes the build pass again.
          writeFileSync(
            join(project, "src", "tools", "shout.ts"),
            'import type { ShoutTool } from "../../generated/handlers.js";\n\nexport const handler: ShoutTool = ({ text = "" }) => ({ content: [{ type: "text", text: text.toUpperCase() }] });\n',
          );
          expectOk(await npm(project, ["run", "build"]), "npm run build with the new handler");
        } finally {
          writeFileSync(manifestPath, original);
          rmSync(join(project, "src", "tools", "shout.ts"), { force: true });
          expectOk(await npm(project, ["run", "build"]), "npm run build (restored)");
        }
      }, 300_000);
    }

    if (options.mutations) {
      // A runtime that breaks one rule must make the generated tests fail.
      const MUTATIONS: [string, RegExp, string, RegExp][] = [
        ["resource-not-found is always -32002", /(export function resourceNotFoundCode\(revision\) \{\s*)return [^;]+;/, "$1return -32002;", /answers an unknown resource with -32602 and data\.uri/],
        ["bad tool arguments are always a protocol error", /(export function toolInputErrorsAsResult\(revision\) \{\s*)return [^;]+;/, "$1return false;", /answers bad tool arguments with an isError result/],
      ];
      for (const [rule, pattern, replacement, failing] of MUTATIONS) {
        it(`the generated tests catch a runtime whose ${rule}`, async () => {
          const mutant = join(work, "mutant", `${template}-${rule.replace(/\W+/g, "-")}`);
          expectOk(await create([mutant, "--yes", "--no-install", "--template", template, "--transport", "stdio"]), "scaffold the mutant project");
          // A copy of the installed runtime (runtime/dist as packed into the project) with one rule broken.
          linkNodeModules(dir("both"), mutant, ["@create-mcp-server/runtime"]);
          const rulesJs = join(mutant, "node_modules", "@create-mcp-server", "runtime", "dist", "out", "rules.js");
          const source = readFileSync(rulesJs, "utf8");
          expect(source, "the rule to break is where the mutation expects it").toMatch(pattern);
          writeFileSync(rulesJs, source.replace(pattern, replacement));
          const test = await npm(mutant, ["test"]);
          expect(test.status, "npm test must fail against the broken runtime").not.toBe(0);
          expect(test.stdout).toMatch(failing);
          expect(existsSync(join(mutant, "dist", "src", "main.js"))).toBe(true); // it built: the failure is the tests'
        }, 300_000);
      }
    }
  });
}
