/**
 * `create-mcp-server-generate` on a valid project, as a real process: what it writes, that its output type-checks
 * against the runtime's definitions and registers every key mcp.json gives (icons and _meta included), that it is
 * deterministic and rewrites nothing unchanged, that an up-to-date generated/ is confirmed without loading the
 * generators, that the project is found from a subdirectory, and the handler files it names.
 */
import { execFile } from "node:child_process";
import { cpSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";
import { BIN, generate, makeProject, workDir, type Run } from "./support.js";

const work = workDir("generate");
afterAll(() => work.remove());

const ICON = { src: "data:image/png;base64,iVBORw0KGgo=", mimeType: "image/png", sizes: ["48x48"] };
const LONG_NAME = `lookup_${"x".repeat(93)}`; // 100 characters: the runtime's rule allows up to 128

const MANIFEST = {
  $schema: "./node_modules/@create-mcp-server/codegen/mcp.schema.json",
  name: "demo",
  version: "1.0.0",
  websiteUrl: "https://example.com/demo",
  revisions: ["2025-11-25", "2026-07-28"],
  tools: [
    { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, icons: [ICON], _meta: { "example.com/tier": "free" }, revisions: ["2026-07-28"] },
    {
      name: "get.sum",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
    },
    { name: LONG_NAME, inputSchema: { type: "object" } },
  ],
  prompts: [{ name: "summarize", icons: [ICON], _meta: { "example.com/kind": "text" }, arguments: [{ name: "text", title: "Text", required: true, complete: true }] }],
  resources: [{ uri: "app://about", name: "about", mimeType: "text/plain", icons: [ICON], _meta: { "example.com/cache": "1h" }, annotations: { audience: ["user"], priority: 0.5 } }],
  resourceTemplates: [{ uriTemplate: "app://greetings/{name}", name: "greeting", icons: [ICON], _meta: { "example.com/lang": "en" }, complete: ["name"] }],
};

const HANDLERS: Record<string, string> = {
  "src/tools/echo.ts": 'import type { EchoTool } from "../../generated/handlers.js";\nexport const handler: EchoTool = ({ text }) => ({ content: [{ type: "text", text }] });\n',
  "src/tools/get_sum.ts": 'import type { GetSumTool } from "../../generated/handlers.js";\nexport const handler: GetSumTool = ({ a, b }) => ({ content: [], structuredContent: { sum: a + b } });\n',
  [`src/tools/${LONG_NAME}.ts`]: "export const handler = () => ({ content: [] });\n",
  "src/prompts/summarize.ts":
    'import type { SummarizePrompt } from "../../generated/handlers.js";\nexport const get: SummarizePrompt["get"] = ({ text }) => ({ messages: [{ role: "user", content: { type: "text", text } }] });\nexport const complete: SummarizePrompt["complete"] = { text: () => ["a"] };\n',
  "src/resources/about.ts": 'export const read = (uri: string) => ({ contents: [{ uri, text: "about" }] });\n',
  "src/resources/greeting.ts":
    'import type { GreetingResourceTemplate } from "../../generated/handlers.js";\nexport const read: GreetingResourceTemplate["read"] = (uri, { name }) => ({ contents: [{ uri, text: `Hello, ${name}!` }] });\nexport const complete = { name: () => ["world"] };\n',
  "tsconfig.json": JSON.stringify({
    compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: true, outDir: "dist", rootDir: "." },
    include: ["src", "generated"],
  }),
};

const node = (args: string[], cwd: string): Promise<Run> =>
  new Promise((resolve) =>
    execFile(process.execPath, args, { cwd, encoding: "utf8" }, (err, stdout, stderr) => resolve({ status: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr })),
  );
const project = join(work.dir, "demo");
const generated = (path: string) => readFileSync(join(project, "generated", path), "utf8");
let first: Run;

beforeAll(async () => {
  makeProject(project, MANIFEST, HANDLERS);
  first = await generate(project);
});

