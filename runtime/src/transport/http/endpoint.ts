/**
 * The Streamable HTTP endpoint, for both eras on one endpoint, and the deprecated HTTP+SSE transport (off unless
 * enabled). The message's path: security (security.ts) → body (body.ts) → classify (protocol/classify.ts) → the
 * legacy session (legacy.ts, sessions.ts) or a stateless modern exchange → the Connection → the exchange's JSON or SSE
 * (exchange.ts). Nothing here names a revision: every rule that differs by revision is asked of the rules module.
 *
 * spec/2026-07-28/basic/transports/streamable-http.mdx
 * spec/2025-11-25/basic/transports.mdx#streamable-http
 */
import { classify, classifyBatch, type Classification, type InboundFacts } from "../../protocol/classify.js";
import type { ProtocolCore } from "../../protocol/core.js";
import { InFlight } from "../../protocol/request.js";
import { type Revision, errorCode } from "../../rules.js";
import { fixedHttpStatus } from "../../wire/http-status.js";
import type { JsonRpcMessage, RequestId } from "../../wire/jsonrpc.js";
import { inboundOf, isJsonType, one, parseAccept, type Accept } from "./body.js";
import { isId, isObject } from "../../wire/jsonrpc.js";
import { Exchange } from "./exchange.js";
import type { Incoming, Reply } from "./io.js";
import { LegacyStreamableHttp } from "./legacy.js";
import { LegacySseTransport } from "./legacy-sse.js";
import type { HandlerOptions } from "./options.js";
import { logError, replyError } from "./respond.js";
import { AccessPolicy } from "./security.js";
import { AuthorizationError, ResourceServer, missingScopes, samePrincipal } from "./authorization.js";
import type { Principal } from "../../protocol/request.js";
import type { LegacyHttpSession } from "./sessions.js";
import { SharedSessions } from "./shared-sessions.js";
import { SSE_HEADERS } from "./sse.js";

type Headers = Record<string, string>;

export interface CloseOptions {
  /** How long requests being answered may take to finish before their sessions end. Default 0: end at once. */
  drainMs?: number;
}

const utf8 = new TextDecoder();
const LISTEN_METHOD = "subscriptions/listen";

/**
 * The MCP endpoint: routing, security checks, sessions and streams for one McpServer, independent of what serves the
 * HTTP (node.ts: node:http and its frameworks; fetch.ts: web-standard Request/Response).
 */
export class HttpEndpoint {
  readonly path?: string;
  private readonly maxBody: number;
  readonly legacy = new LegacyStreamableHttp(this);
  private readonly sse = new LegacySseTransport(this);
  private readonly streams = new Set<Reply>();
  /** Ends of the modern subscriptions/listen requests in flight here. */
  private readonly listens = new Set<() => void>();
  private readonly access: AccessPolicy;
  private readonly fallback: Revision;
  private timers?: ReturnType<typeof setInterval>[];
  readonly servesLegacy: boolean;
  /** Legacy sessions shared with the server's other processes (a shared session store is configured). */
  readonly shared?: SharedSessions;

  /**
   * @param bound serveHttp's bound interface and port (see AccessPolicy).
   * @param defaultResource serveHttp's own URL, the canonical resource URI when `authorization.resource` is not given.
   * Throws TypeError when `authorization` has no issuer, or no resource and none can be derived.
   */
  constructor(
    readonly core: ProtocolCore,
    readonly options: HandlerOptions,
    bound?: { host: string; port: () => number },
    private readonly defaultResource?: () => string,
  ) {
    this.path = options.path;
    this.maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
    this.fallback = core.revisions[core.revisions.length - 1];
    this.servesLegacy = core.eras.legacy.length > 0;
    this.access = new AccessPolicy(options, bound);
    const store = this.servesLegacy ? core.sharedSessions() : undefined;
    if (store) this.shared = new SharedSessions(this, store, core.bus, options.sessionIdleMs ?? 30 * 60_000);
    const auth = options.authorization;
    if (auth) {
      if (!auth.issuer) throw new TypeError("authorization.issuer is required");
      if (!auth.resource && !defaultResource) {
        throw new TypeError("authorization.resource is required: the canonical URI of this MCP server (e.g. https://mcp.example.com/mcp), the audience its tokens must name");
      }
      // A resource server made now can say what is wrong with its configuration at once (serveHttp: once listening).
      if (auth.resource) this.resourceServer = new ResourceServer(auth, auth.resource, () => core.declaredScopes());
    }
  }

