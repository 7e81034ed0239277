/**
 * The Streamable HTTP endpoint, for both eras on one endpoint, and the deprecated HTTP+SSE transport (off unless
 * enabled). The message's path: security (security.ts) → body (body.ts) → classify (protocol/classify.ts) → the
 * legacy session (sessions.ts) or a stateless modern exchange → the Connection → the exchange's JSON or SSE
 * (exchange.ts). Nothing here names a revision: every rule that differs by revision is asked of the rules module.
 *
 * spec/2026-07-28/basic/transports/streamable-http.mdx
 * spec/2025-11-25/basic/transports.mdx#streamable-http
 */
import { classify, classifyBatch, legacyHeaderCheck, type Classification, type InboundFacts } from "../../protocol/classify.js";
import { InFlight } from "../../protocol/request.js";
import { type Revision, errorCode, hasSessions, resumableStreams, transports } from "../../rules.js";
import type { ProtocolCore } from "../../protocol/core.js";
import { errorResponse } from "../../wire/errors.js";
import { fixedHttpStatus } from "../../wire/http-status.js";
import type { JsonRpcMessage, RequestId } from "../../wire/jsonrpc.js";
import { ANY, inboundOf, isId, isJsonType, isObject, one, parseAccept, type Accept } from "./body.js";
import { Exchange } from "./exchange.js";
import type { HeaderBag, Incoming, Reply } from "./io.js";
import { SseSession } from "./legacy-sse.js";
import type { HandlerOptions } from "./options.js";
import { AccessPolicy } from "./security.js";
import { LegacyHttpSession, newSessionId } from "./sessions.js";
import { SSE_HEADERS } from "./sse.js";

type Headers = Record<string, string>;

const utf8 = new TextDecoder();
const LISTEN_METHOD = "subscriptions/listen";

/** Report a failure of the runtime's own on stderr (console.error where a platform has no process.stderr). */
export function logError(err: unknown): void {
  const text = `mcp runtime: ${String((err as Error)?.stack ?? err)}\n`;
  const stderr = (globalThis as { process?: { stderr?: { write?: (s: string) => void } } }).process?.stderr;
  if (stderr?.write) stderr.write(text);
  else console.error(text.trimEnd());
}
/**
 * The MCP endpoint: routing, security checks, sessions and streams for one McpServer, independent of what serves the
 * HTTP (node.ts: node:http and its frameworks; fetch.ts: web-standard Request/Response).
 */
export class HttpEndpoint {
  readonly path?: string;
  private readonly maxBody: number;
  private readonly sessions = new Map<string, LegacyHttpSession>();
  private readonly sseSessions = new Map<string, SseSession>();
  private readonly streams = new Set<Reply>();
  private readonly access: AccessPolicy;
  private readonly fallback: Revision;
  private timers?: ReturnType<typeof setInterval>[];
  private readonly servesLegacy: boolean;

  /** @param bound serveHttp's bound interface and port (see AccessPolicy). */
  constructor(
    readonly core: ProtocolCore,
    readonly options: HandlerOptions,
    bound?: { host: string; port: () => number },
  ) {
    this.path = options.path;
    this.maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
    this.fallback = core.revisions[core.revisions.length - 1];
    this.servesLegacy = core.eras.legacy.length > 0;
    this.access = new AccessPolicy(options, bound);
  }

  /** Whether a Host check guards this endpoint (the bind warning says when none does). */
  get checksHost(): boolean {
    return this.access.checksHost;
  }

  /**
   * Keep-alive comments and the idle-session sweep, started with the first request (a Worker may not start timers
   * outside a request) and unref'd where the platform can (they never keep a process alive).
   */
  private startTimers(): void {
    if (this.timers || this.closing) return;
    const o = this.options;
    const keepAlive = setInterval(() => {
      for (const s of this.streams) if (!s.destroyed) s.write(":\n\n");
    }, o.keepAliveMs ?? 15_000);
    const idleMs = o.sessionIdleMs ?? 30 * 60_000;
    const sweep = setInterval(() => this.sweep(idleMs), Math.min(60_000, Math.max(1000, idleMs / 2)));
    for (const t of [keepAlive, sweep]) (t as { unref?: () => void }).unref?.();
    this.timers = [keepAlive, sweep];
  }

