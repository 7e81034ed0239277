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
