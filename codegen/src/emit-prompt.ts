/** A prompt of mcp.json → its argument type `<Name>PromptArgs`, its handler type `<Name>Prompt` and its registration. */
import { docText, literal, pick, type Emitted, type EveryKey } from "./code.js";
import type { PromptArgumentEntry, PromptEntry } from "./manifest-types.js";
import { camel, fileName, pascal } from "./names.js";

/** Every key of a prompt's definition that mcp.json holds, in the order register.ts lists them. */
const PROMPT_KEYS = ["name", "title", "description", "arguments", "icons", "_meta", "scopes", "revisions"] as const;
const promptKeys: EveryKey<PromptEntry, typeof PROMPT_KEYS> = PROMPT_KEYS;
/** Every key of a prompt argument the protocol has (`complete` is the generator's: which completers the handler exports). */
const ARGUMENT_KEYS = ["name", "title", "description", "required"] as const;
const argumentKeys: EveryKey<Omit<PromptArgumentEntry, "complete">, typeof ARGUMENT_KEYS> = ARGUMENT_KEYS;

/** The generated code of prompt `p`. */
export function emitPrompt(p: PromptEntry & { arguments: PromptArgumentEntry[] }): Emitted {
  const P = pascal(p.name);
  const f = fileName(p.name);
  const completable = p.arguments.filter((a) => a.complete);
  const handlers = [
    "",
    `/** Arguments of prompt \`${docText(p.name)}\` (prompt arguments are strings). */`,
    `export interface ${P}PromptArgs {`,
    ...p.arguments.map((a) => `  ${a.description ? `/** ${docText(a.description)} */\n  ` : ""}${a.name}${a.required ? "" : "?"}: string;`),
    `}`,
    `/** Prompt \`${docText(p.name)}\`: implement it in src/prompts/${f}.ts (\`export const get\`${completable.length ? ", `export const complete`" : ""}). */`,
    `export interface ${P}Prompt {`,
    `  get(args: ${P}PromptArgs, ctx: RequestContext): Awaitable<PromptResult>;`,
    ...(completable.length ? [`  complete: { ${completable.map((a) => `${a.name}: Completer`).join("; ")} };`] : []),
    `}`,
  ];
  const id = `prompt_${camel(p.name)}`;
  // `arguments` is always listed (empty when mcp.json has none), as prompts/list shows it.
  const definition = pick({ ...p, arguments: p.arguments.map((a) => pick(a, argumentKeys)) }, promptKeys);
  const body = [
    `  const ${id}_impl: H.${P}Prompt = ${id};`,
    `  server.prompt<H.${P}PromptArgs>({`,
    `    ...${literal(definition)},`,
    `    get: (args, ctx) => ${id}_impl.get(args, ctx),`,
    ...(completable.length ? [`    complete: ${id}_impl.complete,`] : []),
    `  });`,
  ];
  return { files: [], typeImports: [], handlers, imports: [`import * as ${id} from "../src/prompts/${f}.js";`], body };
}
