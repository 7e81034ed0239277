/**
 * The one check of `authorization`'s issuer and resource, made where a configuration is first seen (nodeHandler and
 * fetchHandler at once, before their module loads; every endpoint when it is made). Nothing else imported, so that
 * the entry module may use it without loading the HTTP side.
 *
 * The resource is the canonical URI of the MCP server: an absolute http(s) URI without a fragment (RFC 8707 §2,
 * RFC 9728 §2). spec/2025-11-25/basic/authorization.mdx#canonical-server-uri
 */

/** The part of AuthorizationOptions checked here. */
export interface AuthorizationIdentity {
  issuer: string;
  resource?: string;
}

const RESOURCE_EXAMPLE = "the canonical URI of this MCP server (e.g. https://mcp.example.com/mcp), the audience its tokens must name";

/** Whether `uri` may be a canonical server URI: `http(s)://` as written, parseable, with no fragment (not even an empty one). */
function isResourceUri(uri: string): boolean {
  return /^https?:\/\/[^#]+$/i.test(uri) && URL.canParse(uri);
}

/**
 * Throws TypeError unless `auth` names an issuer and a valid resource (or none, when `derivable`: serveHttp's own URL
 * stands in). `what` (e.g. "nodeHandler") prefixes the message.
 */
export function checkAuthorization(auth: AuthorizationIdentity, what?: string, derivable = false): void {
  const prefix = what ? `${what}: ` : "";
  if (!auth.issuer) throw new TypeError(`${prefix}authorization.issuer is required: the issuer identifier of the authorization server (e.g. https://auth.example.com)`);
  if (auth.resource === undefined || auth.resource === "") {
    if (derivable) return;
    throw new TypeError(`${prefix}authorization.resource is required: ${RESOURCE_EXAMPLE}`);
  }
  checkResource(auth.resource, prefix);
}

function checkResource(uri: string, prefix = ""): void {
  if (!isResourceUri(uri)) throw new TypeError(`${prefix}authorization.resource must be an absolute http(s) URL without a fragment, ${RESOURCE_EXAMPLE}; not ${JSON.stringify(uri)}`);
}

/**
 * The canonical form of a resource URI: lowercase scheme and host, no trailing slash on an empty path. Throws
 * TypeError (checkAuthorization's message) for a URI that cannot be one. spec/2025-11-25/basic/authorization.mdx#canonical-server-uri
 */
export function canonicalResource(uri: string): string {
  checkResource(uri);
  const u = new URL(uri);
  const path = u.pathname === "/" ? "" : u.pathname;
  return `${u.protocol}//${u.host}${path}${u.search}`;
}
