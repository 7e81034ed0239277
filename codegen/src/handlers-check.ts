/**
 * The handler files mcp.json asks for, and the ones it no longer declares. generated/register.ts imports each declared
 * handler (a missing file fails tsc with TS2307) and a handler typed by a removed declaration fails it with TS2305:
 * both are named here first, with what to do.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Manifest } from "./manifest-types.js";
import { fileName, pascal } from "./names.js";
import { listFiles } from "./writer.js";

export type Kind = "tool" | "prompt" | "resource" | "resource template";

interface Declared {
  kind: Kind;
  dir: "tools" | "prompts" | "resources";
  name: string;
  structured?: boolean;
}

/** A one-line handler to start from, typed by the generated interface. */
export function stub(kind: Kind, P: string, structured: boolean): string {
  switch (kind) {
    case "tool":
      return structured
        ? // A tool with an outputSchema must return structuredContent of that shape (its handler type requires it).
          `export const handler: ${P}Tool = (args, ctx) => ({ content: [], structuredContent: { /* the fields of its outputSchema */ } });`
        : `export const handler: ${P}Tool = (args, ctx) => ({ content: [{ type: "text", text: "…" }] });`;
    case "prompt":
      return `export const get: ${P}Prompt["get"] = (args, ctx) => ({ messages: [] });`;
    case "resource":
      return `export const read: ${P}Resource["read"] = (uri, ctx) => ({ contents: [{ uri, text: "…" }] });`;
    case "resource template":
      return `export const read: ${P}ResourceTemplate["read"] = (uri, variables, ctx) => ({ contents: [{ uri, text: "…" }] });`;
  }
}

export const TYPE_SUFFIX: Record<Kind, string> = { tool: "Tool", prompt: "Prompt", resource: "Resource", "resource template": "ResourceTemplate" };

/**
 * Report, on stderr, each declared handler file that is missing and each handler of a declaration that is gone.
 * Returns how many there are (an undeclared file that does not use generated/handlers, e.g. a helper, is only noted).
 */
export function checkHandlers(root: string, m: Manifest, write: (line: string) => void = (l) => process.stderr.write(l)): number {
  const declared: Declared[] = [
    ...m.tools.map((t): Declared => ({ kind: "tool", dir: "tools", name: t.name, structured: t.outputSchema !== undefined })),
    ...m.prompts.map((p): Declared => ({ kind: "prompt", dir: "prompts", name: p.name })),
    ...m.resources.map((r): Declared => ({ kind: "resource", dir: "resources", name: r.name })),
    ...m.resourceTemplates.map((r): Declared => ({ kind: "resource template", dir: "resources", name: r.name })),
  ];
  let problems = 0;
  for (const { kind, dir, name, structured } of declared) {
    const file = `src/${dir}/${fileName(name)}.ts`;
    if (existsSync(join(root, file))) continue;
    const P = pascal(name);
    write(
      `generate: mcp.json declares ${kind} "${name}" but ${file} is missing; create it, e.g.: ` +
        `import type { ${P}${TYPE_SUFFIX[kind]} } from "../../generated/handlers.js"; ${stub(kind, P, structured ?? false)}\n`,
    );
    problems++;
  }
  const wanted = new Set(declared.map(({ dir, name }) => `${dir}/${fileName(name)}.ts`));
  for (const dir of ["tools", "prompts", "resources"]) {
    for (const f of listFiles(join(root, "src", dir))) {
      if (f.includes("/") || !f.endsWith(".ts") || wanted.has(`${dir}/${f}`)) continue;
      const file = `src/${dir}/${f}`;
      if (readFileSync(join(root, file), "utf8").includes("generated/handlers")) {
        write(`generate: ${file} is the handler of a ${dir.replace(/s$/, "")} that mcp.json no longer declares; delete ${file}, or declare it again in mcp.json\n`);
        problems++;
      } else write(`generate: ${file} is not declared in mcp.json (not registered)\n`);
    }
  }
  return problems;
}