  private resourceServer?: ResourceServer;

  /** The OAuth 2.1 resource server guarding this endpoint (HandlerOptions.authorization), or undefined. */
  get auth(): ResourceServer | undefined {
    const auth = this.options.authorization;
    if (!auth) return undefined;
    return (this.resourceServer ??= new ResourceServer(auth, auth.resource ?? this.defaultResource!(), () => this.core.declaredScopes()));
  }

  /** Answer a refused authorization: its status, `WWW-Authenticate` challenge and a JSON-RPC error body. spec/2025-11-25/basic/authorization.mdx#error-handling */
  refuse(res: Reply, err: AuthorizationError, id: RequestId | null = null): void {
    if (err.status === 503) {
      logError(err.message);
      return this.invalidRequest(res, 503, `Service Unavailable: ${err.message}`, id, { "retry-after": "5" });
    }
    const what = err.status === 401 ? "Unauthorized" : err.status === 403 ? "Forbidden" : "Bad Request";
    const data = err.error ? { error: err.error, ...(err.scope?.length ? { scope: err.scope.join(" ") } : {}) } : undefined;
    this.reject(res, err.status, errorCode(this.fallback, "INVALID_REQUEST")!, `${what}: ${err.message}`, id, this.fallback, { "www-authenticate": this.auth!.challenge(err) }, data);
  }

  /** Whether `principal` may use a session opened by `owner` (without authorization both are undefined: yes). */
  owns(owner: Principal | undefined, principal: Principal | undefined): boolean {
    return samePrincipal(owner, principal);
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
    const sweep = setInterval(() => this.legacy.sweep(idleMs), Math.min(60_000, Math.max(1000, idleMs / 2)));
    for (const t of [keepAlive, sweep]) (t as { unref?: () => void }).unref?.();
    this.timers = [keepAlive, sweep];
  }

  private closing = false;

  /** POSTs whose response is still open (what a graceful close waits for), and the waiter once none is. */
  private openPosts = 0;
  private drained?: () => void;

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

