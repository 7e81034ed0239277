import type { MessageLimits } from "../../protocol/limits.js";
import type { AuthorizationOptions } from "./authorization-config.js";
import type { HeaderBag } from "./io.js";

/** Options of the HTTP side of the runtime: the endpoint (every entry point) and serveHttp's bind. */

/** The HTTP+SSE transport's default paths (HandlerOptions.ssePath, messagesPath). spec/2024-11-05/basic/transports.mdx#http-with-sse */
export const DEFAULT_SSE_PATH = "/sse";
export const DEFAULT_MESSAGES_PATH = "/messages";

/**
 * The endpoint's quotas per caller, and the limits of any transport (MessageLimits: batch members, members at once,
 * the size of one response). A caller is the principal (with `authorization`: its subject and client), else the
 * client (HandlerOptions.clientKey; default: the socket's remote address, an IPv6 address by its /64). Each quota is
 * per process. Past one, the request gets HTTP 429 with `Retry-After` and a JSON-RPC -32600 naming the limit in its
 * message and `error.data.limit`; the other callers are unaffected. The process-wide limits are `maxSessions`,
 * `maxBodyBytes` and `replayBufferBytes`. Every default is listed in docs/hosting.md#limits.
 */
export interface HttpLimits extends MessageLimits {
  /**
   * Most legacy sessions one caller holds at once: Streamable HTTP sessions (2025-03-26 to 2025-11-25) and HTTP+SSE
   * sessions (2024-11-05). Default 1 000 (every client behind one proxy address shares it: see `clientKey`).
   */
  sessionsPerCaller?: number;
  /**
   * Most SSE streams one caller holds open at once: GET streams, 2024-11-05 HTTP+SSE streams, subscriptions/listen
   * streams, and POSTs being answered whose client accepts text/event-stream (such a response may become a stream at
   * any moment, so it holds its place from its arrival until it closes). Default 1 000.
   */
  streamsPerCaller?: number;
  /** Most of those streams one legacy session holds open at once (its GET stream and its POSTs). Default 100. */
  streamsPerSession?: number;
  /**
   * Most bytes one SSE stream may hold written but not yet taken by its client (a client that does not read): at a
   * write past it the stream is closed, as if the client had gone (a resumable legacy stream can be resumed with
   * Last-Event-ID; its events are in the session's event log). One event may pass it (a response up to
   * `responseBytes`). Default 4 MiB.
   */
  streamBufferBytes?: number;
  /**
   * The event loop shared fairly (transport/http/cpu-share.ts): while it is saturated (see `cpuLagMs`; or over 80 %
   * busy for 100 ms; and while a caller is held back), a POST of a
   * caller that used more than this many times the average of the other active callers' time on the event loop (the
   * synchronous part of their POSTs and their answers' encoding, wall time, over 10 ms only what the process's CPU
   * time says it ran, decayed with a half-life of 1 s), and
   * over 5 ms, waits for its turn, its body unread: waiting callers take turns (one POST each every 5 ms) as their
   * charges decay. A caller with 256 POSTs waiting is refused with 429, `Retry-After: 1` and `Connection: close`.
   * Opt-in: default 0 (off), since a heavy caller with only light company is held to a small share of the loop while
   * it saturates the loop itself; 4 is what the soak (bench/soak.mjs) runs with.
   */
  cpuShareFactor?: number;
  /** How late (ms) a 20 ms timer must be for the event loop to count as saturated (for 5 s after). Default 10. */
  cpuLagMs?: number;
}

/** What HandlerOptions.clientKey sees of a request. */
export interface ClientOf {
  headers: HeaderBag;
  /** The socket's remote address (Node entries); undefined where the platform gives none (fetchHandler). */
  remoteAddress?: string;
}

export interface CloseOptions {
  /** How long requests being answered may take to finish before their sessions end. Default 0: end at once. */
  drainMs?: number;
}

