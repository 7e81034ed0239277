/**
 * The Streamable HTTP endpoint, for both eras on one endpoint, and the deprecated HTTP+SSE transport (off unless
 * enabled). A request's path: the target and Host check, the public metadata documents, Origin (security.ts) → the
 * bearer token (authorization.ts) → by method: a POST (post.ts: body, classify, then a legacy session's Connection in
 * legacy.ts or a stateless modern exchange the protocol core serves without one; its JSON or SSE in exchange.ts), a
 * legacy GET stream or DELETE (legacy.ts), or HTTP+SSE (legacy-sse.ts). Nothing here names a revision: every rule
 * that differs by revision is asked of the rules module. Only the entry points (node.ts, fetch.ts) import this module.
 *
 * spec/2026-07-28/basic/transports/streamable-http.mdx
 * spec/2025-11-25/basic/transports.mdx#streamable-http
 */
import type { ProtocolCore } from "../../protocol/core.js";
import type { Principal } from "../../protocol/request.js";
import { checkAuthorization } from "./authorization-config.js";
import { AuthorizationError, ResourceServer } from "./authorization.js";
import { one } from "./body.js";
import type { Incoming, Reply } from "./io.js";
import { LegacyStreamableHttp } from "./legacy.js";
import { LegacySseTransport } from "./legacy-sse.js";
import { type CloseOptions, DEFAULT_MESSAGES_PATH, DEFAULT_SSE_PATH, type HandlerOptions } from "./options.js";
import { PostRoute } from "./post.js";
import { CallerQuotas, type QuotaRefusal } from "./quotas.js";
import { JsonBodies } from "./read-json.js";
import { Responder } from "./respond.js";
import { AccessPolicy } from "./security.js";
import { LegacySessions } from "./session-table.js";
import { StreamRegistry } from "./streams.js";

type Serve = (principal: Principal | undefined) => void;

/**
 * The MCP endpoint: routing and security checks for one McpServer, over its parts (the session table, the stream
 * registry, the responder), independent of what serves the HTTP (node.ts: node:http and its frameworks; fetch.ts:
 * web-standard Request/Response).
 */
export class HttpEndpoint {
  private readonly access: AccessPolicy;
  private readonly responder: Responder;
  private readonly streams: StreamRegistry;
  private readonly table: LegacySessions;
  private readonly legacy: LegacyStreamableHttp;
  private readonly sse: LegacySseTransport;
  private readonly post: PostRoute;
  private readonly quotas: CallerQuotas;
  /** Ends of the modern subscriptions/listen requests in flight here. */
  private readonly listens = new Set<() => void>();
  private resourceServer?: ResourceServer;
  private closing = false;
  /** POSTs whose response is still open (what a graceful close waits for), and the waiter once none is. */
  private openPosts = 0;
  private drained?: () => void;

