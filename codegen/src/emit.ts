/**
 * The glue of generated/: handlers.ts (every handler interface), register.ts (every registration, typed by the
 * runtime's definition types in the project's own build) and manifest.ts (the server's identity), from the emitters
 * of each kind; everything but the ajv output formatted by prettier.
 */
import { HEADER, literal, pick, type Emitted, type EveryKey } from "./code.js";
import { emitPrompt } from "./emit-prompt.js";
import { emitResourceTemplate } from "./emit-resource-template.js";
import { emitResource } from "./emit-resource.js";
import { emitTool } from "./emit-tool.js";
import { generators } from "./generators.js";
import type { Manifest, ServerInfo } from "./manifest-types.js";

const SERVER_KEYS = ["name", "version", "title", "description", "websiteUrl", "instructions"] as const;
const serverKeys: EveryKey<ServerInfo, typeof SERVER_KEYS> = SERVER_KEYS;

/** Every file of generated/ for `m`: path under generated/ → content. Deterministic: the same mcp.json gives the same bytes. */
export async function generatedFiles(m: Manifest): Promise<Map<string, string>> {
  const parts: Emitted[] = [];
  for (const [i, t] of m.tools.entries()) parts.push(await emitTool(t, i));
  parts.push(...m.prompts.map(emitPrompt), ...m.resources.map(emitResource), ...m.resourceTemplates.map(emitResourceTemplate));
  const files = new Map<string, string>(parts.flatMap((p) => p.files));
  files.set("handlers.ts", handlersFile(parts));
  files.set("register.ts", registerFile(parts));
  files.set("manifest.ts", manifestFile(m));
  // The ajv output is machine code, kept as ajv wrote it.
  const { prettier } = await generators();
  for (const [path, text] of files) {
    if (!path.startsWith("validators/")) files.set(path, await prettier.format(text, { parser: "typescript", printWidth: 120 }));
  }
  return files;
}

function handlersFile(parts: Emitted[]): string {
  return (
    [
      HEADER,
      'import type { Completer, PromptResult, RequestContext, ResourceResult, ToolResult } from "@create-mcp-server/runtime";',
      ...parts.flatMap((p) => p.typeImports),
      "",
      "type Awaitable<T> = T | Promise<T>;",
      "/** What a tool with an outputSchema returns: its structuredContent has the generated result type (or it reports an error). */",
      'export type StructuredToolResult<S> = (Omit<ToolResult, "structuredContent" | "isError"> & { structuredContent: S; isError?: false }) | (ToolResult & { isError: true });',
      ...parts.flatMap((p) => p.handlers),
    ].join("\n") + "\n"
  );
}

function registerFile(parts: Emitted[]): string {
  return (
    [
      HEADER,
      'import { fromAjv, type McpServer, type ToolDefinition } from "@create-mcp-server/runtime";',
      'import type * as H from "./handlers.js";',
      ...parts.flatMap((p) => p.imports),
      "",
      "/** Register every tool, prompt, resource and resource template of mcp.json with its handler from src/. */",
      "export function register(server: McpServer): McpServer {",
      ...parts.flatMap((p) => p.body),
      "  return server;",
      "}",
    ].join("\n") + "\n"
  );
}

function manifestFile(m: Manifest): string {
  return [
    HEADER,
    'import type { Revision } from "@create-mcp-server/runtime";',
    "",
    "/** The server's identity, from mcp.json. */",
    `export const serverInfo = ${literal(pick(m, serverKeys))};`,
    '/** The protocol revisions this server serves (mcp.json "revisions"; absent means every revision the runtime knows). */',
    `export const revisions: readonly Revision[] | undefined = ${m.revisions ? `${literal(m.revisions)} as Revision[]` : "undefined"};`,
    '/** The transports the entry point offers (mcp.json "transports"). */',
    `export const transports = ${literal(m.transports ?? ["stdio", "http"])} as const;`,
    "",
  ].join("\n");
}