  private sweep(idleMs: number): void {
    const now = Date.now();
    for (const [id, s] of this.sessions) {
      if (s.active === 0 && !s.stream && now - s.lastSeen > idleMs) {
        this.sessions.delete(id);
        s.terminate();
      }
    }
  }

  private closing = false;

  /** Characters of SSE events kept for replay, across sessions. */
  private replayChars = 0;

  /** Room for `chars` more characters of replay log across sessions (HandlerOptions.replayBufferBytes). */
  reserveReplay(chars: number): boolean {
    if (this.replayChars + chars > (this.options.replayBufferBytes ?? 64 * 1024 * 1024)) return false;
    this.replayChars += chars;
    return true;
  }

  releaseReplay(chars: number): void {
    this.replayChars -= chars;
  }

  /** End every stream and session; later requests get 503. */
  close(): void {
    this.closing = true;
    for (const t of this.timers ?? []) clearInterval(t);
    for (const s of this.sessions.values()) s.terminate();
    this.sessions.clear();
    for (const s of this.sseSessions.values()) s.connection.close();
    this.sseSessions.clear();
    for (const s of this.streams) s.end();
    this.streams.clear();
  }

  // ---- per revision ----

  /** The HTTP status of a response message under `revision`'s rules (errors the spec gives a status; else 200). */
  statusFor(message: JsonRpcMessage | JsonRpcMessage[], revision: Revision): number {
    if (Array.isArray(message) || !("error" in message)) return 200;
    // An error without an id answers a message the server could not accept (no id could be read, a rejected batch,
    // an invalid notification): an HTTP error status. spec/2025-11-25/basic/transports.mdx#sending-messages-to-the-server,
    // spec/2026-07-28/basic/transports/streamable-http.mdx#sending-messages
    if (message.id === undefined || message.id === null) return 400;
    return fixedHttpStatus(revision, (message as { error: { code: number } }).error.code) ?? 200;
  }

  // ---- responses that never reach a Connection ----

  private reject(res: Reply, status: number, code: number, message: string, id?: RequestId | null, revision = this.fallback, headers?: Headers, data?: unknown): void {
    if (res.headersSent || res.destroyed) return;
    const body = JSON.stringify(errorResponse(revision, id, code, message, data));
    if (headers) for (const k in headers) res.setHeader(k, headers[k]);
    res.statusCode = status;
    res.setHeader("content-type", "application/json");
    res.end(body);
  }

  private invalidRequest(res: Reply, status: number, message: string, id?: RequestId | null, headers?: Headers): void {
    this.reject(res, status, errorCode(this.fallback, "INVALID_REQUEST")!, message, id, this.fallback, headers);
  }

  startSse(res: Reply, status: number, session?: LegacyHttpSession): void {
    if (session) res.setHeader("mcp-session-id", session.id);
    res.writeHead(status, SSE_HEADERS);
    res.flushHeaders();
    this.streams.add(res);
  }

  untrack(res: Reply): void {
    this.streams.delete(res);
  }

  register(session: LegacyHttpSession, res: Reply): void {
    if (session.connection.session === undefined) {
      // The handshake failed: no session.
      session.connection.close();
      return;
    }
    // Sessions exist where the negotiated revision defines them (rules: hasSessions). A revision that predates Streamable
    // HTTP (2024-11-05, rules: transports) defines none, but a client that negotiated it here still needs its state
    // kept, so it gets one too. spec/2025-03-26/basic/transports.mdx#session-management
    const revision = session.connection.session.revision;
    if (!hasSessions(revision) && transports(revision).includes("streamable-http")) {
      session.connection.close();
      return;
    }
    session.registered = true;
    this.sessions.set(session.id, session);
    res.setHeader("mcp-session-id", session.id);
  }

  // ---- routing ----

  /** Serve one HTTP request. Never throws: a failure is answered with 500. */
  handle(req: Incoming, res: Reply): void {
    if (this.closing) return this.invalidRequest(res, 503, "Service Unavailable: the server is shutting down");
    this.startTimers();
    try {
      this.route(req, res);
    } catch (err) {
      this.internalError(res, err);
    }
  }

  private internalError(res: Reply, err: unknown): void {
    logError(err);
    if (!res.headersSent && !res.destroyed) this.reject(res, 500, errorCode(this.fallback, "INTERNAL_ERROR")!, "Internal error");
    else if (!res.writableEnded) res.end();
  }

