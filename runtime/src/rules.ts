/**
 * The generated revision rules module (out/rules.ts) as the runtime sees it,
 * plus lazy, per-revision loading of the generated validators: a process
 * that only ever serves 2026-07-28 never loads the legacy validators.
 */
export * from "../../out/rules.js";
import type { Revision } from "../../out/rules.js";

export interface Validator {
  (data: unknown): boolean;
  errors?: { instancePath: string; keyword: string; message?: string; params: Record<string, unknown> }[] | null;
}

export interface RevisionValidators {
  clientRequestValidators: Record<string, Validator>;
  clientNotificationValidators: Record<string, Validator>;
  resultValidators: Record<string, Validator>;
  inputRequestValidators: Record<string, Validator>;
  serverNotificationValidators: Record<string, Validator>;
  serverRequestValidators: Record<string, Validator>;
  requestTypesIncludeEnvelope: boolean;
  validateJSONRPCRequest?: Validator;
  [name: string]: unknown;
}

const loaded = new Map<Revision, RevisionValidators>();
const loading = new Map<Revision, Promise<RevisionValidators>>();

/** The generated validators of `revision`, loaded on first use (`out/<revision>/validators.js`). */
export function validatorsFor(revision: Revision): RevisionValidators | Promise<RevisionValidators> {
  const ready = loaded.get(revision);
  if (ready) return ready;
  let pending = loading.get(revision);
  if (!pending) {
    pending = import(`../../out/${revision}/validators.js`).then((m: RevisionValidators) => {
      loaded.set(revision, m);
      return m;
    });
    loading.set(revision, pending);
  }
  return pending;
}

/** One line describing the first validation error, for a JSON-RPC error message. */
export function describeErrors(v: Validator): string {
  const e = v.errors?.[0];
  if (!e) return "invalid";
  const where = e.instancePath || "/";
  const extra = e.keyword === "additionalProperties" ? ` (${String(e.params.additionalProperty)})` : e.keyword === "required" ? "" : "";
  return `${where} ${e.message ?? e.keyword}${extra}`;
}
