/**
 * Who a task is bound to. Requests for another context's tasks MUST be rejected, so every task method compares the
 * caller's owner with the task's. spec/2025-11-25/basic/utilities/tasks.mdx#task-isolation-and-access-control
 */
import type { RequestScope } from "./request.js";

/**
 * A task's owner: the authorization context (the user and the client acting for it), else the legacy link (session
 * or stdio pipe). `undefined` is nobody: an unauthenticated modern caller, for whom the task id is the capability.
 */
export type TaskOwner =
  /** `subjectFrom`: whether the principal's subject is the token's `sub` or, without one, its `client_id`. */
  { readonly kind: "principal"; readonly subjectFrom: "sub" | "client"; readonly subject: string; readonly client?: string } | { readonly kind: "link"; readonly link: string };

/** The owner a request's tasks are bound to: its principal, else its link, else nobody. */
export function taskOwner(scope: RequestScope): TaskOwner | undefined {
  const p = scope.principal;
  if (p) return { kind: "principal", subjectFrom: p.claims.sub === p.subject ? "sub" : "client", subject: p.subject, client: p.clientId };
  if (scope.link) return { kind: "link", link: scope.link.id };
  return undefined;
}

/**
 * The owner as the task store keeps it (TaskRecord.owner; stored, and compared across processes, so it never changes):
 * `principal:["sub"|"client",subject,client or ""]`, `link:<id>`, or "" for nobody. A subject taken from `client_id`
 * is never confused with a user's `sub`.
 */
export function ownerKey(owner: TaskOwner | undefined): string {
  if (!owner) return "";
  if (owner.kind === "principal") return `principal:${JSON.stringify([owner.subjectFrom, owner.subject, owner.client ?? ""])}`;
  return `link:${owner.link}`;
}
