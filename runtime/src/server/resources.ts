/** resources/list, resources/templates/list and resources/read. spec/2025-11-25/server/resources.mdx */
import { isObject, McpError } from "../wire/jsonrpc.js";
import { conform } from "../wire/encode.js";
import { type Revision, resourceNotFoundCode } from "../rules.js";
import { quoted, ResourceNotFoundError } from "./errors.js";
import { page } from "./pagination.js";
import { type Registry, inRevision } from "./registry.js";
import type { Principal, RequestContext, ResourceResult } from "./types.js";
import { allowed, privateList, requireScopes } from "./authorization.js";
import { handlerFailure, refuseRuntimeFields, siteOf } from "./failures.js";
import { withSuggestion } from "./suggest.js";

const MAX_ECHOED_URI = 8192;

export function listResources(registry: Registry, revision: Revision, params?: Record<string, unknown>, principal?: Principal): Record<string, unknown> {
  const all = [...registry.resources.values()]
    .filter((r) => inRevision(r, revision) && allowed(r, principal))
    .map((r) =>
      conform(revision, "Resource", {
        uri: r.uri,
        name: r.name,
        title: r.title,
        description: r.description,
        mimeType: r.mimeType,
        size: r.size,
        annotations: r.annotations,
        icons: r.icons,
        _meta: r._meta,
      }),
    );
  const { items, nextCursor } = page("resources", all, params, revision, registry.options.pageSize);
  return privateList({ resources: items, ...(nextCursor ? { nextCursor } : {}) }, revision, "resources/list", principal);
}

export function listResourceTemplates(registry: Registry, revision: Revision, params?: Record<string, unknown>, principal?: Principal): Record<string, unknown> {
  const all = registry.templates
    .filter(({ def: t }) => inRevision(t, revision) && allowed(t, principal))
    .map(({ def: t }) =>
      conform(revision, "ResourceTemplate", {
        uriTemplate: t.uriTemplate,
        name: t.name,
        title: t.title,
        description: t.description,
        mimeType: t.mimeType,
        annotations: t.annotations,
        icons: t.icons,
        _meta: t._meta,
      }),
    );
  const { items, nextCursor } = page("templates", all, params, revision, registry.options.pageSize);
  return privateList({ resourceTemplates: items, ...(nextCursor ? { nextCursor } : {}) }, revision, "resources/templates/list", principal);
}

/**
 * Read a resource: a registered URI first, then the templates in registration order. Throws McpError (resource not
 * found, naming a close URI the caller may see), or the handler's failure (server/failures.ts: logged; a protocol
 * error it threw, else a HandlerFailure answered -32603).
 */
export async function readResource(registry: Registry, revision: Revision, params: Record<string, unknown>, ctx: RequestContext): Promise<Record<string, unknown>> {
  const uri = params.uri as string;
  const found = registry.resources.get(uri);
  const direct = found && inRevision(found, revision) ? found : undefined;
  if (direct) {
    requireScopes(direct, ctx.principal, revision, `resource ${quoted(uri)}`);
    return checkContents(revision, uri, await readBy(registry, ctx, uri, () => direct.read(uri, ctx)));
  }
  for (const { def, template } of registry.templates) {
    if (!inRevision(def, revision)) continue;
    const vars = template.match(uri);
    if (vars) {
      requireScopes(def, ctx.principal, revision, `resource ${quoted(uri)}`);
      return checkContents(revision, uri, await readBy(registry, ctx, uri, () => def.read(uri, vars, ctx)));
    }
  }
  throw resourceNotFound(revision, uri, visibleResources(registry, revision, ctx.principal));
}

/** A resource handler's read; what it throws is logged (ResourceNotFoundError: answered not-found). */
async function readBy(registry: Registry, ctx: RequestContext, uri: string, read: () => ResourceResult | Promise<ResourceResult>): Promise<ResourceResult> {
  try {
    return await read();
  } catch (err) {
    const failure = handlerFailure(registry.options, siteOf(ctx, "resources/read", { uri }), err);
    if (failure instanceof ResourceNotFoundError) throw resourceNotFound(ctx.revision, failure.uri);
    throw failure;
  }
}

/** The URIs of the resources `principal` may see in `revision`, in registration order. */
export function* visibleResources(registry: Registry, revision: Revision, principal: Principal | undefined): Iterable<string> {
  for (const r of registry.resources.values()) if (inRevision(r, revision) && allowed(r, principal)) yield r.uri;
}

/**
 * -32002 (legacy) or -32602 (2026-07-28), with data.uri (a URI over 8 KiB characters: data.uriLength instead, and the
 * message quotes 200 characters, so that an error never sends a long URI back); `visible`: the URIs a suggestion may name. spec/<revision>/server/resources.mdx#error-handling
 */
export function resourceNotFound(revision: Revision, uri: string, visible?: Iterable<string>): McpError {
  const data = uri.length <= MAX_ECHOED_URI ? { uri } : { uriLength: uri.length };
  const message = `Resource not found: ${quoted(uri)}`;
  // Did you mean: only among the URIs the caller may see (suggest.ts bounds the work on long names).
  return new McpError(resourceNotFoundCode(revision), visible ? withSuggestion(message, uri, visible) : message, data);
}

function checkContents(revision: Revision, uri: string, result: ResourceResult): Record<string, unknown> {
  // An unknown URI never yields empty contents: a handler that found nothing answers not-found.
  if (!isObject(result) || !Array.isArray(result.contents) || result.contents.length === 0) throw resourceNotFound(revision, uri);
  refuseRuntimeFields(`resource ${quoted(uri)}`, result);
  // Only the fields the revision's ReadResourceResult defines (a legacy peer gets no resultType or caching fields).
  return conform(revision, "ReadResourceResult", result as Record<string, unknown>);
}
