/**
 * The user's path, end to end, against a real npm registry on 127.0.0.1 (verdaccio; see registry.ts):
 *
 * 1. `npm run release -- --registry <url>` publishes the checkout's three packages (runtime, codegen, command);
 * 2. from empty directories whose npm config names only that registry, `npm create mcp-server@latest` and
 *    `npx create-mcp-server` scaffold projects (basic, everything, basic with --auth oauth) that depend on the
 *    published packages by version, and their own `npm test` passes; `npx create-mcp-server --from-openapi` imports
 *    the Petstore with the published command's own dependencies;
 * 3. a next version, with a visible change (the runtime reports its version: `--version`), is released from a copy of
 *    the checkout; `npx create-mcp-server@latest upgrade` in each project updates package.json and package-lock.json;
 *    with an empty npm cache `npm ci` succeeds, the new runtime is what runs, and `npm test` passes again.
 *
 * The projects run side by side (their npm and test runs are mostly I/O), and the next release is made while their
 * first tests run; every step's output is shown when it fails.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";
import { CHECKOUT_VERSION, nextPatch, startRegistry, type LocalRegistry } from "./registry.js";

interface Step {
  status: number | null;
  output: string;
}

let registry: LocalRegistry;
let work: string;

/** A command under the registry's environment only (no npm_* variables of the suite's own npm). */
function sh(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 300_000): Promise<Step> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, encoding: "utf8", timeout: timeoutMs, maxBuffer: 64 << 20, env: { ...registry.env, CI: "true", ...env } }, (err, stdout, stderr) => {
      const status = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : null) : 0;
      resolve({ status, output: `${stdout}\n${stderr}` });
    });
  });
}

async function ok(step: Promise<Step>, what: string): Promise<string> {
  const r = await step;
  if (r.status !== 0) throw new Error(`${what} exited ${r.status}\n${r.output.slice(-8000)}\n--- registry log\n${registry.log().slice(-3000)}`);
  return r.output;
}

const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));

/** Every step settled (none left running into the next), then the first failure, if any, is the test's. */
async function allOf(steps: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(steps)).find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}
const NEXT = nextPatch(CHECKOUT_VERSION);
/**
 * The maintainer publishes from another machine than the users': an npm cache of their own, so the users' npm holds
 * package metadata from before each release (an install that trusted it would not find the new version).
 */
const maintainer = (): NodeJS.ProcessEnv => ({ npm_config_cache: join(work, "maintainer-npm-cache") });

