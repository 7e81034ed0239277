/**
 * Scopes per feature: a tool, prompt, resource or resource template may declare the OAuth scopes a caller needs
 * (`scopes`). Lists show a principal only what its scopes allow; a call without them is refused with
 * insufficient_scope naming them. Without a principal (no authorization configured, or stdio) nothing is checked:
 * scopes belong to the HTTP resource server. spec/2025-11-25/basic/authorization.mdx#runtime-insufficient-scope-errors,
 * spec/2026-07-28/basic/authorization/index.mdx#scope-challenge-handling
 */
import { type Revision, errorCode, isCacheable } from "../rules.js";
import { McpError } from "../wire/jsonrpc.js";
import type { Registry } from "./registry.js";
import type { Principal } from "./types.js";

type Scoped = { scopes?: readonly string[] };

/** Whether `principal` may see and use `def` (no principal: no authorization, everything). */
export function allowed(def: Scoped, principal: Principal | undefined): boolean {
  if (!principal || !def.scopes?.length) return true;
  return def.scopes.every((s) => principal.scopes.includes(s));
}

/** A call of `def` (named `what`) by `principal`: refused with insufficient_scope when a declared scope is missing. Throws McpError. */
export function requireScopes(def: Scoped, principal: Principal | undefined, revision: Revision, what: string): void {
  if (allowed(def, principal)) return;
  const scope = def.scopes!.join(" ");
  throw new McpError(errorCode(revision, "INVALID_REQUEST")!, `Forbidden: insufficient_scope: ${what} needs the scope ${scope}`, { error: "insufficient_scope", scope });
}

/** A list answered to a principal depends on who asks: never cacheable by others (2026-07-28 `cacheScope`). spec/2026-07-28/server/utilities/caching.mdx */
export function privateList(result: Record<string, unknown>, revision: Revision, method: string, principal: Principal | undefined): Record<string, unknown> {
  if (principal && isCacheable(revision, method)) result.cacheScope = "private";
  return result;
}

/**
 * The scopes a request needs for what it names, or undefined: tools/call, prompts/get, resources/read, and what reveals
 * a feature's content too (resources/subscribe and subscriptions/listen of its updates, completion/complete of a prompt's
 * or template's arguments).
 */
export function scopesFor(registry: Registry, method: string, params: Record<string, unknown> | undefined): readonly string[] | undefined {
  const name = params?.name;
  switch (method) {
    case "completion/complete": {
      const ref = params?.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
      if (ref?.type === "ref/prompt" && typeof ref.name === "string") return registry.prompts.get(ref.name)?.scopes;
      if (ref?.type === "ref/resource" && typeof ref.uri === "string") return registry.templates.find((t) => t.def.uriTemplate === ref.uri)?.def.scopes ?? registry.resources.get(ref.uri)?.scopes;
      return undefined;
    }
    case "tools/call":
      return typeof name === "string" ? registry.tools.get(name)?.scopes : undefined;
    case "prompts/get":
      return typeof name === "string" ? registry.prompts.get(name)?.scopes : undefined;
    case "resources/read":
    case "resources/subscribe":
      return typeof params?.uri === "string" ? resourceScopes(registry, params.uri) : undefined;
    case "subscriptions/listen": {
      // Updates of a resource tell about it: listening to them needs what reading it needs.
      const uris = (params?.notifications as { resourceSubscriptions?: unknown } | undefined)?.resourceSubscriptions;
      if (!Array.isArray(uris)) return undefined;
      const all = new Set(uris.flatMap((u) => (typeof u === "string" ? (resourceScopes(registry, u) ?? []) : [])));
      return all.size ? [...all] : undefined;
    }
    default:
      return undefined;
  }
}

/** The scopes of the resource (or else the first resource template) `uri` names. */
function resourceScopes(registry: Registry, uri: string): readonly string[] | undefined {
  const direct = registry.resources.get(uri);
  if (direct) return direct.scopes;
  return registry.templates.find((t) => t.template.match(uri))?.def.scopes;
}

/** Every scope a registration declares (the default `scopes_supported` of the Protected Resource Metadata). */
export function declaredScopes(registry: Registry): string[] {
  const out = new Set<string>();
  const add = (d: Scoped) => d.scopes?.forEach((s) => out.add(s));
  registry.tools.forEach(add);
  registry.prompts.forEach(add);
  registry.resources.forEach(add);
  registry.templates.forEach((t) => add(t.def));
  return [...out];
}
