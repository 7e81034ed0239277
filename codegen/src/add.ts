/**
 * `create-mcp-server-generate add tool|prompt|resource NAME` (what `create-mcp-server add` runs in a project): the
 * mcp.json entry (formatted as the project's prettier configuration says, with a placeholder inputSchema for a tool),
 * the handler file (the stub `generate` names for a missing one), a test to start from, then generated/ anew. A name
 * already declared, one that is not a valid name, or a file in the way is refused in one line, and nothing is written.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fail } from "./errors.js";
import { generate } from "./generate.js";
import { checkHandlers, stub, TYPE_SUFFIX, type Kind } from "./handlers-check.js";
import type { McpJson } from "./manifest-types.js";
import { fileName, pascal } from "./names.js";
import { parseJson } from "./json-source.js";
import { projectRoot } from "./manifest.js";
import { toolNameRule } from "./runtime.js";

export const KINDS = ["tool", "prompt", "resource"] as const;
export type AddKind = (typeof KINDS)[number];

const DIRS: Record<AddKind, "tools" | "prompts" | "resources"> = { tool: "tools", prompt: "prompts", resource: "resources" };

/** The mcp.json entry of a new declaration: what the schema requires, and a description to replace. */
function entry(kind: AddKind, name: string): Record<string, unknown> {
  const description = `TODO: what ${name} does.`;
  switch (kind) {
    case "tool":
      // A placeholder: no arguments. Its properties are the arguments the handler gets, typed by generate.
      return { name, description, inputSchema: { type: "object", properties: {}, additionalProperties: false } };
    case "prompt":
      return { name, description, arguments: [] };
    case "resource":
      return { uri: `app://${encodeURIComponent(name)}`, name, description, mimeType: "text/plain" };
  }
}

/** A vitest file that calls it over every transport and revision served (the project's test/helpers.ts). */
function testStub(kind: AddKind, name: string, uri: string | undefined): string {
  const call =
    kind === "tool"
      ? `const result = await get().client.callTool(${JSON.stringify(name)}, {});\n    expect(result.isError ?? false).toBe(false);`
      : kind === "prompt"
        ? `const result = await get().client.getPrompt(${JSON.stringify(name)}, {});\n    expect(Array.isArray(result.messages)).toBe(true);`
        : `const result = await get().client.readResource(${JSON.stringify(uri)});\n    expect(result.contents).toHaveLength(1);`;
  return (
    `// ${kind} ${name}: a test to start from (written by create-mcp-server add), run over every transport and revision served.\n` +
    `import { expect, it } from "vitest";\nimport { eachConnection } from "../helpers.js";\n\n` +
    `eachConnection(({ get }) => {\n  it(${JSON.stringify(`${kind} ${name} answers`)}, async () => {\n    ${call}\n  });\n});\n`
  );
}

/** Run the command; returns the lines it prints. Throws ManifestError (one line) on a refusal, with nothing written. */
export async function add(args: readonly string[], cwd: string = process.cwd()): Promise<string[]> {
  const [kind, name, ...rest] = args;
  if (!KINDS.includes(kind as AddKind)) fail(`add: unknown kind ${JSON.stringify(kind ?? "")}: add ${KINDS.join("|")} NAME`);
  if (!name || rest.length) fail(`add: name one ${kind}: add ${kind} NAME`);
  const k = kind as AddKind;
  const root = projectRoot(cwd);
  const rule = await toolNameRule(root);
  if (!rule.test(name)) fail(`add: ${JSON.stringify(name)} is not a valid ${k} name: 1-128 characters of A-Z, a-z, 0-9, _, - and .`);
  const path = join(root, "mcp.json");
  const m = parseJson(readFileSync(path, "utf8")) as McpJson;
  const lists = k === "tool" ? [m.tools] : k === "prompt" ? [m.prompts] : [m.resources, m.resourceTemplates];
  if (lists.some((list) => (list ?? []).some((d: { name: string }) => d.name === name)))
    fail(`add: mcp.json already declares ${k === "resource" ? "a resource or resource template" : `${k}`} "${name}"`);
  const file = fileName(name);
  const handler = `src/${DIRS[k]}/${file}.ts`;
  const test = `test/${DIRS[k]}/${file}.test.ts`;
  for (const f of [handler, test]) if (existsSync(join(root, f))) fail(`add: ${f} exists already (another declaration's file?); choose another name, or move it away`);
  const declared = entry(k, name);
  if (k === "resource" && (m.resources ?? []).some((r) => r.uri === declared.uri)) fail(`add: mcp.json already declares a resource at ${declared.uri}`);

  const listKey = DIRS[k];
  const all = m as unknown as Record<string, unknown[] | undefined>;
  all[listKey] = [...(all[listKey] ?? []), declared];
  const prettier = await import("prettier");
  const format = async (rel: string, text: string) => prettier.format(text, { ...(await prettier.resolveConfig(join(root, rel))), filepath: join(root, rel) });
  const P = pascal(name);
  const type = `${P}${TYPE_SUFFIX[k as Kind]}`;
  const files: [string, string][] = [
    ["mcp.json", await format("mcp.json", JSON.stringify(m, null, 2))],
    [handler, await format(handler, `import type { ${type} } from "../../generated/handlers.js";\n\n/** ${declared.description} */\n${stub(k as Kind, P, false)}\n`)],
    [test, await format(test, testStub(k, name, declared.uri as string | undefined))],
  ];
  for (const [rel, text] of files) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  const { summary, manifest } = await generate(root);
  const lines = [`Added ${k} "${name}": mcp.json, ${handler}, ${test}`, summary];
  checkHandlers(root, manifest, (l) => lines.push(l.trimEnd()));
  const next =
    k === "tool"
      ? "its inputSchema in mcp.json (the arguments), then its handler"
      : k === "prompt"
        ? "its arguments in mcp.json, then its handler"
        : "its uri and mimeType in mcp.json, then its handler";
  lines.push(`Next: fill in ${next} in ${handler}, and run npm test.`);
  return lines;
}