describe("create-mcp-server-generate", () => {
  it("writes generated/ from mcp.json and says what it wrote", () => {
    expect([first.status, first.stderr]).toEqual([0, ""]);
    expect(first.stdout).toMatch(/^generated\/: 11 files from mcp\.json \(3 tools, 1 prompt, 2 resources\), 11 written, 0 removed, sha256 [0-9a-f]{12}, \d+ ms\n$/);
    expect(generated("handlers.ts")).toContain("export type GetSumTool = (args: GetSumArgs, ctx: RequestContext) => Awaitable<StructuredToolResult<GetSumResult>>;");
    expect(generated("manifest.ts")).toContain('websiteUrl: "https://example.com/demo"');
  });

  it("type-checks against the runtime's definitions and registers every key of mcp.json: icons, _meta and revisions too", async () => {
    const tsc = await node([join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], project);
    expect(tsc.status, tsc.stdout).toBe(0);
    // register() with a server that records what it is given: the definitions as the runtime receives them.
    const script = `import { register } from "./dist/generated/register.js";
      const seen = {};
      // Functions are the handlers and validators; of the completers, their names.
      const data = (def) => Object.fromEntries(Object.entries(def).filter(([, v]) => typeof v !== "function").map(([k, v]) => (k === "complete" ? ["completed", Object.keys(v)] : [k, v])));
      const record = (kind) => (def) => (seen[kind] ??= []).push(data(def));
      register({ tool: record("tool"), prompt: record("prompt"), resource: record("resource"), resourceTemplate: record("resourceTemplate") });
      console.log(JSON.stringify(seen));`;
    const r = await node(["--input-type=module", "-e", script], project);
    expect(r.status, r.stderr).toBe(0);
    const seen = JSON.parse(r.stdout);
    const { complete: _argComplete, ...argument } = MANIFEST.prompts[0].arguments[0];
    const { complete: _templateComplete, ...template } = MANIFEST.resourceTemplates[0];
    expect(seen).toEqual({
      tool: MANIFEST.tools,
      prompt: [{ ...MANIFEST.prompts[0], arguments: [argument], completed: ["text"] }],
      resource: MANIFEST.resources,
      resourceTemplate: [{ ...template, completed: ["name"] }],
    });
  });

  it("confirms an up-to-date generated/ without loading the generators, and rewrites nothing unchanged", async () => {
    const before = statSync(join(project, "generated", "register.ts")).mtimeMs;
    // The generators made unloadable: only a run that needs them fails.
    writeFileSync(
      join(work.dir, "hooks.mjs"),
      "export async function resolve(s, c, next) { if (/^(ajv|ajv-formats|json-schema-to-typescript|prettier)(\\/|$)/.test(s)) throw new Error(`loaded ${s}`); return next(s, c); }\n",
    );
    writeFileSync(join(work.dir, "no-generators.mjs"), 'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n');
    const fast = await node(["--import", join(work.dir, "no-generators.mjs"), BIN], project);
    expect([fast.status, fast.stderr]).toEqual([0, ""]);
    expect(fast.stdout).toMatch(/^generated\/: up to date, 11 files from mcp\.json, 0 written, 0 removed, sha256 ([0-9a-f]{12}), \d+ ms\n$/);
    expect(fast.stdout.match(/sha256 (\w+)/)![1]).toBe(first.stdout.match(/sha256 (\w+)/)![1]);
    rmSync(join(project, "generated", ".inputs"));
    const slow = await node(["--import", join(work.dir, "no-generators.mjs"), BIN], project);
    expect(slow.status, "without the stamp the generators are needed").toBe(1);
    const again = await generate(project);
    expect(again.stdout).toMatch(/^generated\/: 11 files from mcp\.json \(3 tools, 1 prompt, 2 resources\), 0 written, 0 removed, /);
    expect(statSync(join(project, "generated", "register.ts")).mtimeMs).toBe(before);
  });

  it("is deterministic: an edited file is rewritten, a stale one removed, and generated/ rebuilt from nothing is the same", async () => {
    const copy = join(work.dir, "copy");
    cpSync(project, copy, { recursive: true, verbatimSymlinks: true });
    writeFileSync(join(copy, "generated", "handlers.ts"), "// edited\n");
    writeFileSync(join(copy, "generated", "types", "tool-gone.ts"), "// no longer generated\n");
    expect((await generate(copy)).stdout).toMatch(/, 1 written, 1 removed, /);
    rmSync(join(copy, "generated"), { recursive: true });
    expect((await generate(copy)).stdout).toMatch(/, 11 written, 0 removed, /);
    for (const f of ["handlers.ts", "register.ts", "manifest.ts", "types/tool-get_sum.ts", "types/tool-get_sum.result.ts", "validators/get_sum.output.ts"]) {
      expect(readFileSync(join(copy, "generated", f), "utf8"), f).toBe(generated(f));
    }
  });

  it("finds the project from a subdirectory (the nearest mcp.json up)", async () => {
    const r = await generate(join(project, "src", "tools"));
    expect([r.status, r.stdout]).toEqual([0, expect.stringMatching(/^generated\/: up to date, 11 files/)]);
  });

  it("generates code that compiles from names with */ in them and from input and output schemas that name a part alike", async () => {
    const part = (type: string) => ({ $defs: { Unit: { title: "Unit", type } }, properties: { unit: { $ref: "#/$defs/Unit" } } });
    const dir = makeProject(
      join(work.dir, "odd-names"),
      {
        name: "demo",
        version: "1.0.0",
        tools: [{ name: "convert", inputSchema: { type: "object", ...part("string") }, outputSchema: { type: "object", ...part("number") } }],
        prompts: [{ name: "a*/b" }],
        resources: [{ uri: "file:///*/readme", name: "readme" }],
        resourceTemplates: [{ uriTemplate: "file:///*/{id}", name: "file" }],
      },
      {
        "src/tools/convert.ts": 'import type { ConvertTool } from "../../generated/handlers.js";\nexport const handler: ConvertTool = () => ({ content: [], structuredContent: { unit: 1 } });\n',
        "src/prompts/a__b.ts": "export const get = () => ({ messages: [] });\n",
        "src/resources/readme.ts": 'export const read = (uri: string) => ({ contents: [{ uri, text: "" }] });\n',
        "src/resources/file.ts": 'export const read = (uri: string) => ({ contents: [{ uri, text: "" }] });\n',
        "tsconfig.json": HANDLERS["tsconfig.json"],
      },
    );
    const r = await generate(dir);
    expect([r.status, r.stderr]).toEqual([0, ""]);
    const tsc = await node([join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json", "--noEmit"], dir);
    expect(tsc.status, tsc.stdout).toBe(0);
  });

  it("declares a validator's type instead of leaving tsc to infer it from ajv's code, and names a tool with a digit before a lowercase letter as handlers.ts imports it", async () => {
    const dir = makeProject(
      join(work.dir, "declared"),
      { name: "demo", version: "1.0.0", tools: [{ name: "k8s.inject", inputSchema: { type: "object", properties: { pod: { type: "string" } } }, outputSchema: { type: "object" } }] },
      {
        "src/tools/k8s_inject.ts":
          'import type { K8sInjectTool } from "../../generated/handlers.js";\nexport const handler: K8sInjectTool = ({ pod }) => ({ content: [], structuredContent: { pod } });\n',
        // Inferred from the body, the type would also have the `evaluated` that ajv's code assigns to the function.
        "src/check.ts":
          'import validate from "../generated/validators/k8s_inject.input.js";\ntype Declared = typeof validate extends { evaluated: unknown } ? "inferred" : "declared";\nexport const declared: Declared = "declared";\nexport const valid: boolean = validate({ pod: "a" });\n',
        "tsconfig.json": HANDLERS["tsconfig.json"],
      },
    );
    const r = await generate(dir);
    expect([r.status, r.stderr]).toEqual([0, ""]);
    const tsc = await node([join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json", "--noEmit"], dir);
    expect(tsc.status, tsc.stdout).toBe(0);
  });

  it("names a declared handler that is missing, with a stub, and a handler whose declaration is gone; a helper is only noted", async () => {
    const dir = makeProject(
      join(work.dir, "handlers"),
      { ...MANIFEST, tools: [...MANIFEST.tools, { name: "shout", inputSchema: { type: "object" } }] },
      {
        ...HANDLERS,
        "src/tools/old.ts": 'import type { OldTool } from "../../generated/handlers.js";\nexport const handler: OldTool = () => ({ content: [] });\n',
        "src/tools/util.ts": "export const twice = (s: string) => s + s;\n",
      },
    );
    const r = await generate(dir);
    expect(r.status).toBe(1);
    expect(r.stderr.split("\n").filter(Boolean)).toEqual([
      'generate: mcp.json declares tool "shout" but src/tools/shout.ts is missing; create it, e.g.: import type { ShoutTool } from "../../generated/handlers.js"; export const handler: ShoutTool = (args, ctx) => ({ content: [{ type: "text", text: "…" }] });',
      "generate: src/tools/old.ts is the handler of a tool that mcp.json no longer declares; delete src/tools/old.ts, or declare it again in mcp.json",
      "generate: src/tools/util.ts is not declared in mcp.json (not registered)",
    ]);
  });
});
