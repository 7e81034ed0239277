/** resources/list, resources/templates/list and resources/read. spec/2025-11-25/server/resources.mdx */
import { isObject, McpError } from "../wire/jsonrpc.js";
import { conform } from "../wire/encode.js";
import { type Revision, resourceNotFoundCode } from "../rules.js";
import { quoted, ResourceNotFoundError } from "./errors.js";
import { page } from "./pagination.js";
import { type Registry, inRevision } from "./registry.js";
import type { Principal, RequestContext, ResourceResult } from "./types.js";
import { allowed, privateList, requireScopes } from "./authorization.js";

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

/** Read a resource: a registered URI first, then the templates in registration order. */
export async function readResource(registry: Registry, revision: Revision, params: Record<string, unknown>, ctx: RequestContext): Promise<Record<string, unknown>> {
  const uri = params.uri as string;
  try {
    const found = registry.resources.get(uri);
    const direct = found && inRevision(found, revision) ? found : undefined;
    if (direct) {
      requireScopes(direct, ctx.principal, revision, `resource ${quoted(uri)}`);
      return checkContents(revision, uri, await direct.read(uri, ctx));
    }
    for (const { def, template } of registry.templates) {
      if (!inRevision(def, revision)) continue;
      const vars = template.match(uri);
      if (vars) {
        requireScopes(def, ctx.principal, revision, `resource ${quoted(uri)}`);
        return checkContents(revision, uri, await def.read(uri, vars, ctx));
      }
    }
  } catch (err) {
    if (err instanceof ResourceNotFoundError) throw resourceNotFound(revision, err.uri);
    throw err;
  }
  throw resourceNotFound(revision, uri);
}

/**
 * -32002 (legacy) or -32602 (2026-07-28), with data.uri (a URI over 8 KiB characters: data.uriLength instead, and the
 * message quotes 200 characters, so that an error never sends a long URI back). spec/<revision>/server/resources.mdx#error-handling
 */
export function resourceNotFound(revision: Revision, uri: string): McpError {
  const data = uri.length <= MAX_ECHOED_URI ? { uri } : { uriLength: uri.length };
  return new McpError(resourceNotFoundCode(revision), `Resource not found: ${quoted(uri)}`, data);
}

function checkContents(revision: Revision, uri: string, result: ResourceResult): Record<string, unknown> {
  // An unknown URI never yields empty contents: a handler that found nothing answers not-found.
  if (!isObject(result) || !Array.isArray(result.contents) || result.contents.length === 0) throw resourceNotFound(revision, uri);
  return result as Record<string, unknown>;
}
