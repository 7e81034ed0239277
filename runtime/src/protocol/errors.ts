/**
 * The JSON-RPC error a thrown value becomes for a peer of a given revision: pure, one mapping for every answer
 * (dispatch's responses, a failed task's stored error). spec/2025-11-25/basic/index.mdx#error-responses
 */
import { type Revision, definesErrorCode, errorCode } from "../rules.js";
import { MissingCapabilityError } from "../server/errors.js";
import { HandlerFailure } from "../server/failures.js";
import { McpError, type JsonRpcErrorObject, type JsonRpcResponse, type RequestId } from "../wire/jsonrpc.js";
import { errorResponse } from "../wire/errors.js";
import { type HttpRefusal, markHttpRefusal } from "../wire/http-status.js";
import { STORE_RETRY_AFTER_S, isStoreUnavailable } from "../state/errors.js";
import { TaskStoreUnavailable } from "../state/task-store.js";

/**
 * A request refused for a limit (a caller's quota: HTTP 429; the process's: 503), its JSON-RPC error naming the
 * limit in the message and in `data` ({ limit, max }). An HTTP entry answers it with `http` (status, Retry-After).
 */
export class LimitRefusal extends McpError {
  constructor(
    code: number,
    message: string,
    data: { limit: string; max: number },
    readonly http: HttpRefusal,
  ) {
    super(code, message, data);
  }
}

/** The HTTP status and Retry-After of a thrown value that is a refusal or a store outage, else undefined. */
/** Whether `err` is a quota's refusal or a store outage: the runtime's own answer, told as it is (never a handler's failure). */
export function isRefusal(err: unknown): boolean {
  return refusalOf(err) !== undefined;
}

function refusalOf(err: unknown): HttpRefusal | undefined {
  if (err instanceof LimitRefusal) return err.http;
  if (err instanceof TaskStoreUnavailable || isStoreUnavailable(err)) return { status: 503, retryAfter: STORE_RETRY_AFTER_S };
  return undefined;
}

/**
 * The error object for `err` under `revision`: a missing client capability is -32021 where the revision defines it
 * (else -32600); an McpError keeps its code unless it is a reserved code the revision does not define (then -32603);
 * a handler's failure (server/failures.ts) is -32603 with the message its client may see; anything else is -32603
 * with its message. `data` is present only when there is some.
 */
export function errorOf(revision: Revision, err: unknown): JsonRpcErrorObject {
  if (err instanceof HandlerFailure) return { code: errorCode(revision, "INTERNAL_ERROR")!, message: err.clientMessage };
  if (err instanceof MissingCapabilityError) {
    const code = errorCode(revision, "MISSING_REQUIRED_CLIENT_CAPABILITY");
    if (code !== undefined) return { code, message: err.message, data: { requiredCapabilities: err.requiredCapabilities } };
    return { code: errorCode(revision, "INVALID_REQUEST")!, message: err.message };
  }
  if (err instanceof McpError) {
    let code = err.code;
    // A code in the JSON-RPC reserved range that this revision does not define is not sent to its peer.
    if (code >= -32768 && code <= -32000 && !definesErrorCode(revision, code)) code = errorCode(revision, "INTERNAL_ERROR")!;
    return err.data === undefined ? { code, message: err.message } : { code, message: err.message, data: err.data };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: errorCode(revision, "INTERNAL_ERROR")!, message: `Internal error: ${message}` };
}

/**
 * The error response to request `id` for `err` under `revision` (errorOf, written as the revision writes ids), marked
 * for HTTP (markHttpRefusal) when `err` is a LimitRefusal or a store outage.
 */
export function errorResponseOf(revision: Revision, id: RequestId, err: unknown): JsonRpcResponse {
  const e = errorOf(revision, err);
  const response = errorResponse(revision, id, e.code, e.message, e.data);
  // Over HTTP a quota is 429 (or 503) and an outage 503, with Retry-After; the body is the same on every transport.
  const refusal = refusalOf(err);
  return refusal ? markHttpRefusal(response, refusal) : response;
}
