/** Server-Sent Events framing, as every SSE response of the endpoint writes it. */
import type { JsonRpcMessage } from "../../wire/jsonrpc.js";

export const SSE_HEADERS: Record<string, string> = { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" };

/** One SSE response: a POST's stream, a legacy session's GET stream, or an HTTP+SSE stream. */
export function sseEvent(message: JsonRpcMessage | JsonRpcMessage[], event = "message"): string {
  return `event: ${event}\ndata: ${JSON.stringify(message)}\n\n`;
}