  /**
   * End every stream and session; later requests get 503. Open subscriptions/listen streams end gracefully first: the
   * server ending a subscription answers its request (spec/2026-07-28/basic/patterns/subscriptions.mdx#graceful-closure).
   * With `drainMs`, POSTs still being answered get that long to finish before sessions end (aborting what still runs).
   * GET streams carry no response to a request, so they are not waited for; the 2024-11-05 HTTP+SSE transport answers
   * on its GET stream, after a 202, so its requests are not waited for either.
   */
  async close(options: CloseOptions = {}): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    for (const t of this.timers ?? []) clearInterval(t);
    if (this.listens.size) {
      for (const end of [...this.listens]) end();
      // Their results are written a few promise turns later.
      await new Promise((r) => setTimeout(r, 0));
    }
    const drainMs = options.drainMs ?? 0;
    if (drainMs > 0 && this.openPosts > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, drainMs);
        this.drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.drained = undefined;
    }
    this.legacy.close();
    this.sse.close();
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

  reject(res: Reply, status: number, code: number, message: string, id?: RequestId | null, revision = this.fallback, headers?: Headers, data?: unknown): void {
    replyError(res, status, revision, code, message, id, headers, data);
  }

  invalidRequest(res: Reply, status: number, message: string, id?: RequestId | null, headers?: Headers): void {
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

  /** Keep `session` if its handshake succeeded (legacy.ts). */
  register(session: LegacyHttpSession, res: Reply): void {
    this.legacy.register(session, res);
  }

  // ---- routing ----

  /** Serve one HTTP request. Never throws: a failure is answered with 500. */
  handle(req: Incoming, res: Reply): void {
    if (this.closing) return this.invalidRequest(res, 503, "Service Unavailable: the server is shutting down");
    this.startTimers();
    if (req.method === "POST") {
      this.openPosts++;
      res.once("close", () => {
        if (--this.openPosts === 0) this.drained?.();
      });
    }
    try {
      this.route(req, res);
    } catch (err) {
      this.internalError(res, err);
    }
  }

  internalError(res: Reply, err: unknown): void {
    logError(err);
    if (!res.headersSent && !res.destroyed) this.reject(res, 500, errorCode(this.fallback, "INTERNAL_ERROR")!, "Internal error");
    else if (!res.writableEnded) res.end();
  }

  private route(req: Incoming, res: Reply): void {
    const headers = req.headers;
    const auth = this.auth;
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
    const q = url.indexOf("?");
    const pathname = q < 0 ? url : url.slice(0, q);
    // Protected Resource Metadata (and the 2025-03-26 authorization-server metadata): public, for browser clients of
    // any origin too (RFC 9728 §3). spec/2025-11-25/basic/authorization.mdx#protected-resource-metadata-discovery-requirements
    if (auth && pathname.startsWith("/.well-known/") && auth.serveMetadata(req.method, pathname, res) !== false) return;
    const origin = one(headers.origin);
    if (origin !== undefined) {
      if (!this.access.originAllowed(origin)) return this.invalidRequest(res, 403, `Forbidden: Origin ${JSON.stringify(origin)} is not allowed`);
      res.setHeader("access-control-allow-origin", origin);
      res.setHeader("vary", "Origin");
      res.setHeader("access-control-expose-headers", auth ? "mcp-session-id, www-authenticate" : "mcp-session-id");
    }
    let serve: ((principal: Principal | undefined) => void) | undefined;
    if (this.options.legacySse) {
      if (pathname === (this.options.ssePath ?? "/sse") && req.method === "GET") serve = (p) => this.sse.open(req, res, p);
      else if (pathname === (this.options.messagesPath ?? "/messages") && req.method === "POST") serve = (p) => this.sse.post(req, res, url.slice(q + 1), p);
    }
    if (!serve) {
      // No path (a mounted handler): whatever reaches the handler is for the endpoint.
      if (this.path !== undefined && pathname !== this.path) return this.invalidRequest(res, 404, `Not Found: ${pathname}`);
      switch (req.method) {
        case "POST":
          serve = (p) => this.post(req, res, p);
          break;
        case "GET":
          serve = (p) => this.legacy.get(req, res, p);
          break;
        case "DELETE":
          serve = (p) => this.legacy.delete(req, res, p);
          break;
        case "OPTIONS":
          return this.preflight(req, res);
        default:
          return this.invalidRequest(res, 405, `Method Not Allowed: ${req.method}`, null, { allow: "GET, POST, DELETE" });
      }
    }
    if (!auth) return serve(undefined);
    // Every request carries the token, also within a session (spec/2025-11-25/basic/authorization.mdx#token-requirements):
    // verified before anything of the message is read.
    auth.authenticate(headers).then(
      (principal) => {
        try {
          serve(principal);
        } catch (err) {
          this.internalError(res, err);
        }
      },
      (err) => (err instanceof AuthorizationError ? this.refuse(res, err) : this.internalError(res, err)),
    );
  }

  private preflight(req: Incoming, res: Reply): void {
    res.setHeader("access-control-allow-methods", "GET, POST, DELETE");
    const asked = one(req.headers["access-control-request-headers"]);
    res.setHeader("access-control-allow-headers", asked ?? "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id");
    res.setHeader("access-control-max-age", "600");
    res.writeHead(204).end();
  }

  /** Content-Type, Accept, body and JSON: the checks every POST passes before its era matters. */
  readJson(req: Incoming, res: Reply, accept: Accept, done: (value: unknown) => void): void {
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
      // The body could not be read (its stream failed, or another handler consumed it): 400, never silence.
      (err) => this.invalidRequest(res, 400, `Bad Request: the body could not be read (${(err as Error)?.message ?? err})`),
    );
  }

  private post(req: Incoming, res: Reply, principal: Principal | undefined): void {
    const accept = parseAccept(one(req.headers.accept));
    this.readJson(req, res, accept, (value) => {
      if (!Array.isArray(value) && !isObject(value)) return this.invalidRequest(res, 400, "Invalid Request: the body must be a JSON-RPC message");
      const sid = this.servesLegacy ? one(req.headers["mcp-session-id"]) : undefined;
      // Shared sessions: a session opened on another process is restored from the store first; one held here is
      // confirmed there (another process may have ended it).
      const shared = this.shared;
      if (sid !== undefined && shared) {
        const here = this.legacy.sessions.get(sid);
        (here ? shared.confirm(here) : shared.restore(sid)).then(
          () => this.routePost(req, res, value, accept, sid, principal),
          (err) => this.internalError(res, err),
        );
        return;
      }
      this.routePost(req, res, value, accept, sid, principal);
    });
  }

  private routePost(req: Incoming, res: Reply, value: Record<string, unknown> | unknown[], accept: Accept, sid: string | undefined, principal: Principal | undefined): void {
    {
      const headers = req.headers;
      const found = sid === undefined ? undefined : this.legacy.sessions.get(sid);
      if (found) this.shared?.touch(found);
      // A session is served only to the principal that opened it; to anyone else it does not exist (404).
      const session = found && this.owns(found.principal, principal) ? found : undefined;
      const facts: InboundFacts = {
        transport: "http",
        header: (name) => one(headers[name]),
        session: sid === undefined ? undefined : (session?.connection.session ?? "unknown"),
        served: this.core.eras,
        paramHeaders: this.core.paramHeaders,
      };
      const id = isObject(value) && isId(value.id) ? value.id : null;
      const message = Array.isArray(value) ? undefined : inboundOf(value);
      // Not a JSON-RPC message: -32600 before any era question (a legacy session answers it by its own revision).
      if (message && "invalid" in message && !session) return this.invalidRequest(res, 400, `Invalid Request: ${message.invalid}`, message.id);
      // The one decision of era and revision (protocol/classify.ts); everything below follows it.
      const route = !message ? classifyBatch(facts) : "invalid" in message ? ({ kind: "legacy" } as const) : classify(message, facts);
      if (route.kind === "reject") return this.reject(res, route.status, route.error.code, route.error.message, id, route.revision, undefined, route.error.data);
      if (principal && message && "kind" in message && message.kind === "request" && message.method) {
        const refusal = this.scopeRefusal(principal, message.method, message.params);
        if (refusal) return this.refuse(res, refusal, id);
      }
      if (route.kind === "modern") return this.modernPost(res, value as Record<string, unknown>, accept, route, principal);
      this.legacy.post(res, value, accept, session, principal);
    }
  }

  /**
   * 403 insufficient_scope when the feature a request names declares scopes the token lacks. The challenge's `scope`
   * names the granted scopes too, so that a client's new token keeps them (the "recommended approach" of
   * spec/2025-11-25/basic/authorization.mdx#runtime-insufficient-scope-errors); never offline_access
   * (spec/2026-07-28/basic/authorization/index.mdx#refresh-tokens).
   */
  private scopeRefusal(principal: Principal, method: string, params: Record<string, unknown> | undefined): AuthorizationError | undefined {
    const needed = this.core.requiredScopes(method, params);
    const missing = missingScopes(principal, needed);
    if (!missing.length) return undefined;
    const name = typeof params?.name === "string" ? ` ${params.name}` : typeof params?.uri === "string" ? ` ${params.uri}` : "";
    const scope = [...new Set([...principal.scopes.filter((s) => s !== "offline_access"), ...needed!])];
    return new AuthorizationError(403, "insufficient_scope", `${method}${name} needs the scope ${needed!.join(" ")}`, scope);
  }

  // ---- modern ----

  private modernPost(res: Reply, msg: Record<string, unknown>, accept: Accept, route: Classification & { kind: "modern" }, principal: Principal | undefined): void {
    // A notification is accepted (none is defined for this transport); responses were rejected by the classifier.
    if (!route.meta) return void res.writeHead(202).end();
    // A listen is answered by an event stream (spec/2026-07-28/basic/patterns/subscriptions.mdx): a client that
    // accepts only JSON could never receive its acknowledgement or events.
    if (msg.method === LISTEN_METHOD && !accept.sse) return this.invalidRequest(res, 406, "Not Acceptable: subscriptions/listen answers with text/event-stream", isId(msg.id) ? msg.id : null);

    // The client left before its request was dispatched: nothing to run (a listen would never be ended).
    if (res.destroyed) return;
    // Stateless: no Connection, nothing kept once it is answered. The exchange's flight is what a disconnect cancels.
    const exchange = new Exchange(this, res, accept, route.revision);
    const flight = (exchange.flight = new InFlight());
    res.once("close", () => exchange.closed());
    let done: Promise<void> | void;
    try {
      done = this.core.serveModern(msg, route, { sink: exchange, flight, listens: this.listens, principal });
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
}
