/**
 * The generated revision rules module (out/rules.ts) as the runtime sees it,
 * plus lazy loading of the generated validators: a request's validator when
 * its method is first called, a revision's other validators when first used
 * (a process that only ever serves 2026-07-28 never loads the legacy ones).
 */
export * from "../../out/rules.js";
import type { Revision } from "../../out/rules.js";
import { dispatchValidatorLoaders, requestValidatorLoaders, validatorLoaders } from "../../out/loaders.js";

export interface Validator {
  (data: unknown): boolean;
  errors?: { instancePath: string; keyword: string; message?: string; params: Record<string, unknown> }[] | null;
}

/** Answer validators by asked method (server→client request or input request), as DispatchValidators.answerValidators. */
export type AnswerValidators = Readonly<Record<string, Validator>>;

/**
 * Every inbound message's validators: `out/<revision>/dispatch-validators.js`. Dispatch validates requests with
 * requestValidatorFor (one method's module) and loads these for the answers to input requests.
 */
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

/**
 * Load a module on first use, through the generated loader table (out/loaders.ts): its specifiers are static, so Deno
 * needs no read permission for them and a bundler (esbuild for Workers) includes exactly those files. `accept` takes
 * what the module gives (and may refuse it by throwing). Synchronous once loaded.
 */
function lazyLoader<K, T>(load: (key: K) => Promise<unknown>, accept: (module: unknown, key: K) => T = (m) => m as T): (key: K) => T | Promise<T> {
  const loaded = new Map<K, T>();
  const loading = new Map<K, Promise<T>>();
  return (key) => {
    if (loaded.has(key)) return loaded.get(key)!;
    let pending = loading.get(key);
    if (!pending) {
      pending = load(key).then(
        (m) => {
          // Not cached unless accepted: a load that failed (a host refusing it, a transient error, a module without
          // what it should export) is tried again by the next request.
          loading.delete(key);
          const value = accept(m, key);
          loaded.set(key, value);
          return value;
        },
        (err: unknown) => {
          loading.delete(key);
          throw err;
        },
      );
      loading.set(key, pending);
    }
    return pending;
  };
}

/**
 * The dispatch validators of `revision`, loaded on first use (the answers to input requests: a request that carries
 * inputResponses, a legacy server→client request, a task's ask). Synchronous once loaded.
 */
export const validatorsFor = lazyLoader<Revision, DispatchValidators>((revision) => dispatchValidatorLoaders[revision]());

/** One method's request validator module, by `${revision} ${method}` (revisions have no spaces). */
const requestValidatorOf = lazyLoader<string, Validator>(
  (key) => requestValidatorLoaders[key.slice(0, key.indexOf(" ")) as Revision][key.slice(key.indexOf(" ") + 1)](),
  (m, key) => {
    const validate = (m as { validate?: unknown }).validate;
    // Never cached as loaded without a function: dispatch would wait for it again and again.
    if (typeof validate !== "function") throw new Error(`the ${key} validator module exports no validate function`);
    return validate as Validator;
  },
);

/**
 * The validator of a client request of `method` in `revision` (its request message: `out/<revision>/requests/`), or
 * undefined when the revision defines no such client request. Loaded when the method is first called, so a server's
 * first answer waits for that method's code only; synchronous once loaded. A load that fails (or a module without a
 * `validate` function) rejects; the next call tries again, which helps when the file was missing (a module that failed
 * to evaluate stays failed in the host's module cache until a restart). Requests are validated with their
 * `inputResponses` emptied (dispatch.ts), so these validators check only that it is an object.
 */
export function requestValidatorFor(revision: Revision, method: string): Validator | undefined | Promise<Validator> {
  if (!Object.prototype.hasOwnProperty.call(requestValidatorLoaders[revision], method)) return undefined;
  return requestValidatorOf(`${revision} ${method}`);
}

/** Every generated validator of `revision` (large; loaded only to check outgoing results). */
export const allValidatorsFor = lazyLoader<Revision, RevisionValidators>((revision) => validatorLoaders[revision]());

