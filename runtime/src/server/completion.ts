/** completion/complete for prompt arguments and resource template variables. spec/2025-11-25/server/utilities/completion.mdx */
import type { CompleteResult } from "../../../out/latest.js";
import { McpError } from "../wire/jsonrpc.js";
import { type Revision, errorCode } from "../rules.js";
import type { Registry } from "./registry.js";
import type { Completer, RequestContext } from "./types.js";
import { allowed, requireScopes } from "./authorization.js";
import { handlerFailure, siteOf } from "./failures.js";
import { visiblePrompts } from "./prompts.js";
import { visibleResources } from "./resources.js";
import { inRevision } from "./registry.js";
import { withSuggestion } from "./suggest.js";

/** Rank completion candidates by relevance to `value`: prefix matches, then substring matches, in the completer's order. */
export function rankCompletions(candidates: string[], value: string): string[] {
  const v = value.toLowerCase();
  const prefix: string[] = [];
  const inner: string[] = [];
  for (const c of candidates) {
    const l = c.toLowerCase();
    if (l.startsWith(v)) prefix.push(c);
    else if (l.includes(v)) inner.push(c);
  }
  return [...prefix, ...inner];
}

/**
 * completion/complete. With a principal (HTTP with authorization), completing an argument of a prompt or template
 * needs that feature's scopes. Throws McpError (-32602: an unknown prompt or template, naming a close one the caller may
 * see), or the completer's failure (server/failures.ts: logged; a protocol error it threw, else a HandlerFailure).
 */
export async function complete(registry: Registry, revision: Revision, params: Record<string, unknown>, ctx: RequestContext): Promise<Record<string, unknown>> {
  const principal = ctx.principal;
  const ref = params.ref as { type: string; name?: string; uri?: string };
  const argument = params.argument as { name: string; value: string };
  const context = { arguments: ((params.context as { arguments?: Record<string, string> } | undefined)?.arguments ?? {}) as Record<string, string> };
  const invalid = errorCode(revision, "INVALID_PARAMS")!;
  let completer: Completer | undefined;
  if (ref.type === "ref/prompt") {
    const prompt = registry.prompts.get(ref.name ?? "");
    if (!prompt) throw new McpError(invalid, withSuggestion(`Unknown prompt: ${ref.name}`, ref.name ?? "", visiblePrompts(registry, revision, principal)));
    requireScopes(prompt, principal, revision, `prompt ${ref.name}`);
    completer = prompt.complete && Object.prototype.hasOwnProperty.call(prompt.complete, argument.name) ? prompt.complete[argument.name] : undefined;
  } else if (ref.type === "ref/resource") {
    const entry = registry.templates.find((t) => t.def.uriTemplate === ref.uri);
    if (!entry && !registry.resources.has(ref.uri ?? "")) {
      const templates = registry.templates.filter((t) => inRevision(t.def, revision) && allowed(t.def, principal)).map((t) => t.def.uriTemplate);
      throw new McpError(invalid, withSuggestion(`Unknown resource template: ${ref.uri}`, ref.uri ?? "", [...templates, ...visibleResources(registry, revision, principal)]));
    }
    requireScopes(entry?.def ?? registry.resources.get(ref.uri!)!, principal, revision, `resource ${ref.uri}`);
    const table = entry?.def.complete;
    completer = table && Object.prototype.hasOwnProperty.call(table, argument.name) ? table[argument.name] : undefined;
  } else {
    throw new McpError(invalid, `Unknown reference type: ${ref.type}`);
  }
  let candidates: string[] = [];
  try {
    if (completer) candidates = await completer(argument.value, context);
  } catch (err) {
    const named = ref.type === "ref/prompt" ? { prompt: ref.name } : { uri: ref.uri };
    throw handlerFailure(registry.options, siteOf(ctx, "completion/complete", named), err);
  }
  const ranked = rankCompletions(candidates, argument.value);
  // At most 100 values, sorted by relevance. spec/2025-11-25/server/utilities/completion.mdx
  const values = ranked.slice(0, 100);
  const completion: CompleteResult["completion"] = { values, total: ranked.length, hasMore: ranked.length > values.length };
  return { completion };
}
