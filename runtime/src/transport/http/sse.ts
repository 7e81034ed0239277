/** Server-Sent Events framing, as every SSE response of the endpoint writes it. */

export const SSE_HEADERS: Record<string, string> = { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" };

/** One SSE event carrying `json` (a serialized message, bounded: protocol/limits.ts boundedJson), on any SSE response. */
export function sseEvent(json: string, event = "message"): string {
  return `event: ${event}\ndata: ${json}\n\n`;
}