/** Options of the MCP endpoint, however it is served (serveHttp, nodeHandler, fetchHandler). */
export interface HandlerOptions {
  /**
   * The MCP endpoint's path. serveHttp: default "/mcp". nodeHandler and fetchHandler: default none, so every request
   * that reaches the handler is for the endpoint, at whatever path the app mounts it.
   */
  path?: string;
  /**
   * Origins allowed to call the server (exact `scheme://host[:port]` strings, or a predicate); requests from other
   * origins get 403. Requests without an Origin header (non-browser clients) are served.
   * Default: loopback origins only (http(s)://localhost, 127.0.0.1, [::1], any port).
   */
  allowedOrigins?: readonly string[] | ((origin: string) => boolean);
  /**
   * Host header names accepted (`name` or `name:port`); others get 403, which stops DNS rebinding. Default: the
   * loopback names localhost, 127.0.0.1 and [::1] (serveHttp: with the bound port or none; handlers: any port).
   * Without it, a non-loopback bind (serveHttp) or `allowRemote` (handlers) checks no Host.
   */
  allowedHosts?: readonly string[];
  /**
   * serveHttp: required to bind anything but a loopback address. Handlers: serve requests addressed to any host
   * (no Host check unless `allowedHosts` is set). Without `authorization` the server has no authentication of its own.
   */
  allowRemote?: boolean;
  /**
   * Make the endpoint an OAuth 2.1 resource server of `authorization.issuer`: every request needs a valid bearer access
   * token (401 otherwise, with the Protected Resource Metadata named in `WWW-Authenticate`), issued for this server
   * (audience = `authorization.resource`), and the handler context gets its principal. Default none.
   * spec/2025-11-25/basic/authorization.mdx
   */
  authorization?: AuthorizationOptions;
  /** Largest accepted POST body in bytes (larger: 413). Default 4 MiB. */
  maxBodyBytes?: number;
  /** Also serve the deprecated 2024-11-05 HTTP+SSE transport (GET `ssePath`, POST `messagesPath`). Default false. */
  legacySse?: boolean;
  /** Default "/sse". */
  ssePath?: string;
  /** Default "/messages". */
  messagesPath?: string;
  /** A legacy session unused this long (no request, no open stream) is terminated. Default 30 minutes. */
  sessionIdleMs?: number;
  /**
   * Most concurrent legacy sessions held by this endpoint, of every caller: Streamable HTTP (2025-03-26 to 2025-11-25)
   * and HTTP+SSE (2024-11-05, `legacySse`); an initialize (or an HTTP+SSE GET) beyond it gets 503 with Retry-After.
   * One caller holds at most `limits.sessionsPerCaller` of them. Default 10 000.
   */
  maxSessions?: number;
  /**
   * Legacy sessions keep the events of their SSE streams so that a client can resume a dropped stream (Last-Event-ID):
   * at most this many bytes (approximately: characters) across all sessions; past it, events are sent but not kept.
   * Default 64 MiB. Each session keeps at most 4 MiB.
   */
  replayBufferBytes?: number;
  /** Interval of SSE keep-alive comments on open streams, in ms. Default 15 000. */
  keepAliveMs?: number;
  /** Quotas per caller and message limits (HttpLimits: each with its default). */
  limits?: HttpLimits;
  /**
   * Who an unauthenticated request comes from, for the quotas per caller (HttpLimits): a string naming the client, or
   * undefined (then only the process-wide limits hold for it). Default: the socket's remote address (an IPv6 address
   * by its /64 prefix); fetchHandler has none, so without this its unauthenticated callers are not told apart. Behind
   * a reverse proxy every client has the proxy's address: name the client from what the proxy sets, and only what it
   * sets, e.g. `(c) => c.remoteAddress === "127.0.0.1" ? String(c.headers["x-real-ip"]) : c.remoteAddress` (never
   * trust X-Forwarded-For from anyone but your proxy). With `authorization`, the principal is the caller instead.
   */
  clientKey?: (client: ClientOf) => string | undefined;
}

export interface HttpOptions extends HandlerOptions {
  /** Interface to bind. Default 127.0.0.1. A non-loopback address (e.g. 0.0.0.0) also needs `authorization` (with its `resource`) or `allowRemote: true`. */
  host?: string;
  /** TCP port; 0 picks a free one. Default 3000. */
  port?: number;
  /** Do not print the listening line. */
  quiet?: boolean;
  /**
   * A client that has not sent a request's headers this long after it began is answered 408 and disconnected (a slow
   * sender holds a socket and its memory), in ms. Default 20 000. Checked about every `min(1000, this / 2)` ms.
   */
  headersTimeoutMs?: number;
  /**
   * The same for a request's whole body, in ms; at least `headersTimeoutMs`. Default 30 000. Only the request: an SSE
   * response may stream for as long as it runs.
   */
  requestTimeoutMs?: number;
}
