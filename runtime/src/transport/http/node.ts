/**
 * The MCP endpoint on Node's HTTP stack: `serveHttp` (its own node:http server) and `nodeHandler` (a
 * `(req, res, next?)` handler to mount in node:http, Express, Fastify or Connect at any path).
 * spec/2026-07-28/basic/transports/streamable-http.mdx, spec/2025-11-25/basic/transports.mdx#streamable-http
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { ProtocolCore } from "../../protocol/core.js";
import { checkIssuer } from "./authorization.js";
import type { HeaderBag, Incoming } from "./io.js";
import { HttpEndpoint } from "./endpoint.js";
import type { CloseOptions, HandlerOptions, HttpOptions } from "./options.js";
import { isLoopbackAddress, warnIfOpen } from "./security.js";

export interface HttpHandle {
  /** The MCP endpoint URL, e.g. http://127.0.0.1:3000/mcp. */
  url: string;
  host: string;
  port: number;
  server: Server;
  /**
   * Stop listening, end listen streams (with their result), let requests being answered finish for up to
   * `drainMs` (default 0), then end every stream and session and close every connection.
   */
  close(options?: CloseOptions): Promise<void>;
}

/** A request handler for Node's HTTP stack. `next` (Express, Connect) is called only for a path the handler does not serve. */
export type NodeHandler = ((req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void) & {
  /**
   * End every stream and session of this handler (listen streams first, gracefully; with `drainMs`, requests being
   * answered get that long to finish first). Later requests get 503.
   */
  close(options?: CloseOptions): Promise<void>;
};

const EMPTY = new Uint8Array(0);

/**
 * The Incoming of a Node request, its body read from the stream within the limit. Past the limit the 413 is sent
 * once the client has finished sending (so it reads the 413, not a reset); an endless body is cut off.
 */
function nodeIncoming(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Incoming {
  return {
    method: req.method ?? "GET",
    url: req.url ?? "/",
    headers: req.headers.authorization === undefined ? req.headers : withEveryAuthorization(req),
    remoteAddress: req.socket?.remoteAddress,
    headersCut: headersCut(req),
    connection: req.socket ?? undefined,
    // A body-parsing middleware ran first (express.json(), or Fastify's body assigned to request.raw.body).
    parsedBody: req.body !== undefined && req.body !== null && typeof req.body === "object" && !Buffer.isBuffer(req.body) ? req.body : undefined,
    readByFramework: typeof req.body === "string" || Buffer.isBuffer(req.body),
    readBody(limit, done, tooLarge, failed) {
      // A middleware read the stream as text or bytes (express.text(), express.raw()): those are the body.
      const raw = req.body;
      if (typeof raw === "string" || Buffer.isBuffer(raw)) {
        const bytes = typeof raw === "string" ? Buffer.from(raw, "utf8") : raw;
        return bytes.length > limit ? tooLarge() : done(bytes);
      }
      // The stream was consumed by something else, and nothing it read was left: no body can be had.
      if (req.readableEnded) return failed(new Error("the request body was already read by another handler"));
      if (Number(req.headers["content-length"]) > limit) return drainThen(req, res, limit, tooLarge);
      let first: Buffer | undefined;
      let more: Buffer[] | undefined;
      let size = 0;
      const onData = (c: Buffer) => {
        size += c.length;
        if (size > limit) {
          first = more = undefined;
          req.off("data", onData);
          req.off("end", onEnd);
          return drainThen(req, res, limit, tooLarge);
        }
        if (first === undefined) first = c;
        else (more ??= [first]).push(c);
      };
      const onEnd = () => done(more ? Buffer.concat(more) : (first ?? EMPTY));
      req.on("data", onData);
      req.on("end", onEnd);
    },
  };
}

/**
 * Whether Node left header fields out of `req.headers`: it keeps the first `maxHeadersCount` entries of `rawHeaders`
 * (names and values, 2000 unless the server sets another; 0 keeps all), and `rawHeaders` holds those and a few more.
 */
function headersCut(req: IncomingMessage): boolean {
  const set = (req.socket as { server?: { maxHeadersCount?: number | null } } | undefined)?.server?.maxHeadersCount;
  const max = typeof set === "number" ? set : 2000;
  return max > 0 && req.rawHeaders.length > max;
}

/**
 * The headers with every Authorization field: Node keeps only the first of several, which would make a request with
 * two credentials pass on the first (RFC 6750 §3.1: invalid_request). Only for requests that carry one.
 */
function withEveryAuthorization(req: IncomingMessage): HeaderBag {
  const raw = req.rawHeaders;
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 13 && raw[i].toLowerCase() === "authorization") values.push(raw[i + 1]);
  return values.length > 1 ? { ...req.headers, authorization: values } : req.headers;
}

/** Read and drop the rest of an oversized body, then answer (at most 10 s, and at most 4× the limit or 64 MiB). */
function drainThen(req: IncomingMessage, res: ServerResponse, limit: number, answer: () => void): void {
  let answered = false;
  const once = () => {
    if (answered) return;
    answered = true;
    clearTimeout(timer);
    answer();
  };
  const timer = setTimeout(() => {
    once();
    req.destroy();
  }, 10_000);
  timer.unref();
  let drained = 0;
  const cap = Math.max(64 * 1024 * 1024, limit * 4);
  req.on("data", (c: Buffer) => {
    drained += c.length;
    if (drained > cap && !answered) {
      once();
      res.once("finish", () => req.destroy());
    }
  });
  req.on("end", once);
  req.resume();
}

/**
 * Bytes on a connection that are not a request (Node's "clientError"). A response under way on the connection is
 * delivered whole and is its last: no 400 written after it (a client that read its `Connection: close` must read
 * nothing more, RFC 9112 §9.6), none before it either (the answer to a request already read is never lost). Data
 * after a request that said `Connection: close` (HPE_CLOSED_CONNECTION) is ignored. Else: 400, then close.
 */
export function onClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // The response being written on this socket, as Node's own default handler checks it.
  const pending = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  // A sender too slow for headersTimeoutMs/requestTimeoutMs. When the request timed out is the one being answered
  // (its body never came), no answer can follow: 408 unless bytes of it went out, then the socket goes (RFC 9110
  // §15.5.9). A later pipelined request's timeout lets the answer under way finish first (below). A socket that
  // carried a response before stays silent rather than answer what it never fully received.
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT" && (!pending || pending.req?.complete === false)) {
    if (socket.writable && !pending?.headersSent && (pending || (socket as Duplex & { bytesWritten?: number }).bytesWritten === 0))
      socket.write("HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
    return void socket.destroy();
  }
  if (pending) {
    if (!pending.headersSent) pending.shouldKeepAlive = false;
    if (pending.writableFinished) socket.end();
    else pending.once("finish", () => socket.end());
    return;
  }
  if (err.code === "HPE_CLOSED_CONNECTION" || !socket.writable) return void socket.end();
  socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
}

