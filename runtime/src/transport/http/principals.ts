/**
 * Who a caller is, as the HTTP side compares callers: the principal a verified token yields (authorization.ts)
 * binds the legacy session it opens (served to no one else) and is checked against the scopes a request needs.
 * spec/2025-11-25/basic/authorization.mdx#token-handling
 */
import type { Principal } from "../../protocol/request.js";
import { principalIdentity } from "../../state/request-state.js";

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
