/**
 * Who a caller is, as the HTTP side compares callers: the principal a verified token yields (authorization.ts)
 * binds the legacy session it opens (served to no one else) and is checked against the scopes a request needs.
 * spec/2025-11-25/basic/authorization.mdx#token-handling
 */
import type { Principal } from "../../protocol/request.js";
import { principalIdentity } from "../../state/request-state.js";
import { AuthorizationError } from "./authorization-error.js";

/** Whether `principal` holds every scope of `needed`; the missing ones otherwise. */
export function missingScopes(principal: Principal, needed: readonly string[] | undefined): string[] {
  if (!needed?.length) return [];
  return needed.filter((s) => !principal.scopes.includes(s));
}

/** The same principal (principalIdentity: subject, where it came from, client): a legacy session is served only to the principal that opened it. */
export function samePrincipal(a: Principal | undefined, b: Principal | undefined): boolean {
  if (!a || !b) return a === b;
  return principalIdentity(a) === principalIdentity(b);
}

/** The principal of verified claims: subject `sub` (a client-credentials token without one: its client id). */
export function principalOf(claims: Record<string, unknown>): Principal {
  const clientId = typeof claims.client_id === "string" ? claims.client_id : typeof claims.azp === "string" ? claims.azp : undefined;
  const subject = typeof claims.sub === "string" && claims.sub ? claims.sub : clientId;
  if (!subject) throw new AuthorizationError(401, "invalid_token", "the token names no subject");
  const scope = claims.scope;
  const scopes = typeof scope === "string" ? scope.split(" ").filter(Boolean) : Array.isArray(claims.scp) ? claims.scp.filter((s): s is string => typeof s === "string") : [];
  return Object.freeze({ subject, clientId, scopes: Object.freeze(scopes), claims: Object.freeze({ ...claims }) });
}