/**
 * At start, once: an issuer that cannot be used (unreachable, another issuer's metadata, no keys) is one warning line
 * on stderr naming its URL. Not fatal: the server serves, and requests needing the issuer get 503 until it answers.
 */
function warnIfIssuerUnusable(endpoint: HttpEndpoint): void {
  const auth = endpoint.auth;
  if (!auth) return;
  void checkIssuer(auth).then((problem) => {
    if (problem) process.stderr.write(`mcp runtime: WARNING: ${problem}\n`);
  });
}

/** Serve one Node request on `endpoint`. */
function serve(endpoint: HttpEndpoint, req: IncomingMessage, res: ServerResponse): void {
  req.on("error", () => {});
  endpoint.handle(nodeIncoming(req, res), res);
}

/**
 * A handler for Node's HTTP stack, serving the MCP endpoint for every request that reaches it (or, with
 * `options.path`, for that path only; other paths go to `next`, or get 404). Same security defaults as serveHttp:
 * Host must be a loopback name unless `allowedHosts` or `allowRemote`, Origin must be a loopback origin unless
 * `allowedOrigins`, bodies over `maxBodyBytes` get 413.
 *
 * Express 5: `app.use("/api/mcp", server.nodeHandler())` or `app.all("/api/mcp", server.nodeHandler())` (with or
 * without `express.json()`). Fastify: `fastify.all("/api/mcp", (request, reply) => { reply.hijack();
 * request.raw.body = request.body; handler(request.raw, reply.raw); })`.
 */
