/**
 * The HTTP status of a JSON-RPC error response, by the revision's rules: the codes the revision fixes a status for
 * (rules: httpErrorStatuses, unknownMethodHttpStatus), else 200 (the error travels in the body).
 * spec/2026-07-28/basic/transports/streamable-http.mdx#server-validation
 */
import { type Revision, errorCode, httpErrorStatuses, unknownMethodHttpStatus } from "../rules.js";

const tables = new Map<Revision, Map<number, number>>();

function table(revision: Revision): Map<number, number> {
  let t = tables.get(revision);
  if (!t) {
    t = new Map();
    for (const pair of httpErrorStatuses(revision)) {
      const [code, status] = pair.split(":").map(Number);
      t.set(code, status);
    }
    const notFound = errorCode(revision, "METHOD_NOT_FOUND");
    if (notFound !== undefined) t.set(notFound, unknownMethodHttpStatus(revision));
    tables.set(revision, t);
  }
  return t;
}

/** The status `revision` fixes for error `code`, or undefined. */
export function fixedHttpStatus(revision: Revision, code: number): number | undefined {
  return table(revision).get(code);
}

/** How an HTTP entry answers a refused request: its status (429 a caller's quota, 503 the process's or a store outage) and Retry-After (seconds). */
export interface HttpRefusal {
  status: number;
  retryAfter: number;
}

const refusals = new WeakMap<object, HttpRefusal>();

/** Mark error response `response` as a refusal (the JSON-RPC body is unchanged; only an HTTP entry reads this). */
export function markHttpRefusal<T extends object>(response: T, refusal: HttpRefusal): T {
  refusals.set(response, refusal);
  return response;
}

/** The refusal `message` was marked as (markHttpRefusal), or undefined. */
export function httpRefusalOf(message: object): HttpRefusal | undefined {
  return refusals.get(message);
}
