/** TypeScript types of tool schemas (json-schema-to-typescript): what a handler's arguments and structured result are. */
import { generators } from "./generators.js";

/** The declarations of `schema` as one exported type named `name` (with helper types for its parts, if any). */
export async function schemaTypes(schema: Record<string, unknown>, name: string): Promise<string> {
  const copy = structuredClone(schema);
  delete copy.title; // the root type takes our name, not the schema's title
  delete copy.$id;
  const { compile } = await generators();
  return compile(copy as Parameters<typeof compile>[0], name, {
    bannerComment: "",
    additionalProperties: false,
    format: false,
    strictIndexSignatures: false,
    unknownAny: true,
    ignoreMinAndMaxItems: true,
    // Never read a file or URL a $ref names (the checks refuse such a $ref first): the types come from mcp.json alone.
    $refOptions: { resolve: { external: false } },
  });
}