export function nodeHandler(core: ProtocolCore, options: HandlerOptions = {}): NodeHandler {
  const endpoint = new HttpEndpoint(core, options);
  warnIfOpen(endpoint, options, "nodeHandler");
  warnIfIssuerUnusable(endpoint);
  const handler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => {
    const path = (req.url ?? "/").split("?", 1)[0];
    // With authorization, the metadata documents at /.well-known/ are the handler's too (RFC 9728 §3).
    if (options.path !== undefined && next && path !== options.path && !(options.authorization && path.startsWith("/.well-known/oauth-"))) return next();
    serve(endpoint, req, res);
  };
  return Object.assign(handler, { close: (o?: CloseOptions) => endpoint.close(o) });
}

/**
 * node:http's limits on a slow sender (options.headersTimeoutMs, requestTimeoutMs: node's own defaults are 60 s and
 * 300 s, checked every 30 s). Throws TypeError on a value that is not a positive integer, or a request timeout under
 * the headers timeout.
 */
function slowClientTimeouts(options: HttpOptions): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  const headersTimeout = options.headersTimeoutMs ?? Math.min(20_000, options.requestTimeoutMs ?? 20_000);
  const requestTimeout = options.requestTimeoutMs ?? Math.max(30_000, headersTimeout);
  for (const [name, ms] of [
    ["headersTimeoutMs", headersTimeout],
    ["requestTimeoutMs", requestTimeout],
  ] as const) {
    if (!Number.isSafeInteger(ms) || ms <= 0) throw new TypeError(`serveHttp: ${name} must be a positive integer (ms)`);
  }
  if (requestTimeout < headersTimeout) throw new TypeError(`serveHttp: requestTimeoutMs (${requestTimeout}) is under headersTimeoutMs (${headersTimeout})`);
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.max(1, Math.min(1000, Math.floor(headersTimeout / 2))) };
}

/** Serve `core` on its own node:http server (and, with `legacySse`, HTTP+SSE). Resolves once listening. */
export async function serveHttp(core: ProtocolCore, options: HttpOptions = {}): Promise<HttpHandle> {
  const host = options.host ?? "127.0.0.1";
  const path = options.path ?? "/mcp";
  let port = 0;
  const shownHost = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const loopback = isLoopbackAddress(host.replace(/^\[|\]$/g, ""));
  const auth = options.authorization;
  // A public bind with authorization needs the public URL: a token's audience is checked against it.
  if (auth && !loopback && !auth.resource) {
    throw new Error(
      `serveHttp: binding ${host} with authorization needs authorization.resource, the public URL of this MCP server (e.g. https://mcp.example.com/mcp): tokens must name it as their audience.`,
    );
  }
  const endpoint = new HttpEndpoint(core, { ...options, path }, { host, port: () => port }, () => `http://${shownHost}:${port}${path}`);
  if (!loopback) {
    if (!auth && !options.allowRemote) {
      throw new Error(
        `serveHttp: refusing to bind ${host} without authentication: configure authorization (an OAuth issuer), or pass allowRemote: true behind an authenticating proxy, or bind 127.0.0.1.`,
      );
    }
    if (!auth) {
      process.stderr.write(
        `mcp runtime: WARNING: listening on ${host} exposes this MCP server, which has no authentication, to every network that can reach the port; ` +
          `anyone there can call its tools${endpoint.checksHost ? "" : ", and no Host check guards against DNS rebinding (set allowedHosts)"}.\n`,
      );
    } else if (!endpoint.checksHost) {
      process.stderr.write(`mcp runtime: note: listening on ${host} with no Host check (set allowedHosts to the public host name to guard against DNS rebinding).\n`);
    }
  }
  const http = createServer(slowClientTimeouts(options), (req, res) => serve(endpoint, req, res));
  http.keepAliveTimeout = 60_000;
  http.on("clientError", onClientError);
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 3000, host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  port = (http.address() as AddressInfo).port;
  // The resource server made now that its URL is known: a configuration it warns about is said at start.
  warnIfIssuerUnusable(endpoint);
  const url = `http://${shownHost}:${port}${path}`;
  if (!options.quiet) process.stderr.write(`listening ${url}\n`);
  const close = async (o?: CloseOptions) => {
    const closed = new Promise<void>((r) => http.close(() => r()));
    await endpoint.close(o);
    http.closeIdleConnections();
    setTimeout(() => http.closeAllConnections(), 1000).unref();
    await closed;
  };
  return { url, host, port, server: http, close };
}
