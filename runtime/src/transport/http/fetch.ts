/**
 * The MCP endpoint as a web-standard fetch handler, `(request: Request) => Promise<Response>`: for Hono, Cloudflare
 * Workers, Deno, Bun and Next.js route handlers. SSE responses stream through a ReadableStream. Legacy sessions live
 * in the isolate or process that created them (a platform that spreads one client's requests over isolates needs a
 * shared session store; modern 2026-07-28 requests are stateless and need none).
 * spec/2026-07-28/basic/transports/streamable-http.mdx
 */
import type { ProtocolCore } from "../../protocol/core.js";
import { FetchReply, fetchIncoming } from "./io.js";
import { HttpEndpoint } from "./endpoint.js";
import type { CloseOptions, HandlerOptions } from "./options.js";
import { warnIfOpen } from "./security.js";

/**
 * How long a request runs before its Request's signal is watched, in milliseconds. A Request's signal costs adapters
 * such as @hono/node-server an AbortController; under load most requests are answered within a few milliseconds, and
 * a client that went away before this is seen then (an aborted signal).
 */
const WATCH_AFTER_MS = 20;

export type FetchHandler = ((request: Request) => Promise<Response>) & {
  /** End every stream and session of this handler (listen streams first, gracefully; see NodeHandler.close). */
  close(options?: CloseOptions): Promise<void>;
};

/**
 * A fetch handler serving the MCP endpoint for every request it is given (or, with `options.path`, that path only:
 * others get 404). Same security defaults as serveHttp: Host must be a loopback name unless `allowedHosts` or
 * `allowRemote`, Origin a loopback origin unless `allowedOrigins`, bodies over `maxBodyBytes` get 413.
 */
export function fetchHandler(core: ProtocolCore, options: HandlerOptions = {}): FetchHandler {
  const endpoint = new HttpEndpoint(core, options);
  warnIfOpen(endpoint, options, "fetchHandler");
  // Replies still open WATCH_AFTER_MS after their request arrived watch its signal, so that a client's disconnect
  // cancels a long request (spec/2026-07-28/basic/transports/streamable-http.mdx#cancellation); the many answered by
  // then never pay for a signal. One timer per batch of requests, not one per request.
  let opened: { reply: FetchReply; request: Request }[] = [];
  const watchOpen = () => {
    const batch = opened;
    opened = [];
    // `request.signal` only for replies still open: reading it is what costs.
    for (const { reply, request } of batch) if (!reply.writableEnded && !reply.destroyed) reply.watch(request.signal);
  };
  const handler = (request: Request): Promise<Response> => {
    const reply = new FetchReply();
    endpoint.handle(fetchIncoming(request), reply);
    if (!reply.writableEnded) {
      if (opened.length === 0) setTimeout(watchOpen, WATCH_AFTER_MS);
      opened.push({ reply, request });
    }
    return reply.response;
  };
  return Object.assign(handler, { close: (o?: CloseOptions) => endpoint.close(o) });
}