  private route(req: Incoming, res: Reply): void {
    const headers = req.headers;
    let url = req.url ?? "/";
    let authority = one(headers.host);
    // An absolute-form target (`POST http://host/mcp`) names the resource and its authority, which replaces Host
    // (RFC 9112 §3.2.2).
    if (!url.startsWith("/")) {
      try {
        const u = new URL(url);
        if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("scheme");
        url = u.pathname + u.search;
        authority = u.host;
      } catch {
        return this.invalidRequest(res, 400, "Bad Request: malformed request target");
      }
    }
    // DNS rebinding: a loopback server answers only requests addressed to a loopback name.
    if (!this.access.hostAllowed(authority)) return this.invalidRequest(res, 403, `Forbidden: Host ${JSON.stringify(authority ?? "")} is not allowed`);
    const origin = one(headers.origin);
    if (origin !== undefined) {
      if (!this.access.originAllowed(origin)) return this.invalidRequest(res, 403, `Forbidden: Origin ${JSON.stringify(origin)} is not allowed`);
      res.setHeader("access-control-allow-origin", origin);
      res.setHeader("vary", "Origin");
      res.setHeader("access-control-expose-headers", "mcp-session-id");
    }
    const q = url.indexOf("?");
    const pathname = q < 0 ? url : url.slice(0, q);
    if (this.options.legacySse) {
      if (pathname === (this.options.ssePath ?? "/sse") && req.method === "GET") return this.openSse(req, res);
      if (pathname === (this.options.messagesPath ?? "/messages") && req.method === "POST") return this.ssePost(req, res, url.slice(q + 1));
    }
    // No path (a mounted handler): whatever reaches the handler is for the endpoint.
    if (this.path !== undefined && pathname !== this.path) return this.invalidRequest(res, 404, `Not Found: ${pathname}`);
    switch (req.method) {
      case "POST":
        return this.post(req, res);
      case "GET":
        return this.get(req, res);
      case "DELETE":
        return this.delete(req, res);
      case "OPTIONS":
        return this.preflight(req, res);
      default:
        return this.invalidRequest(res, 405, `Method Not Allowed: ${req.method}`, null, { allow: "GET, POST, DELETE" });
    }
  }

  private preflight(req: Incoming, res: Reply): void {
    res.setHeader("access-control-allow-methods", "GET, POST, DELETE");
    const asked = one(req.headers["access-control-request-headers"]);
    res.setHeader("access-control-allow-headers", asked ?? "content-type, accept, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id");
    res.setHeader("access-control-max-age", "600");
    res.writeHead(204).end();
  }

  /** Content-Type, Accept, body and JSON: the checks every POST passes before its era matters. */
  private readJson(req: Incoming, res: Reply, accept: Accept, done: (value: unknown) => void): void {
    if (!isJsonType(one(req.headers["content-type"]))) return this.invalidRequest(res, 415, "Unsupported Media Type: Content-Type must be application/json");
    if (!accept.json && !accept.sse) return this.invalidRequest(res, 406, "Not Acceptable: Accept must allow application/json or text/event-stream");
    const accepted = (value: unknown) => {
      try {
        done(value);
      } catch (err) {
        this.internalError(res, err);
      }
    };
    if (req.parsedBody !== undefined) return accepted(req.parsedBody);
    const limit = this.maxBody;
    // Past the limit: 413 with a JSON-RPC body, and the connection closed after it.
    const tooLarge = () => this.invalidRequest(res, 413, `Payload Too Large: the body exceeds ${limit} bytes`, null, { connection: "close" });
    req.readBody(
      limit,
      (body) => {
        let value: unknown;
        try {
          value = JSON.parse(utf8.decode(body));
        } catch (err) {
          return this.reject(res, 400, errorCode(this.fallback, "PARSE_ERROR")!, `Parse error: ${(err as Error).message}`);
        }
        accepted(value);
      },
      tooLarge,
    );
  }

