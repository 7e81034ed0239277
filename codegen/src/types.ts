/** TypeScript types of tool schemas (json-schema-to-typescript): what a handler's arguments and structured result are. */
import { generators } from "./generators.js";

/** The declarations of `schema` as one exported type named `name` (with helper types for its parts, if any). */
export async function schemaTypes(schema: Record<string, unknown>, name: string): Promise<string> {
  const copy = structuredClone(schema);
  delete copy.title; // the root type takes our name, not the schema's title
  delete copy.$id;
  const { compile } = await generators();
  const code = await compile(copy as Parameters<typeof compile>[0], name, {
    bannerComment: "",
    additionalProperties: false,
    format: false,
    strictIndexSignatures: false,
    unknownAny: true,
    ignoreMinAndMaxItems: true,
    // Never read a file or URL a $ref names (the checks refuse such a $ref first): the types come from mcp.json alone.
    $refOptions: { resolve: { external: false } },
  });
  return code + rootAlias(code, name);
}

/**
 * `export type <name> = <its name>;` when json-schema-to-typescript declared the root type under a name of its own:
 * it upper-cases a letter after a digit (`K8sInjectArgs` → `K8SInjectArgs`), and handlers.ts imports `name`.
 */
function rootAlias(code: string, name: string): string {
  const declared = [...code.matchAll(/^export (?:interface|type) ([\w$]+)/gm)].map((m) => m[1]);
  if (declared.includes(name)) return "";
  const root = declared.filter((d) => d.toLowerCase() === name.toLowerCase());
  if (root.length !== 1) throw new Error(`json-schema-to-typescript declared no type named like ${name} (it declared ${declared.join(", ") || "none"})`);
  return `\nexport type ${name} = ${root[0]};\n`;
}
