/** Answers the endpoint gives without a Connection: JSON-RPC error bodies with an HTTP status, 500s and refusals. */
import { type Revision, errorCode } from "../../rules.js";
import { STORE_RETRY_AFTER_S, isStoreUnavailable } from "../../state/errors.js";
import { errorResponse } from "../../wire/errors.js";
import { fixedHttpStatus, httpRefusalOf } from "../../wire/http-status.js";
import type { JsonRpcMessage, RequestId } from "../../wire/jsonrpc.js";
import type { AuthorizationError } from "./authorization.js";
import type { Reply } from "./io.js";
import type { QuotaRefusal } from "./quotas.js";

type Headers = Record<string, string>;

/** How often one store error is repeated on stderr while it lasts (ms), as the task store's. */
const STORE_LOG_EVERY_MS = 10_000;

/** Report a failure of the runtime's own on stderr (console.error where a platform has no process.stderr). */
export function logError(err: unknown): void {
  const text = `mcp runtime: ${String((err as Error)?.stack ?? err)}\n`;
  const stderr = (globalThis as { process?: { stderr?: { write?: (s: string) => void } } }).process?.stderr;
  if (stderr?.write) stderr.write(text);
  else console.error(text.trimEnd());
}

/** A JSON-RPC error as an HTTP answer: `code`, `message` and `data` of the error, its id form by `revision`'s rules. */
export interface ErrorAnswer {
  revision: Revision;
  code: number;
  message: string;
  id?: RequestId | null;
  data?: unknown;
  headers?: Headers;
}

/** Answer with `status` and a JSON-RPC error, unless the response is under way. */
export function replyError(res: Reply, status: number, answer: ErrorAnswer): void {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify(errorResponse(answer.revision, answer.id, answer.code, answer.message, answer.data));
  const headers = answer.headers;
  if (headers) for (const k in headers) res.setHeader(k, headers[k]);
  res.statusCode = status;
  res.setHeader("content-type", "application/json");
  res.end(body);
}

/** The error of a rejection: its JSON-RPC code, message and data. */
export interface Rejection {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * The endpoint's answers that no Connection gives: rejections before a message reaches one, 500s, authorization
 * refusals, and the HTTP status of a response message. Errors not tied to a negotiated revision take the form of
 * `fallback`, the newest served revision.
 */
export class Responder {
  private lastStoreError = "";
  private lastStoreErrorAt = 0;
  constructor(private readonly fallback: Revision) {}

  /** Answer `status` with `error` (id and revision default: null and the fallback revision). */
  reject(res: Reply, status: number, error: Rejection, how: { id?: RequestId | null; revision?: Revision; headers?: Headers } = {}): void {
    replyError(res, status, { revision: how.revision ?? this.fallback, code: error.code, message: error.message, id: how.id, data: error.data, headers: how.headers });
  }

  /** Answer `status` with -32600 (Invalid Request) and `message`. */
  invalidRequest(res: Reply, status: number, message: string, id?: RequestId | null, headers?: Headers): void {
    this.reject(res, status, { code: errorCode(this.fallback, "INVALID_REQUEST")!, message }, { id, headers });
  }

  /**
   * A quota refused: 429 (a caller's quota) or 503 (the process-wide maxSessions), with Retry-After and -32600 naming
   * the limit (message and `data`). No spec code covers it, and a peer is sent only codes its revision defines.
   */
  quota(res: Reply, refusal: QuotaRefusal, id?: RequestId | null, extra: Record<string, string> = {}): void {
    const status = refusal.limit === "maxSessions" ? 503 : 429;
    const what = status === 503 ? "Service Unavailable" : "Too Many Requests";
    const message = `${what}: ${refusal.what} (limit ${refusal.limit}: ${refusal.max})`;
    const data = { limit: refusal.limit, max: refusal.max };
    this.reject(res, status, { code: errorCode(this.fallback, "INVALID_REQUEST")!, message, data }, { id, headers: { "retry-after": String(refusal.retryAfter), ...extra } });
  }