  private post(req: Incoming, res: Reply): void {
    const accept = parseAccept(one(req.headers.accept));
    this.readJson(req, res, accept, (value) => {
      if (!Array.isArray(value) && !isObject(value)) return this.invalidRequest(res, 400, "Invalid Request: the body must be a JSON-RPC message");
      const headers = req.headers;
      const sid = this.servesLegacy ? one(headers["mcp-session-id"]) : undefined;
      const session = sid === undefined ? undefined : this.sessions.get(sid);
      const facts: InboundFacts = {
        transport: "http",
        header: (name) => one(headers[name]),
        session: sid === undefined ? undefined : (session?.connection.session ?? "unknown"),
        served: this.core.eras,
        paramHeaders: this.core.paramHeaders,
      };
      // The one decision of era and revision (protocol/classify.ts); everything below follows it.
      const route = Array.isArray(value) ? classifyBatch(facts) : classify(inboundOf(value), facts);
      const id = isObject(value) && isId(value.id) ? value.id : null;
      if (route.kind === "reject") return this.reject(res, route.status, route.error.code, route.error.message, id, route.revision, undefined, route.error.data);
      if (route.kind === "modern") return this.modernPost(res, value as Record<string, unknown>, accept, route);
      this.legacyPost(res, value, accept, session);
    });
  }

  // ---- modern ----

  private modernPost(res: Reply, msg: Record<string, unknown>, accept: Accept, route: Classification & { kind: "modern" }): void {
    // A notification is accepted (none is defined for this transport); responses were rejected by the classifier.
    if (!route.meta) return void res.writeHead(202).end();
    // A listen is answered by an event stream (spec/2026-07-28/basic/patterns/subscriptions.mdx): a client that
    // accepts only JSON could never receive its acknowledgement or events.
    if (msg.method === LISTEN_METHOD && !accept.sse) return this.invalidRequest(res, 406, "Not Acceptable: subscriptions/listen answers with text/event-stream", isId(msg.id) ? msg.id : null);

    // Stateless: no Connection, nothing kept once it is answered. The exchange's flight is what a disconnect cancels.
    const exchange = new Exchange(this, res, accept, route.revision);
    const flight = (exchange.flight = new InFlight());
    res.once("close", () => exchange.closed());
    let done: Promise<void> | void;
    try {
      done = this.core.serveModern(msg, route, exchange, flight);
    } catch (err) {
      return this.internalError(res, err);
    }
    if (done instanceof Promise)
      done.then(
        () => exchange.done(),
        (err) => this.internalError(res, err),
      );
    else exchange.done();
  }

  // ---- legacy Streamable HTTP ----

  /** GET and DELETE name a session: unknown is 404, and a MCP-Protocol-Version header must name a served legacy revision. */
  private sessionOf(res: Reply, headers: HeaderBag): LegacyHttpSession | undefined {
    const s = this.sessions.get(one(headers["mcp-session-id"])!);
    if (!s) {
      this.invalidRequest(res, 404, "Not Found: unknown or terminated session; send initialize to start a new one", null);
      return undefined;
    }
    const wrong = legacyHeaderCheck({ header: (name) => one(headers[name]), served: this.core.eras });
    if (wrong) {
      this.reject(res, wrong.status, wrong.error.code, wrong.error.message, null, wrong.revision);
      return undefined;
    }
    return s;
  }

  /** A legacy POST, classified: in `session`, or (none) an initialize that mints one if its handshake succeeds. */
  private legacyPost(res: Reply, value: unknown, accept: Accept, session: LegacyHttpSession | undefined): void {
    let minting: LegacyHttpSession | undefined;
    if (!session) {
      const id = isObject(value) && isId(value.id) ? value.id : null;
      if (this.sessions.size >= (this.options.maxSessions ?? 10_000)) return this.invalidRequest(res, 503, "Service Unavailable: too many sessions", id);
      // 2024-11-05 had no Streamable HTTP; a client that negotiates it here still needs its state kept, so every
      // successful initialize gets a session. The id is cryptographically random, visible ASCII.
      session = minting = new LegacyHttpSession(this, newSessionId());
    }
    session.lastSeen = Date.now();
    session.active++;
    const revision = session.connection.session?.revision ?? this.core.eras.legacy.at(-1)!;
    const exchange = new Exchange(this, res, accept, revision, session);
    exchange.minting = minting;
    const isRequest = (m: unknown) => isObject(m) && typeof m.method === "string" && "id" in m;
    exchange.request = Array.isArray(value) ? value.some(isRequest) : isRequest(value);
    res.once("close", () => exchange.closed());
    const s = session;
    s.connection.receive(value, exchange).then(
      () => {
        s.active--;
        s.lastSeen = Date.now();
        exchange.done();
      },
      (err) => {
        s.active--;
        this.internalError(res, err);
      },
    );
  }

