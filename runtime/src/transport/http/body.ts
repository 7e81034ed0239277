/** What a POST carries before its era matters: media types, Accept, and the classifier's view of its body. */
import type { InboundMessage } from "../../protocol/classify.js";
import { inspect, isObject, type RequestId } from "../../wire/jsonrpc.js";

export type Accept = { json: boolean; sse: boolean };
export const ANY: Accept = { json: true, sse: true };

/** The first value of a header (Node gives repeated headers as arrays). */
export const one = (h: string | string[] | undefined): string | undefined => (Array.isArray(h) ? h[0] : h);

/**
 * The classifier's view of a body that is one message, or why it is not a JSON-RPC message at all (answered with
 * -32600 before its era matters, unless a legacy session answers it).
 */
export function inboundOf(value: Record<string, unknown>): InboundMessage | { invalid: string; id: RequestId | null } {
  const shape = inspect(value);
  if (shape.type === "invalid") return { invalid: shape.reason, id: shape.id };
  const kind = shape.type === "notification" ? "notification" : shape.type === "request" ? "request" : "response";
  return { kind, method: typeof value.method === "string" ? value.method : undefined, params: isObject(value.params) ? value.params : undefined };
}

/** Whether a Content-Type names JSON (parameters such as charset allowed). */
export function isJsonType(ct: string | undefined): boolean {
  if (!ct) return false;
  if (ct === "application/json") return true;
  const essence = ct.split(";", 1)[0].trim().toLowerCase();
  return essence === "application/json";
}

const acceptCache = new Map<string, Accept>();
/** What an Accept header allows of JSON and SSE (absent: anything). */
export function parseAccept(header: string | undefined): Accept {
  if (header === undefined || header === "") return { json: true, sse: true };
  const cached = acceptCache.get(header);
  if (cached) return cached;
  const out: Accept = { json: false, sse: false };
  for (const part of header.split(",")) {
    const [range, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    if (params.some((p) => /^q=0(\.0*)?$/.test(p))) continue;
    if (range === "*/*") out.json = out.sse = true;
    else if (range === "application/json" || range === "application/*") out.json = true;
    else if (range === "text/event-stream" || range === "text/*") out.sse = true;
  }
  if (acceptCache.size < 256) acceptCache.set(header, out);
  return out;
}
