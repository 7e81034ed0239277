/**
 * JSON-RPC 2.0 message shapes and classification, as MCP uses them
 * (spec/<revision>/basic/index.mdx#messages). Pure functions: no I/O.
 */

export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}
export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}
export interface JsonRpcResult {
  jsonrpc: "2.0";
  id: RequestId;
  result: Record<string, unknown>;
}
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}
export interface JsonRpcError {
  jsonrpc: "2.0";
  /** Omitted (2025-11-25 and later) or null (earlier) when the request's id could not be read. */
  id?: RequestId | null;
  error: JsonRpcErrorObject;
}
export type JsonRpcResponse = JsonRpcResult | JsonRpcError;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** What an inbound JSON value is. `invalid` carries the id when one could be read. */
export type Inbound =
  | { type: "request"; message: JsonRpcRequest }
  | { type: "notification"; message: JsonRpcNotification }
  | { type: "response"; message: JsonRpcResponse }
  | { type: "invalid"; id: RequestId | null; reason: string }
  /**
   * Looks like a response but is malformed: never answered (an answer could collide with a request id of the peer's).
   * `id` when it names one, so that the request it answers fails instead of waiting for an answer that came.
   */
  | { type: "malformed-response"; reason: string; id?: RequestId };

/** RequestId is string or integer in every revision; an integer beyond 2^53 could not be echoed back faithfully. */
export const isId = (v: unknown): v is RequestId => typeof v === "string" || (typeof v === "number" && Number.isSafeInteger(v));
/** A JSON object: not null, not an array. */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Inspect the JSON-RPC shape of one parsed JSON value (not a batch). A request id MUST NOT be null
 * (every revision): `{"id": null, "method": …}` is invalid, not a notification.
 */
export function inspect(value: unknown): Inbound {
  if (!isObject(value)) return { type: "invalid", id: null, reason: "a JSON-RPC message must be an object" };
  const id = value.id;
  if (value.jsonrpc !== "2.0") {
    // A response is never answered, even a malformed one: the answer could collide with one of the peer's request ids.
    if (!("method" in value) && ("result" in value || "error" in value)) return { type: "malformed-response", reason: 'jsonrpc must be "2.0"' };
    return { type: "invalid", id: isId(id) ? id : null, reason: 'jsonrpc must be "2.0"' };
  }
  if ("method" in value) {
    if (typeof value.method !== "string") return { type: "invalid", id: isId(id) ? id : null, reason: "method must be a string" };
    if (value.params !== undefined && !isObject(value.params)) return { type: "invalid", id: isId(id) ? id : null, reason: "params must be an object" };
    if (!("id" in value)) return { type: "notification", message: value as unknown as JsonRpcNotification };
    if (!isId(id)) return { type: "invalid", id: null, reason: id === null ? "a request id must not be null" : "a request id must be a string or an integer" };
    return { type: "request", message: value as unknown as JsonRpcRequest };
  }
  if (isId(id) && "result" in value && isObject(value.result)) return { type: "response", message: value as unknown as JsonRpcResponse };
  if (isId(id) && "error" in value && isObject(value.error)) {
    const e = value.error;
    if (Number.isInteger(e.code) && typeof e.message === "string") return { type: "response", message: value as unknown as JsonRpcResponse };
  }
  if ("result" in value || "error" in value || "id" in value)
    return {
      type: "malformed-response",
      reason: "a response needs an id and a result object or an error with an integer code and a string message",
      ...(isId(id) && { id }),
    };
  return { type: "invalid", id: isId(id) ? id : null, reason: "neither a request, a notification nor a response" };
}

/**
 * An error a handler or the runtime throws to answer with a JSON-RPC error.
 * Construct codes through the rules module (`errorCode(revision, name)`) so a
 * peer is sent only codes its revision defines.
 */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "McpError";
  }
}
