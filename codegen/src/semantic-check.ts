/**
 * What mcp.schema.json cannot say about an mcp.json that fits it: names that would share a file or a type, resource
 * URIs registered twice, completions of variables a URI template does not have, revisions the installed runtime does
 * not know, and tool schemas that are not valid JSON Schema. One line per mistake.
 */
import type { Revision } from "@create-mcp-server/runtime";
import { at, pointer } from "./errors.js";
import type { McpJson } from "./manifest-types.js";
import { fileName, pascal, templateVariables } from "./names.js";
import { jsonSchemaProblem } from "./validators.js";

/** The problems of a schema-valid mcp.json, one line each, in the order of the file. */
export async function semanticProblems(m: McpJson, known: readonly Revision[], runtimeVersion: string): Promise<string[]> {
  const problems: string[] = [];
  const revision = (list: readonly string[] | undefined, ...tokens: (string | number)[]) =>
    list?.forEach((r, i) => {
      if (!known.includes(r as Revision))
        problems.push(at(pointer(...tokens, i), `unknown revision ${JSON.stringify(r)}; the installed @create-mcp-server/runtime ${runtimeVersion} knows ${known.join(", ")}`));
    });
  revision(m.revisions, "revisions");

  const clash = names(problems);
  const types = typeNames(problems);
  const tools = m.tools ?? [];
  for (const [i, t] of tools.entries()) {
    clash("tool", t.name, "tools", i);
    types("tool", t.name, [`${pascal(t.name)}Args`, `${pascal(t.name)}Tool`, ...(t.outputSchema ? [`${pascal(t.name)}Result`] : [])], "tools", i);
    revision(t.revisions, "tools", i, "revisions");
    for (const key of ["inputSchema", "outputSchema"] as const) {
      const schema = t[key];
      const problem = schema && (await jsonSchemaProblem(schema));
      if (problem)
        problems.push(
          at(pointer("tools", i, key) + problem.pointer, `tool ${JSON.stringify(t.name)}: ${key} is not a valid JSON Schema${problem.draft ? ` (${problem.draft})` : ""}: ${problem.message}`),
        );
    }
  }
  for (const [i, p] of (m.prompts ?? []).entries()) {
    clash("prompt", p.name, "prompts", i);
    types("prompt", p.name, [`${pascal(p.name)}PromptArgs`, `${pascal(p.name)}Prompt`], "prompts", i);
    revision(p.revisions, "prompts", i, "revisions");
    const args = new Map<string, number>();
    for (const [j, a] of (p.arguments ?? []).entries()) {
      if (args.has(a.name))
        problems.push(
          at(
            pointer("prompts", i, "arguments", j, "name"),
            `prompt ${JSON.stringify(p.name)} already has an argument ${JSON.stringify(a.name)} (${pointer("prompts", i, "arguments", args.get(a.name)!)})`,
          ),
        );
      args.set(a.name, j);
    }
  }
  const uris = new Map<string, number>();
  for (const [i, r] of (m.resources ?? []).entries()) {
    clash("resource", r.name, "resources", i);
    types("resource", r.name, [`${pascal(r.name)}Resource`], "resources", i);
    revision(r.revisions, "resources", i, "revisions");
    if (uris.has(r.uri)) problems.push(at(pointer("resources", i, "uri"), `resource ${JSON.stringify(r.uri)} is declared twice (also ${pointer("resources", uris.get(r.uri)!)})`));
    uris.set(r.uri, i);
  }
  for (const [i, r] of (m.resourceTemplates ?? []).entries()) {
    clash("resource", r.name, "resourceTemplates", i);
    types("resource template", r.name, [`${pascal(r.name)}Variables`, `${pascal(r.name)}ResourceTemplate`], "resourceTemplates", i);
    revision(r.revisions, "resourceTemplates", i, "revisions");
    const braces = r.uriTemplate.replace(/\{[^{}]*\}/g, "");
    if (/[{}]/.test(braces)) problems.push(at(pointer("resourceTemplates", i, "uriTemplate"), `unbalanced { } in ${JSON.stringify(r.uriTemplate)}; a variable is written {name}`));
    const variables = templateVariables(r.uriTemplate);
    for (const [j, v] of (r.complete ?? []).entries()) {
      if (!variables.includes(v))
        problems.push(at(pointer("resourceTemplates", i, "complete", j), `${JSON.stringify(v)} is not a variable of ${r.uriTemplate}; its variables: ${variables.join(", ") || "none"}`));
    }
  }
  return problems;
}

/**
 * The check that two declarations of one kind do not share a handler file or a type name (`a.b` and `a_b` both make
 * src/tools/a_b.ts). Resources and resource templates count as one kind: their handlers share src/resources/.
 */
function names(problems: string[]): (kind: "tool" | "prompt" | "resource", name: string, ...tokens: (string | number)[]) => void {
  const seen = new Map<string, { name: string; path: string }>();
  return (kind, name, ...tokens) => {
    const path = pointer(...tokens, "name");
    for (const [what, key] of [
      ["file name", fileName(name)],
      ["type name", pascal(name)],
    ]) {
      const other = seen.get(`${kind}:${what}:${key}`);
      if (other) {
        const same = other.name === name ? `is declared twice (also ${other.path})` : `clashes with ${JSON.stringify(other.name)} (${other.path}): both make the ${what} ${JSON.stringify(key)}`;
        problems.push(at(path, `${kind} ${JSON.stringify(name)} ${same}`));
        return;
      }
    }
    seen.set(`${kind}:file name:${fileName(name)}`, { name, path });
    seen.set(`${kind}:type name:${pascal(name)}`, { name, path });
  };
}

/** The names generated/handlers.ts declares or imports besides the declarations' own types. */
const HANDLERS_NAMES: Record<string, string> = {
  Completer: "imports from @create-mcp-server/runtime",
  PromptResult: "imports from @create-mcp-server/runtime",
  RequestContext: "imports from @create-mcp-server/runtime",
  ResourceResult: "imports from @create-mcp-server/runtime",
  ToolResult: "imports from @create-mcp-server/runtime",
  Awaitable: "declares for every handler",
  StructuredToolResult: "declares for every handler",
};

/**
 * The check that the types generated/handlers.ts exports for each declaration (`<Name>Args`, `<Name>Prompt`, …) are
 * not also another declaration's (tool `fooPrompt` and prompt `foo` both make FooPromptArgs) nor a name it already
 * has (a tool `tool` with an outputSchema makes ToolResult): either fails the project's build in generated/.
 * A declaration whose file or type name stem already clashed is reported once, by names().
 */
function typeNames(problems: string[]): (kind: string, name: string, made: string[], ...tokens: (string | number)[]) => void {
  const seen = new Map<string, { kind: string; name: string; path: string }>();
  return (kind, name, made, ...tokens) => {
    const path = pointer(...tokens, "name");
    if (problems.some((p) => p.startsWith(at(path, "")))) return;
    for (const type of made) {
      const taken = HANDLERS_NAMES[type];
      const other = seen.get(type);
      if (taken || other) {
        const by = taken ? `a name generated/handlers.ts already ${taken}` : `as does ${other!.kind} ${JSON.stringify(other!.name)} (${other!.path})`;
        problems.push(at(path, `${kind} ${JSON.stringify(name)} makes the type ${JSON.stringify(type)} of generated/handlers.ts, ${by}; rename the ${kind}`));
        return;
      }
    }
    for (const type of made) seen.set(type, { kind, name, path });
  };
}
