/**
 * The MCP endpoint as a web-standard fetch handler, `(request: Request) => Promise<Response>`: for Hono, Cloudflare
 * Workers, Deno, Bun and Next.js route handlers. SSE responses stream through a ReadableStream. Legacy sessions live
 * in the isolate or process that created them (a platform that spreads one client's requests over isolates needs a
 * shared session store; modern 2026-07-28 requests are stateless and need none).
 * spec/2026-07-28/basic/transports/streamable-http.mdx
 */
import type { ProtocolCore } from "../../protocol/core.js";
import { afterThisPoll } from "../../protocol/turns.js";
import { FetchReply, fetchIncoming, type WatchLater } from "./io.js";
import { HttpEndpoint } from "./endpoint.js";
import type { CloseOptions, HandlerOptions } from "./options.js";
import { warnIfOpen } from "./security.js";

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
  // Replies still open once the poll in which their request arrived has run its callbacks watch its signal, so that a
  // client's disconnect cancels a long request (spec/2026-07-28/basic/transports/streamable-http.mdx#cancellation).
  // Under load nearly all are answered within that turn (13 of 102,697 in the bench were not) and never pay for a
  // signal, which costs adapters such as @hono/node-server an AbortController per request. One check per batch of
  // requests; the batch holds each request through a WatchLater its reply empties when it ends. (A 20 ms timer, as
  // before, kept the server's peak RSS 14 MB higher in the bench: 92 against 78 MB.)
  let opened: WatchLater[] = [];
  const watchOpen = () => {
    const batch = opened;
    opened = [];
    // `request.signal` only for replies still open: reading it is what costs.
    for (const later of batch) if (later.reply && later.request) later.reply.watch(later.request.signal);
  };
  const handler = (request: Request): Promise<Response> => {
    const reply = new FetchReply();
    endpoint.handle(fetchIncoming(request), reply);
    if (!reply.writableEnded && !reply.destroyed) {
      if (opened.length === 0) afterThisPoll(watchOpen);
      opened.push(reply.watchLater(request));
    }
    return reply.response;
  };
  return Object.assign(handler, { close: (o?: CloseOptions) => endpoint.close(o) });
}