  private get(req: Incoming, res: Reply): void {
    const headers = req.headers;
    // No session: nothing to stream (the modern era has no GET stream). spec/2026-07-28/basic/transports/streamable-http.mdx#backward-compatibility
    if (headers["mcp-session-id"] === undefined || !this.servesLegacy) {
      return this.invalidRequest(res, 405, "Method Not Allowed: GET needs a legacy session (Mcp-Session-Id)", null, { allow: "POST" });
    }
    if (!parseAccept(one(headers.accept)).sse) return this.invalidRequest(res, 406, "Not Acceptable: a GET stream needs Accept: text/event-stream");
    const session = this.sessionOf(res, headers);
    if (!session) return;
    session.lastSeen = Date.now();
    const revision = session.connection.session?.revision;
    const lastEventId = one(headers["last-event-id"]);
    // Resumption: replay what followed Last-Event-ID on the stream it names, and only there. spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery
    const resumed = revision && lastEventId !== undefined && resumableStreams(revision) ? session.lookup(lastEventId) : undefined;
    if (resumed === "unknown") {
      // A stream of this session that is no longer kept (or never was): nothing to replay, and the GET stream is not
      // what was asked for. The stream ends at once; a client that still waits for a response there will not get it.
      this.startSse(res, 200, session);
      this.untrack(res);
      res.end();
      return;
    }
    if (resumed && resumed.stream !== session.standalone) {
      if (resumed.stream.res && !resumed.stream.res.destroyed) return this.invalidRequest(res, 409, "Conflict: that stream is already connected");
      this.startSse(res, 200, session);
      res.once("close", () => this.untrack(res));
      resumed.stream.resume(res, resumed.after);
      return;
    }
    // One GET stream per session, so that no message goes to two streams.
    if (session.stream && !session.stream.destroyed) return this.invalidRequest(res, 409, "Conflict: this session already has a GET stream");
    session.stream = res;
    this.startSse(res, 200, session);
    if (revision && resumableStreams(revision)) {
      session.standalone ??= session.openStream(res, false);
      if (resumed) session.standalone.resume(res, resumed.after);
      else session.standalone.attach(res);
    }
    for (const m of session.backlog.splice(0)) session.send(m);
    res.once("close", () => {
      this.untrack(res);
      if (session.stream === res) session.stream = undefined;
      session.lastSeen = Date.now();
    });
  }

  private delete(req: Incoming, res: Reply): void {
    const headers = req.headers;
    if (headers["mcp-session-id"] === undefined || !this.servesLegacy) {
      return this.invalidRequest(res, 405, "Method Not Allowed: DELETE needs a legacy session (Mcp-Session-Id)", null, { allow: "POST" });
    }
    const session = this.sessionOf(res, headers);
    if (!session) return;
    this.sessions.delete(session.id);
    session.terminate();
    res.writeHead(200).end();
  }

  // ---- HTTP+SSE (2024-11-05, deprecated; legacy-sse.ts) ----

  private openSse(req: Incoming, res: Reply): void {
    if (!parseAccept(one(req.headers.accept)).sse) return this.invalidRequest(res, 406, "Not Acceptable: the SSE endpoint needs Accept: text/event-stream");
    const id = newSessionId();
    const session = new SseSession(this.core, res);
    this.sseSessions.set(id, session);
    this.startSse(res, 200);
    // The first event names the POST endpoint, with this session's id. spec/2024-11-05/basic/transports.mdx#http-with-sse
    res.write(`event: endpoint\ndata: ${this.options.messagesPath ?? "/messages"}?sessionId=${id}\n\n`);
    res.once("close", () => {
      this.untrack(res);
      this.sseSessions.delete(id);
      session.connection.close();
    });
  }

  private ssePost(req: Incoming, res: Reply, query: string): void {
    const id = new URLSearchParams(query).get("sessionId") ?? "";
    const session = this.sseSessions.get(id);
    if (!session) return this.invalidRequest(res, 404, "Not Found: unknown or closed SSE session");
    this.readJson(req, res, ANY, (value) => {
      res.writeHead(202).end("Accepted");
      session.connection.receive(value).catch(logError);
    });
  }
}