  /**
   * @param bound serveHttp's bound interface and port (see AccessPolicy).
   * @param defaultResource serveHttp's own URL, the canonical resource URI when `authorization.resource` is not given.
   * Throws TypeError when `authorization` has no issuer, or no resource and none can be derived, or a resource that
   * cannot be a canonical URI (checkAuthorization).
   */
  constructor(
    private readonly core: ProtocolCore,
    private readonly options: HandlerOptions,
    bound?: { host: string; port: () => number },
    private readonly defaultResource?: () => string,
  ) {
    this.access = new AccessPolicy(options, bound);
    const responder = (this.responder = new Responder(core.revisions[core.revisions.length - 1]));
    const idleMs = options.sessionIdleMs ?? 30 * 60_000;
    const timers = { keepAliveMs: options.keepAliveMs ?? 15_000, sweepMs: Math.min(60_000, Math.max(1000, idleMs / 2)) };
    const quotas = (this.quotas = new CallerQuotas(options));
    const limits = quotas.limits;
    const streams = (this.streams = new StreamRegistry(timers, () => this.table.sweep(idleMs), limits.streamBufferBytes));
    const table = (this.table = new LegacySessions(core, streams, options, limits));
    const bodies = new JsonBodies(responder, options.maxBodyBytes ?? 4 * 1024 * 1024);
    // Every legacy session counts in the process-wide cap: Streamable HTTP and HTTP+SSE alike.
    const maxSessions = options.maxSessions ?? 10_000;
    const sessionsFull = (): QuotaRefusal | undefined =>
      this.table.sessions.size + this.sse.sessions.size >= maxSessions ? { limit: "maxSessions", max: maxSessions, what: "the server holds as many sessions as it may", retryAfter: 60 } : undefined;
    const legacy = (this.legacy = new LegacyStreamableHttp({ core, table, responder, streams, quotas, limits, sessionsFull }));
    this.sse = new LegacySseTransport({ core, responder, streams, bodies, messagesPath: options.messagesPath, quotas, sessionsFull });
    const challenge = (err: AuthorizationError) => this.auth!.challenge(err);
    this.post = new PostRoute({ core, responder, streams, table, bodies, legacy, listens: this.listens, challenge, quotas, limits });
    const auth = options.authorization;
    if (auth) {
      checkAuthorization(auth, undefined, defaultResource !== undefined);
      // A resource server made now can say what is wrong with its configuration at once (serveHttp: once listening).
      if (auth.resource) this.resourceServer = new ResourceServer(auth, auth.resource, () => core.declaredScopes());
    }
  }

  /** The OAuth 2.1 resource server guarding this endpoint (HandlerOptions.authorization), or undefined. */
  get auth(): ResourceServer | undefined {
    const auth = this.options.authorization;
    if (!auth) return undefined;
    return (this.resourceServer ??= new ResourceServer(auth, auth.resource ?? this.defaultResource!(), () => this.core.declaredScopes()));
  }

  /** Whether a Host check guards this endpoint (the bind warning says when none does). */
  get checksHost(): boolean {
    return this.access.checksHost;
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
    this.streams.stopTimers();
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
    this.table.close();
    this.sse.close();
    this.streams.endAll();
    this.quotas.cpu.close();
  }

  /** Serve one HTTP request. Never throws: a failure is answered with 500. */
  handle(req: Incoming, res: Reply): void {
    if (this.closing) return this.responder.invalidRequest(res, 503, "Service Unavailable: the server is shutting down");
    this.streams.startTimers();
    if (req.method === "POST") {
      this.openPosts++;
      res.once("close", () => {
        if (--this.openPosts === 0) this.drained?.();
      });
    }
    try {
      this.route(req, res);
    } catch (err) {
      this.responder.internalError(res, err);
    }
  }

  private route(req: Incoming, res: Reply): void {
    // Fields the platform dropped are fields no check here sees (Origin, Authorization, Mcp-Session-Id). RFC 6585 §5
    if (req.headersCut) return this.responder.invalidRequest(res, 431, "Request Header Fields Too Large: the request has more header fields than this server reads", null, { connection: "close" });
    const target = this.target(req, res);
    if (!target) return;
    const auth = this.auth;
    // Protected Resource Metadata (and the 2025-03-26 authorization-server metadata): public, for browser clients of
    // any origin too (RFC 9728 §3). spec/2025-11-25/basic/authorization.mdx#protected-resource-metadata-discovery-requirements
    if (auth && target.pathname.startsWith("/.well-known/") && auth.serveMetadata(req.method, target.pathname, res) !== false) return;
    if (!this.originAllowed(req, res, auth !== undefined)) return;
    const serve = this.serverOf(req, res, target);
    if (!serve) return;
    if (!auth) return serve(undefined);
    // A token the cache holds is answered in this turn; any other is verified (or refused) by authenticate.
    const known = auth.cachedPrincipal(req.headers, req.connection);
    if (known) return serve(known);
    // Every request carries the token, also within a session (spec/2025-11-25/basic/authorization.mdx#token-requirements):
    // verified before anything of the message is read.
    auth.authenticate(req.headers).then(
      (principal) => {
        try {
          serve(principal);
        } catch (err) {
          this.responder.internalError(res, err);
        }
      },
      (err) => (err instanceof AuthorizationError ? this.responder.refuse(res, err, (e) => auth.challenge(e)) : this.responder.internalError(res, err)),
    );
  }