/** A copy of the checkout to release the next version from (the checkout itself is never bumped). */
function stageCheckout(): string {
  const stage = mkdtempSync(join(tmpdir(), "release-stage-"));
  cpSync(ROOT, stage, {
    recursive: true,
    filter: (src) => !/^(node_modules|\.git|bench\/\.generated)(\/|$)/.test(relative(ROOT, src)) && !/(^|\/)node_modules(\/|$)/.test(relative(ROOT, src)),
  });
  symlinkSync(join(ROOT, "node_modules"), join(stage, "node_modules"));
  for (const file of ["CHANGELOG.md", "runtime/CHANGELOG.md", "codegen/CHANGELOG.md"]) {
    const path = join(stage, file);
    writeFileSync(path, readFileSync(path, "utf8").replace(/^## Unreleased\n/m, `## Unreleased\n\n- Release test: ${NEXT}, from a copy of the checkout.\n`));
  }
  return stage;
}

const PROJECTS = [
  { name: "basic-app", via: "npm create", args: [] as string[] },
  { name: "everything-app", via: "npx", args: ["--template", "everything"] },
  { name: "oauth-app", via: "npx", args: ["--auth", "oauth", "--transport", "http"] },
];

beforeAll(async () => {
  registry = await startRegistry();
  work = mkdtempSync(join(tmpdir(), "registry-users-"));
}, 60_000);

afterAll(async () => {
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("released to a registry, scaffolded, tested and upgraded from it", () => {
  it("the published packages scaffold projects that test green, and upgrade to the next release with a clean npm ci", async () => {
    // 1. The release command, as a maintainer runs it (the suite's pretest built the checkout).
    const released = await ok(sh("npm", ["run", "release", "--", "--registry", registry.url, "--no-build"], ROOT, maintainer()), "npm run release");
    for (const name of ["@create-mcp-server/runtime", "@create-mcp-server/codegen", "create-mcp-server"]) expect(released).toContain(`${name}@${CHECKOUT_VERSION}: published`);

    // 2. Scaffold from the registry, from empty directories, each in its own way. Concurrent npx runs of one package
    // share one npx install folder, and one that finds it half written fails (ENOENT on a template file): the first
    // run installs it alone, then the others only read it.
    const dirs = PROJECTS.map((p) => join(work, p.name));
    await ok(sh("npx", ["--yes", "create-mcp-server", "--version"], work), "npx create-mcp-server --version");
    await allOf([
      ...PROJECTS.map(async (p, i) => {
        const home = join(work, `home-${p.name}`);
        mkdirSync(home);
        const create =
          p.via === "npm create"
            ? sh("npm", ["create", "mcp-server@latest", p.name, "--", "--yes", "--no-git", ...p.args], work)
            : sh("npx", ["--yes", "create-mcp-server", p.name, "--yes", "--no-git", ...p.args], work);
        await ok(create, `${p.via} ${p.name}`);
        const pkg = readJson(join(dirs[i], "package.json"));
        expect(pkg.dependencies["@create-mcp-server/runtime"]).toBe(`^${CHECKOUT_VERSION}`);
        expect(pkg.devDependencies["@create-mcp-server/codegen"]).toBe(`^${CHECKOUT_VERSION}`);
        expect(JSON.stringify(pkg)).not.toContain("file:");
        expect(existsSync(join(dirs[i], "vendor"))).toBe(false);
        // Nothing of the generator is in what production installs.
      }),
      // The published command imports an OpenAPI document with its own dependencies (swagger-parser), not the checkout's.
      (async () => {
        const doc = join(work, "petstore.json");
        cpSync(join(ROOT, "node_modules", "@readme", "oas-examples", "3.0", "json", "petstore.json"), doc);
        const made = await ok(sh("npx", ["--yes", "create-mcp-server", "petstore-app", "--from-openapi", doc, "--yes", "--no-git", "--no-install"], work), "npx create-mcp-server --from-openapi");
        expect(made).toContain(`Imported 20 tools from ${doc} (OpenAPI 3.0)`);
        const mcp = readJson(join(work, "petstore-app", "mcp.json"));
        expect(mcp.tools.length).toBe(20);
        expect(mcp.tools.find((t: { name: string }) => t.name === "getPetById").annotations).toEqual({ readOnlyHint: true, openWorldHint: true });
        expect(readJson(join(work, "petstore-app", "package.json")).dependencies["@create-mcp-server/runtime"]).toBe(`^${CHECKOUT_VERSION}`);
      })(),
    ]);

    // Their own tests, while the maintainer makes the next release (3.): the projects resolved "latest" when they were
    // scaffolded, and their tests use the registry no more, so the two are independent and run side by side.
    await allOf([
      ...PROJECTS.map((p, i) => ok(sh("npm", ["test"], dirs[i]), `npm test in ${p.name}`)),
      // 3. The next release: its runtime reports the new version, which the upgraded projects must run.
      (async () => {
        const stage = stageCheckout();
        try {
          const next = await ok(sh("npm", ["run", "release", "--", "--registry", registry.url, "--version", NEXT], stage, { ...maintainer(), MCP_SCHEMA_MIRROR: "" }), "npm run release (next)");
          expect(next).toContain(`create-mcp-server@${NEXT}: published`);
          expect(readFileSync(join(stage, "runtime", "CHANGELOG.md"), "utf8")).toMatch(new RegExp(`^## ${NEXT.replace(/\./g, "\\.")} \\(\\d{4}-\\d\\d-\\d\\d\\)\\n\\n- Release test`, "m"));
        } finally {
          rmSync(stage, { recursive: true, force: true });
        }
      })(),
    ]);

    // The upgrades' npx installs the next release once, alone (as above), then the projects upgrade side by side.
    expect(await ok(sh("npx", ["--yes", "create-mcp-server@latest", "--version"], work), "npx create-mcp-server@latest --version")).toContain(NEXT);
    await allOf(
      PROJECTS.map(async (p, i) => {
        const dir = dirs[i];
        const lockBefore = readJson(join(dir, "package-lock.json")).packages["node_modules/@create-mcp-server/runtime"];
        expect(lockBefore.version).toBe(CHECKOUT_VERSION);
        // The user's own change, which the upgrade keeps.
        writeFileSync(join(dir, "README.md"), readFileSync(join(dir, "README.md"), "utf8") + "\nOur notes.\n");
        const readme = readFileSync(join(dir, "README.md"), "utf8");
        const upgraded = await ok(sh("npx", ["--yes", "create-mcp-server@latest", "upgrade"], dir), `upgrade ${p.name}`);
        expect(upgraded).toContain("Kept 1 file you changed since it was scaffolded (not overwritten):\n  README.md\n");
        expect(upgraded).toMatch(/\): 1 file written, serving /); // package.json, with the new versions
        expect(upgraded).toContain(`✔ Upgraded ${p.name}. Next: npm run build && npm test`);
        expect(readFileSync(join(dir, "README.md"), "utf8")).toBe(readme);
        const pkg = readJson(join(dir, "package.json"));
        expect([pkg.dependencies["@create-mcp-server/runtime"], pkg.devDependencies["@create-mcp-server/codegen"]]).toEqual([`^${NEXT}`, `^${NEXT}`]);
        const lock = readJson(join(dir, "package-lock.json")).packages;
        expect([lock["node_modules/@create-mcp-server/runtime"].version, lock["node_modules/@create-mcp-server/codegen"].version]).toEqual([NEXT, NEXT]);
        expect(lock["node_modules/@create-mcp-server/runtime"].resolved).toMatch(new RegExp(`^${registry.url}`));

        // Another machine: no node_modules, an empty cache.
        rmSync(join(dir, "node_modules"), { recursive: true, force: true });
        await ok(sh("npm", ["ci", "--cache", registry.emptyCache()], dir), `npm ci in ${p.name}`);
        await ok(sh("npm", ["test"], dir), `npm test in ${p.name} after the upgrade`);
        const version = await ok(sh(process.execPath, [join(dir, "dist", "src", "main.js"), "--version"], dir), `${p.name} --version`);
        expect(version.trim()).toBe(`${p.name} 0.1.0 (@create-mcp-server/runtime ${NEXT})`);
      }),
    );
  }, 900_000);
});
