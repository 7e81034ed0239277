/** A resource of mcp.json → its handler type `<Name>Resource` and its registration: `server.resource({...})`. */
import { docText, literal, pick, type Emitted, type EveryKey } from "./code.js";
import type { ResourceEntry } from "./manifest-types.js";
import { camel, fileName, pascal } from "./names.js";

/** Every key of a resource's definition that mcp.json holds, in the order register.ts lists them. */
const RESOURCE_KEYS = ["uri", "name", "title", "description", "mimeType", "size", "annotations", "icons", "_meta", "scopes", "revisions"] as const;
const resourceKeys: EveryKey<ResourceEntry, typeof RESOURCE_KEYS> = RESOURCE_KEYS;

/** The generated code of resource `r`. */
export function emitResource(r: ResourceEntry): Emitted {
  const P = pascal(r.name);
  const f = fileName(r.name);
  const handlers = [
    "",
    `/** Resource \`${docText(r.uri)}\`: implement it in src/resources/${f}.ts (\`export const read\`). Throw ResourceNotFoundError for what does not exist. */`,
    `export interface ${P}Resource {`,
    `  read(uri: string, ctx: RequestContext): Awaitable<ResourceResult>;`,
    `}`,
  ];
  const id = `resource_${camel(r.name)}`;
  const body = [`  const ${id}_impl: H.${P}Resource = ${id};`, `  server.resource({ ...${literal(pick(r, resourceKeys))}, read: (uri, ctx) => ${id}_impl.read(uri, ctx) });`];
  return { files: [], typeImports: [], handlers, imports: [`import * as ${id} from "../src/resources/${f}.js";`], body };
}
