/**
 * A resource template of mcp.json → its variables type `<Name>Variables`, its handler type `<Name>ResourceTemplate`
 * and its registration: `server.resourceTemplate({...})`.
 */
import { docText, literal, pick, type Emitted, type EveryKey } from "./code.js";
import type { ResourceTemplateEntry } from "./manifest-types.js";
import { camel, fileName, pascal } from "./names.js";

/** Every key of a template's definition that mcp.json holds (`complete` is code: the handler's completers), in the order register.ts lists them. */
const TEMPLATE_KEYS = ["uriTemplate", "name", "title", "description", "mimeType", "annotations", "icons", "_meta", "scopes", "revisions"] as const;
const templateKeys: EveryKey<Omit<ResourceTemplateEntry, "complete">, typeof TEMPLATE_KEYS> = TEMPLATE_KEYS;

/** The generated code of resource template `r`, whose URI template has the variables `r.variables`. */
export function emitResourceTemplate(r: ResourceTemplateEntry & { variables: string[] }): Emitted {
  const P = pascal(r.name);
  const f = fileName(r.name);
  const complete = r.complete ?? [];
  const handlers = [
    "",
    `/** Variables of resource template \`${docText(r.uriTemplate)}\`. */`,
    `export interface ${P}Variables {`,
    ...r.variables.map((v) => `  ${JSON.stringify(v)}: string;`),
    `}`,
    `/** Resource template \`${docText(r.uriTemplate)}\`: implement it in src/resources/${f}.ts (\`export const read\`${complete.length ? ", `export const complete`" : ""}). */`,
    `export interface ${P}ResourceTemplate {`,
    `  read(uri: string, variables: ${P}Variables, ctx: RequestContext): Awaitable<ResourceResult>;`,
    ...(complete.length ? [`  complete: { ${complete.map((v) => `${JSON.stringify(v)}: Completer`).join("; ")} };`] : []),
    `}`,
  ];
  const id = `template_${camel(r.name)}`;
  const body = [
    `  const ${id}_impl: H.${P}ResourceTemplate = ${id};`,
    `  server.resourceTemplate({`,
    `    ...${literal(pick(r, templateKeys))},`,
    `    read: (uri, variables, ctx) => ${id}_impl.read(uri, variables as unknown as H.${P}Variables, ctx),`,
    ...(complete.length ? [`    complete: ${id}_impl.complete,`] : []),
    `  });`,
  ];
  return { files: [], typeImports: [], handlers, imports: [`import * as ${id} from "../src/resources/${f}.js";`], body };
}
