/**
 * JSON-RPC error responses as each revision writes them. spec/2025-11-25/basic/index.mdx#error-responses
 */
import { parseErrorOmitsId, type Revision } from "../rules.js";
import type { JsonRpcResponse, RequestId } from "./jsonrpc.js";

/**
 * An error response. When the request's id is unknown (unreadable, or a message that is not a request), the id is
 * omitted from 2025-11-25 and null before (rules: parseErrorOmitsId).
 */
export function errorResponse(revision: Revision, id: RequestId | null | undefined, code: number, message: string, data?: unknown): JsonRpcResponse {
  const error = data === undefined ? { code, message } : { code, message, data };
  if (id === null || id === undefined) return parseErrorOmitsId(revision) ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id: null, error };
  return { jsonrpc: "2.0", id, error };
}
