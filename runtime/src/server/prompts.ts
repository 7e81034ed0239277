/** prompts/list and prompts/get. spec/2025-11-25/server/prompts.mdx */
import { isObject, McpError } from "../wire/jsonrpc.js";
import { conform } from "../wire/encode.js";
import { type Revision, errorCode } from "../rules.js";
import { page } from "./pagination.js";
import { type Registry, inRevision } from "./registry.js";
import type { Principal, RequestContext } from "./types.js";
import { allowed, privateList, requireScopes } from "./authorization.js";
import { RefusedResult, handlerFailure, refuseRuntimeFields, siteOf } from "./failures.js";
import { withSuggestion } from "./suggest.js";

export function listPrompts(registry: Registry, revision: Revision, params?: Record<string, unknown>, principal?: Principal): Record<string, unknown> {
  const all = [...registry.prompts.values()]
    .filter((p) => inRevision(p, revision) && allowed(p, principal))
    .map((p) =>
      conform(revision, "Prompt", {
        name: p.name,
        title: p.title,
        description: p.description,
        arguments: p.arguments?.map((a) => conform(revision, "PromptArgument", { ...a })),
        icons: p.icons,
        _meta: p._meta,
      }),
    );
  const { items, nextCursor } = page("prompts", all, params, revision, registry.options.pageSize);
  return privateList({ prompts: items, ...(nextCursor ? { nextCursor } : {}) }, revision, "prompts/list", principal);
}

/**
 * Get a prompt: its required arguments must be given, and its handler must return a messages array. Throws McpError
 * (-32602: unknown prompt, with a close name the caller may see; a missing argument), or the handler's failure
 * (server/failures.ts: logged; a protocol error it threw, else a HandlerFailure answered -32603).
 */
export async function getPrompt(registry: Registry, revision: Revision, params: Record<string, unknown>, ctx: RequestContext): Promise<Record<string, unknown>> {
  const name = params.name as string;
  const found = registry.prompts.get(name);
  const prompt = found && inRevision(found, revision) ? found : undefined;
  const invalid = errorCode(revision, "INVALID_PARAMS")!;
  if (!prompt) throw new McpError(invalid, withSuggestion(`Unknown prompt: ${name}`, name, visiblePrompts(registry, revision, ctx.principal)));
  requireScopes(prompt, ctx.principal, revision, `prompt ${name}`);
  const args = (params.arguments ?? {}) as Record<string, string>;
  for (const a of prompt.arguments ?? []) {
    if (a.required && typeof args[a.name] !== "string") throw new McpError(invalid, `Missing required argument ${a.name} of prompt ${name}`);
  }
  let result: unknown;
  try {
    result = await prompt.get(args, ctx);
    if (!isObject(result) || !Array.isArray(result.messages)) throw new RefusedResult(`prompt ${name} returned no messages array`);
    refuseRuntimeFields(`prompt ${name}`, result);
  } catch (err) {
    throw handlerFailure(registry.options, siteOf(ctx, "prompts/get", { prompt: name }), err, err instanceof RefusedResult ? err.message : undefined);
  }
  // Only the fields the revision's GetPromptResult defines (no caching fields: prompts/get is not cacheable).
  return conform(revision, "GetPromptResult", result as Record<string, unknown>);
}

/** The names of the prompts `principal` may see in `revision`, in registration order. */
export function* visiblePrompts(registry: Registry, revision: Revision, principal: Principal | undefined): Iterable<string> {
  for (const p of registry.prompts.values()) if (inRevision(p, revision) && allowed(p, principal)) yield p.name;
}
