/**
 * The limits that hold whatever carries the messages (stdio or HTTP): batch members, how many of them run at once,
 * and the size of one outbound message. The HTTP endpoint's per-caller quotas are in transport/http/options.ts
 * (HttpLimits), which extends this.
 */
import { type Revision, errorCode } from "../rules.js";
import { errorResponse } from "../wire/errors.js";
import type { JsonRpcMessage, JsonRpcResponse, RequestId } from "../wire/jsonrpc.js";

export interface MessageLimits {
  /**
   * Most members of one JSON-RPC batch (2025-03-26, the only revision with batches: spec/2025-03-26/basic/index.mdx#batching);
   * a longer batch is refused as a whole with -32600 naming this limit, and none of it runs. Default 100.
   */
  batchMembers?: number;
  /** Most members of one batch running at once; the others wait for one to finish. Default 10. */
  batchConcurrency?: number;
  /**
   * Largest serialized message the server sends, in bytes of UTF-8 (a JSON body, an SSE event's data, a stdio line;
   * a batch's answer as a whole). A result over it is answered with -32603 naming the limit (and logged); a
   * notification or server→client request over it is not sent (logged). Default 16 MiB.
   */
  responseBytes?: number;
}

/** The defaults of MessageLimits (docs/hosting.md#limits lists them with the HTTP quotas). */
export const MESSAGE_LIMITS: Required<MessageLimits> = { batchMembers: 100, batchConcurrency: 10, responseBytes: 16 * 1024 * 1024 };

/** `limits` with every default applied. */
export function messageLimits(limits: MessageLimits | undefined): Required<MessageLimits> {
  return { ...MESSAGE_LIMITS, ...definedOnly(limits) };
}

/** `o` without its undefined fields (so that `{ x: undefined }` keeps the default of x). */
export function definedOnly<T extends object>(o: T | undefined): Partial<T> {
  const out: Partial<T> = {};
  if (o) for (const k in o) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

/** Bytes of `s` in UTF-8, without encoding it (a lone surrogate counts 3, as TextEncoder writes U+FFFD). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Whether `text` is over `maxBytes` of UTF-8 (counted only when its length leaves a doubt). */
export function overBytes(text: string, maxBytes: number): boolean {
  if (text.length * 3 <= maxBytes) return false;
  return text.length > maxBytes || utf8Bytes(text) > maxBytes;
}

function logLimit(text: string): void {
  console.error(`mcp runtime: ${text}`);
}

/**
 * `message` as JSON, at most `maxBytes`: a response over it becomes a -32603 error for the same id naming the limit;
 * another message over it (a notification, a server→client request) is undefined: not sent. Both are logged. A
 * batch's answer is bounded member by member (Connection), so an array passes as it is.
 */
export function boundedJson(message: JsonRpcMessage | JsonRpcMessage[], maxBytes: number, revision: Revision): string | undefined {
  const text = JSON.stringify(message);
  if (Array.isArray(message) || !overBytes(text, maxBytes)) return text;
  const what = "method" in message ? `${message.method}` : "a response";
  if (!("result" in message || "error" in message)) {
    logLimit(`not sent: ${what} of ${utf8Bytes(text)} bytes is over the limit responseBytes (${maxBytes} bytes)`);
    return undefined;
  }
  return JSON.stringify(tooLargeResponse(message.id as RequestId, `the result is ${utf8Bytes(text)} bytes`, maxBytes, revision));
}

/** The -32603 a response is replaced with when `why` (its size) is over `maxBytes` (logged). */
export function tooLargeResponse(id: RequestId, why: string, maxBytes: number, revision: Revision): JsonRpcResponse {
  logLimit(`request ${JSON.stringify(id)} answered with an internal error: ${why}, over the limit responseBytes (${maxBytes} bytes)`);
  return errorResponse(revision, id, errorCode(revision, "INTERNAL_ERROR")!, `Internal error: ${why}, over the server's limit responseBytes (${maxBytes} bytes)`, {
    limit: "responseBytes",
    max: maxBytes,
  });
}