type ValidationError = NonNullable<Validator["errors"]>[number];

function errorLine(e: ValidationError): string {
  const extra = e.keyword === "additionalProperties" ? ` (${String(e.params.additionalProperty)})` : e.keyword === "const" ? ` ${JSON.stringify(e.params.allowedValue)}` : "";
  return `${e.instancePath || "/"} ${e.message ?? e.keyword}${extra}`;
}

/**
 * One line describing why validation failed, for a JSON-RPC error message.
 *
 * The validators stop at the first failure, so the error list is that failure; for an anyOf/oneOf it is every
 * alternative's first error followed by the anyOf error itself (an alternative that passes leaves nothing). Naming
 * `errors[0]` there blames the first alternative, usually not the one the sender meant. Instead:
 * - a property the alternatives require to be *different* constants (`type: "text"` vs `"image"`) is a
 *   discriminator: an alternative failing on it was not meant, and neither was one whose JSON type differs from the
 *   value's;
 * - of the rest, the alternative whose error lies deepest in the value got furthest, so it is the one nearly
 *   matched (at equal depth, one that failed past its `required` check);
 * - when every alternative failed on its discriminator or JSON type (or, short of that, on its first required
 *   property), say which values or types would do.
 */
export function describeErrors(v: Validator): string {
  const errors = v.errors ?? [];
  const last = errors[errors.length - 1];
  if (!last) return "invalid";
  if ((last.keyword !== "anyOf" && last.keyword !== "oneOf") || errors.length === 1) return errorLine(errors[0]);
  const base = last.instancePath;
  const depth = (e: ValidationError) => e.instancePath.split("/").length;
  const leaves = errors.slice(0, -1).filter((e) => e.keyword !== "anyOf" && e.keyword !== "oneOf" && (e.instancePath === base || e.instancePath.startsWith(`${base}/`)));
  const constants = new Map<string, Set<string>>();
  for (const e of leaves) {
    if (e.keyword !== "const") continue;
    if (!constants.has(e.instancePath)) constants.set(e.instancePath, new Set());
    constants.get(e.instancePath)!.add(JSON.stringify(e.params.allowedValue));
  }
  const mismatch = (e: ValidationError) =>
    (e.keyword === "const" && (constants.get(e.instancePath)?.size ?? 0) > 1) || (e.keyword === "enum" && e.instancePath === base) || (e.keyword === "type" && e.instancePath === base);
  const near = leaves.filter((e) => !mismatch(e));
  // An alternative missing its first required property got least far; a discriminator mismatch says more.
  const weak = (e: ValidationError) => e.keyword === "required" && e.instancePath === base;
  const discriminated = leaves.some((e) => e.keyword === "const" && mismatch(e));
  if (near.some((e) => !weak(e)) || (near.length > 0 && !discriminated)) {
    const score = (e: ValidationError) => depth(e) * 2 + (e.keyword === "required" ? 0 : 1);
    const best = near.reduce((a, b) => (score(b) > score(a) ? b : a));
    return `${errorLine(best)} (in the nearest alternative of ${base || "/"})`;
  }
  // Every alternative failed on what tells them apart: list what would have been accepted there.
  const told = leaves.filter(mismatch);
  const where = told.reduce((a, b) => (depth(b) > depth(a) ? b : a), told[0] ?? last).instancePath;
  const accepted = new Set<string>();
  for (const e of told.filter((x) => x.instancePath === where)) {
    if (e.keyword === "const") accepted.add(JSON.stringify(e.params.allowedValue));
    else if (e.keyword === "enum") for (const a of (e.params.allowedValues as unknown[]) ?? []) accepted.add(JSON.stringify(a));
    else if (e.keyword === "type") for (const t of String(e.params.type).split(",")) accepted.add(t);
  }
  return accepted.size > 0 ? `${where || "/"} must be one of: ${[...accepted].join(", ")}` : errorLine(last);
}