  /** Answer `status` with -32700 (Parse error) and `message`. */
  parseError(res: Reply, message: string): void {
    this.reject(res, 400, { code: errorCode(this.fallback, "PARSE_ERROR")!, message });
  }

  /**
   * A failure of the runtime's own: logged, answered 500 if nothing was sent yet, else the response ends (the status
   * of a response already under way cannot change). A store that could not be reached is 503 instead (storeUnavailable).
   */
  internalError(res: Reply, err: unknown, id: RequestId | null = null): void {
    if (isStoreUnavailable(err)) return this.storeUnavailable(res, err, id);
    logError(err);
    if (!res.headersSent && !res.destroyed) this.reject(res, 500, { code: errorCode(this.fallback, "INTERNAL_ERROR")!, message: "Internal error" });
    else if (!res.writableEnded) res.end();
  }

  /**
   * A store (the session store, its event log) could not be reached: 503 with Retry-After and -32603, the store's own
   * error on stderr only (its address and driver's words are not the client's).
   */
  storeUnavailable(res: Reply, err: unknown, id: RequestId | null = null): void {
    const message = String((err as Error)?.message ?? err);
    const now = Date.now();
    // Once per distinct error, again every STORE_LOG_EVERY_MS while it lasts: an outage fails every request.
    if (message !== this.lastStoreError || now - this.lastStoreErrorAt >= STORE_LOG_EVERY_MS) {
      this.lastStoreError = message;
      this.lastStoreErrorAt = now;
      logError(message);
    }
    if (res.headersSent || res.destroyed) return void (res.writableEnded || res.end());
    const error = { code: errorCode(this.fallback, "INTERNAL_ERROR")!, message: "Service Unavailable: the session store could not be reached; try again" };
    this.reject(res, 503, error, { id, headers: { "retry-after": String(STORE_RETRY_AFTER_S) } });
  }

  /**
   * Answer a refused authorization: its status, `WWW-Authenticate` challenge (`challenge(err)`) and a JSON-RPC error
   * body; 503 (the token cannot be verified now) has no challenge. spec/2025-11-25/basic/authorization.mdx#error-handling
   */
  refuse(res: Reply, err: AuthorizationError, challenge: (err: AuthorizationError) => string, id: RequestId | null = null): void {
    if (err.status === 503) {
      logError(err.message);
      return this.invalidRequest(res, 503, `Service Unavailable: ${err.message}`, id, { "retry-after": "5" });
    }
    const what = err.status === 401 ? "Unauthorized" : err.status === 403 ? "Forbidden" : "Bad Request";
    const data = err.error ? { error: err.error, ...(err.scope?.length ? { scope: err.scope.join(" ") } : {}) } : undefined;
    this.reject(res, err.status, { code: errorCode(this.fallback, "INVALID_REQUEST")!, message: `${what}: ${err.message}`, data }, { id, headers: { "www-authenticate": challenge(err) } });
  }

  /** The HTTP status of a response message under `revision`'s rules (errors the spec gives a status; else 200). */
  statusFor(message: JsonRpcMessage | JsonRpcMessage[], revision: Revision): number {
    if (Array.isArray(message) || !("error" in message)) return 200;
    // A quota or a store outage met by a method (a task's creation, tasks/get …): 429 or 503 (protocol/errors.ts).
    const refusal = httpRefusalOf(message);
    if (refusal) return refusal.status;
    // An error without an id answers a message the server could not accept (no id could be read, a rejected batch,
    // an invalid notification): an HTTP error status. spec/2025-11-25/basic/transports.mdx#sending-messages-to-the-server,
    // spec/2026-07-28/basic/transports/streamable-http.mdx#sending-messages
    if (message.id === undefined || message.id === null) return 400;
    return fixedHttpStatus(revision, (message as { error: { code: number } }).error.code) ?? 200;
  }
}
