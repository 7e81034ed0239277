/**
 * What a file upgrade would write needs of the files it keeps (generator/upgrade-needs.ts), on hand-written files
 * shaped like the ones older releases wrote: a Dockerfile whose CMD passes --allow-remote beside a kept main.ts that
 * does not declare it, a CI workflow running `npm run lint` beside a kept package.json without that script, a
 * scripts/dev.mjs that no kept script runs.
 */
import { describe, expect, it } from "vitest";
import { blockedWrites, needsOf } from "../../generator/upgrade-needs.js";

const DOCKERFILE = [
  "FROM node:20-slim",
  "RUN npm ci && npm run build",
  `HEALTHCHECK --interval=30s CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/healthz').then((r) => process.exit(r.ok ? 0 : 1))"]`,
  `CMD ["node", "dist/src/main.js", "--transport", "http", "--host", "0.0.0.0", "--allow-remote"]`,
].join("\n");
const WORKFLOW = "jobs:\n  test:\n    steps:\n      - run: npm ci\n      - run: npm run lint\n      - run: npm test\n";
const OLD_MAIN = `const { values } = parseArgs({ options: { transport: { type: "string" }, host: { type: "string" }, port: { type: "string" } } });\nif (url.pathname === "/healthz") ok();\n`;
const NEW_MAIN = OLD_MAIN.replace(`port: { type: "string" }`, `port: { type: "string" }, "allow-remote": { type: "boolean" }`);
const OLD_PKG = JSON.stringify({ scripts: { build: "tsc", test: "vitest run", start: "node dist/src/main.js" } });

describe("upgrade: what a written file needs of a kept one", () => {
  it("reads the needs from the files: scripts run, flags passed to main.js, the health probe, who runs a script file", () => {
    expect(needsOf("Dockerfile", DOCKERFILE).map((n) => `${n.file}: ${n.what}`)).toEqual([
      'package.json: runs the script "build"',
      "src/main.ts: passes --transport to dist/src/main.js",
      "src/main.ts: passes --host to dist/src/main.js",
      "src/main.ts: passes --allow-remote to dist/src/main.js",
      "src/main.ts: probes /healthz",
    ]);
    expect(needsOf(".github/workflows/test.yml", WORKFLOW).map((n) => n.what)).toEqual(['runs the script "lint"', 'runs the script "test"']);
    const rendered = (p: string) => (p === "package.json" ? JSON.stringify({ scripts: { dev: "node scripts/dev.mjs" } }) : undefined);
    expect(needsOf("scripts/dev.mjs", "// dev", rendered).map((n) => `${n.file}: ${n.what}`)).toEqual(["package.json: is run by a package.json script"]);
    // A script the new package.json does not run is run by hand (the README says how): it needs nothing.
    expect(needsOf("scripts/add-to-client.mjs", "// add", rendered)).toEqual([]);
    expect(needsOf("src/tools/echo.ts", "export const handler = 1;")).toEqual([]);
  });

  it("a main.ts that passes its logger to buildServer is not written beside a kept src/server.ts whose buildServer takes nothing", () => {
    const main = "server = buildServer({ logger: ({ level, ...fields }) => log(level, fields) });\n";
    expect(needsOf("src/main.ts", main).map((n) => `${n.file}: ${n.what}`)).toEqual(["src/server.ts: passes options to buildServer()"]);
    expect(needsOf("src/main.ts", "server = buildServer();\n")).toEqual([]);
    const oldServer = "export function buildServer(): McpServer {\n  return register(createServer({ ...serverInfo, revisions }));\n}\n";
    const newServer = "export function buildServer(options: Partial<ServerOptions> = {}): McpServer {\n  return register(createServer({ ...options, ...serverInfo, revisions }));\n}\n";
    const files = new Map([["src/main.ts", main]]);
    const blocked = blockedWrites(files, new Set(["src/server.ts"]), () => oldServer);
    expect(blocked).toEqual([
      {
        path: "src/main.ts",
        by: "src/server.ts",
        reason:
          "src/main.ts passes options to buildServer(), which your src/server.ts (kept) does not have: bring src/server.ts up to date from a new scaffold (create-mcp-server <dir> with the same options), then run upgrade again",
      },
    ]);
    expect(blockedWrites(files, new Set(["src/server.ts"]), () => newServer)).toEqual([]);
  });

  it("leaves out a file whose need a kept file lacks, naming both, and writes it when the kept file has it", () => {
    const files = new Map([
      ["Dockerfile", DOCKERFILE],
      [".github/workflows/test.yml", WORKFLOW],
      ["scripts/dev.mjs", "// dev"],
    ]);
    const onDisk: Record<string, string> = { "src/main.ts": OLD_MAIN, "package.json": OLD_PKG };
    const rendered = (p: string) => (p === "package.json" ? JSON.stringify({ scripts: { dev: "node scripts/dev.mjs", lint: "prettier --check ." } }) : undefined);
    const blocked = blockedWrites(files, new Set(["src/main.ts", "package.json"]), (p) => onDisk[p], rendered);
    expect(blocked.map((b) => [b.path, b.by])).toEqual([
      ["Dockerfile", "src/main.ts"],
      [".github/workflows/test.yml", "package.json"],
      ["scripts/dev.mjs", "package.json"],
    ]);
    expect(blocked[0].reason).toBe(
      "Dockerfile passes --allow-remote to dist/src/main.js, which your src/main.ts (kept) does not have: bring src/main.ts up to date from a new scaffold (create-mcp-server <dir> with the same options), then run upgrade again",
    );
    expect(blocked[1].reason).toBe('.github/workflows/test.yml runs the script "lint", which your package.json (kept) does not have: add it to package.json\'s scripts, then run upgrade again');

    // The kept files have what the new ones need: nothing is left out.
    const current: Record<string, string> = {
      "src/main.ts": NEW_MAIN,
      "package.json": JSON.stringify({ scripts: { build: "tsc", test: "vitest", lint: "prettier --check .", dev: "node scripts/dev.mjs" } }),
    };
    expect(blockedWrites(files, new Set(["src/main.ts", "package.json"]), (p) => current[p], rendered)).toEqual([]);
    // Files written anew meet each other's needs: only a kept file can block.
    expect(blockedWrites(files, new Set(), (p) => onDisk[p], rendered)).toEqual([]);
  });
});
