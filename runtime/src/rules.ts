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

/** What dispatch validates on every inbound message: `out/<revision>/dispatch-validators.js`. */
export interface DispatchValidators {
  clientRequestValidators: Record<string, Validator>;
  clientNotificationValidators: Record<string, Validator>;
  /** Server→client request or input request method → validator of the client's answer. */
  answerValidators: Record<string, Validator>;
  requestTypesIncludeEnvelope: boolean;
}

/** Every definition of a revision: `out/<revision>/validators.js` (used to check outgoing results in tests). */
export interface RevisionValidators {
  resultValidators: Record<string, Validator>;
  [name: string]: unknown;
}

function lazyLoader<T>(file: string): (revision: Revision) => T | Promise<T> {
  const loaded = new Map<Revision, T>();
  const loading = new Map<Revision, Promise<T>>();
  return (revision) => {
    const ready = loaded.get(revision);
    if (ready) return ready;
    let pending = loading.get(revision);
    if (!pending) {
      pending = import(/* @vite-ignore */ `../../out/${revision}/${file}`).then((m: T) => {
        loaded.set(revision, m);
        return m;
      });
      loading.set(revision, pending);
    }
    return pending;
  };
}

/**
 * The dispatch validators of `revision`, loaded on first use: a process that only ever serves 2026-07-28 never
 * loads the legacy ones. Synchronous once loaded.
 */
export const validatorsFor = lazyLoader<DispatchValidators>("dispatch-validators.js");

/** Every generated validator of `revision` (large; loaded only to check outgoing results). */
export const allValidatorsFor = lazyLoader<RevisionValidators>("validators.js");

/** One line describing the first validation error, for a JSON-RPC error message. */
export function describeErrors(v: Validator): string {
  const e = v.errors?.[0];
  if (!e) return "invalid";
  const where = e.instancePath || "/";
  const extra = e.keyword === "additionalProperties" ? ` (${String(e.params.additionalProperty)})` : e.keyword === "required" ? "" : "";
  return `${where} ${e.message ?? e.keyword}${extra}`;
}