  /**
   * The request's path and query, once its authority passed the Host check; undefined when answered (400, 403). An
   * absolute-form target (`POST http://host/mcp`) names the resource and its authority, which replaces Host (RFC 9112 §3.2.2).
   */
  private target(req: Incoming, res: Reply): { url: string; pathname: string; query: string } | undefined {
    let url = req.url ?? "/";
    // HTTP/2 carries the authority in :authority, Host optional; both must name the same one. RFC 9113 §8.3.1
    const host = one(req.headers.host);
    const pseudo = one(req.headers[":authority"]);
    if (host !== undefined && pseudo !== undefined && host.toLowerCase() !== pseudo.toLowerCase()) {
      return void this.responder.invalidRequest(res, 400, "Bad Request: Host and :authority name different authorities");
    }
    let authority = host ?? pseudo;
    if (!url.startsWith("/")) {
      try {
        const u = new URL(url);
        if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("scheme");
        url = u.pathname + u.search;
        authority = u.host;
      } catch {
        return void this.responder.invalidRequest(res, 400, "Bad Request: malformed request target");
      }
    }
    // DNS rebinding: a loopback server answers only requests addressed to a loopback name.
    if (!this.access.hostAllowed(authority)) return void this.responder.invalidRequest(res, 403, `Forbidden: Host ${JSON.stringify(authority ?? "")} is not allowed`);
    const q = url.indexOf("?");
    // Without a query, `query` is the whole target (as URLSearchParams then finds no sessionId).
    return { url, pathname: q < 0 ? url : url.slice(0, q), query: url.slice(q + 1) };
  }

  /** The Origin check (403) and the CORS headers of an allowed cross-origin request; false when answered. */
  private originAllowed(req: Incoming, res: Reply, authorization: boolean): boolean {
    const origin = one(req.headers.origin);
    if (origin === undefined) return true;
    if (!this.access.originAllowed(origin)) {
      this.responder.invalidRequest(res, 403, `Forbidden: Origin ${JSON.stringify(origin)} is not allowed`);
      return false;
    }
    res.setHeader("access-control-allow-origin", origin);
    res.setHeader("vary", "Origin");
    res.setHeader("access-control-expose-headers", authorization ? "mcp-session-id, www-authenticate" : "mcp-session-id");
    return true;
  }

  /** What serves the request, by path and method; undefined when answered already (404, 405, a CORS preflight). */
  private serverOf(req: Incoming, res: Reply, target: { pathname: string; query: string }): Serve | undefined {
    const { pathname } = target;
    if (this.options.legacySse) {
      if (pathname === (this.options.ssePath ?? DEFAULT_SSE_PATH) && req.method === "GET") return (p) => this.sse.open(req, res, p);
      if (pathname === (this.options.messagesPath ?? DEFAULT_MESSAGES_PATH) && req.method === "POST") return (p) => this.sse.post(req, res, target.query, p);
    }
    // No path (a mounted handler): whatever reaches the handler is for the endpoint.
    if (this.options.path !== undefined && pathname !== this.options.path) return void this.responder.invalidRequest(res, 404, `Not Found: ${pathname}`);
    switch (req.method) {
      case "POST":
        return (p) => this.post.serve(req, res, p);
      case "GET":
        return (p) => this.legacy.get(req, res, p);
      case "DELETE":
        return (p) => this.legacy.delete(req, res, p);
      case "OPTIONS":
        return void this.preflight(req, res);
      default:
        return void this.responder.invalidRequest(res, 405, `Method Not Allowed: ${req.method}`, null, { allow: "GET, POST, DELETE" });
    }
  }

  private preflight(req: Incoming, res: Reply): void {
    res.setHeader("access-control-allow-methods", "GET, POST, DELETE");
    const asked = one(req.headers["access-control-request-headers"]);
    res.setHeader("access-control-allow-headers", asked ?? "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id");
    res.setHeader("access-control-max-age", "600");
    res.writeHead(204).end();
  }
}
