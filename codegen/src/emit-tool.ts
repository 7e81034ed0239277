/**
 * A tool of mcp.json → its argument (and result) types, its validators, its handler type `<Name>Tool` and its
 * registration: `server.tool({...its definition, validators, handler})`.
 */
import { docText, HEADER, literal, pick, type Emitted, type EveryKey } from "./code.js";
import { at, fail, pointer } from "./errors.js";
import type { ToolEntry } from "./manifest-types.js";
import { camel, fileName, pascal } from "./names.js";
import { schemaTypes } from "./types.js";
import { validatorSource } from "./validators.js";

/** Every key of a tool's definition that mcp.json holds, in the order register.ts lists them. */
const TOOL_KEYS = ["name", "title", "description", "inputSchema", "outputSchema", "annotations", "icons", "taskSupport", "_meta", "scopes", "revisions"] as const;
const toolKeys: EveryKey<ToolEntry, typeof TOOL_KEYS> = TOOL_KEYS;

/** A schema's code (types or validator); a schema the generators cannot turn into code is a mistake at its pointer. */
async function fromSchema(t: ToolEntry, index: number, key: "inputSchema" | "outputSchema", make: (schema: Record<string, unknown>) => Promise<string>): Promise<string> {
  try {
    return await make(t[key] as Record<string, unknown>);
  } catch (err) {
    const reason = String((err as Error)?.message ?? err).split("\n")[0];
    return fail(at(pointer("tools", index, key), `tool ${JSON.stringify(t.name)}: no code can be generated from ${key}: ${reason}`));
  }
}

/** The generated code of tool `t`, the tool at `index` in mcp.json's "tools". */
export async function emitTool(t: ToolEntry, index: number): Promise<Emitted> {
  const P = pascal(t.name);
  const f = fileName(t.name);
  const structured = t.outputSchema !== undefined;
  const names = structured ? `${P}Args, ${P}Result` : `${P}Args`;
  // The result types have a file of their own: both schemas may name a part alike ($defs, titles), each its own type.
  const files: [string, string][] = [
    [`types/tool-${f}.ts`, HEADER + (await fromSchema(t, index, "inputSchema", (s) => schemaTypes(s, `${P}Args`)))],
    [`validators/${f}.input.ts`, await fromSchema(t, index, "inputSchema", validatorSource)],
  ];
  if (structured) {
    files.push([`types/tool-${f}.result.ts`, HEADER + (await fromSchema(t, index, "outputSchema", (s) => schemaTypes(s, `${P}Result`)))]);
    files.push([`validators/${f}.output.ts`, await fromSchema(t, index, "outputSchema", validatorSource)]);
  }

  const summary = t.description ? `: ${docText(t.description).replace(/[.!?]?$/, ".")}` : ".";
  const handlers = [
    "",
    `export type { ${names} };`,
    `/** Tool \`${t.name}\`${summary} Implement it in src/tools/${f}.ts as \`export const handler: ${P}Tool\`. */`,
    `export type ${P}Tool = (args: ${P}Args, ctx: RequestContext) => Awaitable<${structured ? `StructuredToolResult<${P}Result>` : "ToolResult"}>;`,
  ];
  const id = `tool_${camel(t.name)}`;
  const imports = [`import { handler as ${id} } from "../src/tools/${f}.js";`, `import ${id}_input from "./validators/${f}.input.js";`];
  if (structured) imports.push(`import ${id}_output from "./validators/${f}.output.js";`);
  const body = [
    `  // The handler must match its generated interface: a changed schema that it no longer fits fails the build here.`,
    `  const ${id}_handler: H.${P}Tool = ${id};`,
    `  server.tool<H.${P}Args>({`,
    `    ...${literal(pick(t, toolKeys))},`,
    `    validateInput: fromAjv(${id}_input),`,
    ...(structured ? [`    validateOutput: fromAjv(${id}_output),`] : []),
    `    handler: ${id}_handler as ToolDefinition<H.${P}Args>["handler"],`,
    `  });`,
  ];
  const typeImports = [`import type { ${P}Args } from "./types/tool-${f}.js";`, ...(structured ? [`import type { ${P}Result } from "./types/tool-${f}.result.js";`] : [])];
  return { files, typeImports, handlers, imports, body };
}
