/**
 * A POST to the endpoint: its JSON body, the one decision of era and revision (protocol/classify.ts), the scopes the
 * feature it names needs, then a legacy session's Connection (legacy.ts) or a stateless modern exchange, served by
 * the protocol core without a Connection. spec/2026-07-28/basic/transports/streamable-http.mdx#sending-messages,
 * spec/2025-11-25/basic/transports.mdx#sending-messages-to-the-server
 */
import { classify, classifyBatch, type Classification, type InboundFacts } from "../../protocol/classify.js";
import type { ProtocolCore } from "../../protocol/core.js";
import { InFlight, type Principal } from "../../protocol/request.js";
import { traceCarrier } from "../../protocol/telemetry.js";
import { isId, isObject } from "../../wire/jsonrpc.js";
import { AuthorizationError } from "./authorization.js";
import { missingScopes, samePrincipal } from "./principals.js";
import { inboundOf, one, parseAccept } from "./body.js";
import { Exchange } from "./exchange.js";
import type { Incoming, Reply } from "./io.js";
import type { LegacyPost, LegacyStreamableHttp } from "./legacy.js";
import type { MessageLimits } from "../../protocol/limits.js";
import type { CallerQuotas } from "./quotas.js";
import { loopNow } from "./cpu-share.js";
import type { JsonBodies } from "./read-json.js";
import type { Responder } from "./respond.js";
import type { LegacySessions } from "./session-table.js";
import type { StreamRegistry } from "./streams.js";

const LISTEN_METHOD = "subscriptions/listen";

/** What a POST uses of the endpoint. */
export interface PostHost {
  readonly core: ProtocolCore;
  readonly responder: Responder;
  readonly streams: StreamRegistry;
  readonly table: LegacySessions;
  readonly bodies: JsonBodies;
  readonly legacy: LegacyStreamableHttp;
  /** Ends of the modern subscriptions/listen requests in flight here (a close ends them). */
  readonly listens: Set<() => void>;
  /** The `WWW-Authenticate` challenge of a refusal (the resource server's). */
  challenge(err: AuthorizationError): string;
  readonly quotas: CallerQuotas;
  readonly limits: Required<MessageLimits>;
}

/** One POST being served: its request, its response, what it accepts and who sent it (authorization). */
type Post = LegacyPost;

export class PostRoute {
  private readonly servesLegacy: boolean;

  constructor(private readonly t: PostHost) {
    this.servesLegacy = t.core.eras.legacy.length > 0;
  }

  /** Serve a POST to the endpoint (its principal verified already, with authorization). */
  serve(req: Incoming, res: Reply, principal: Principal | undefined): void {
    const post: Post = { req, res, accept: parseAccept(one(req.headers.accept)), principal };
    // A caller over its share of a saturated event loop waits for its turn, its body unread (cpu-share.ts).
    const caller = this.t.quotas.callerOf(req, principal);
    const cpu = this.t.quotas.cpu;
    const refused = cpu.admit(caller, (go) => {
      if (!go) return this.t.responder.invalidRequest(res, 503, "Service Unavailable: the server is shutting down");
      // The client left while it waited: nothing to read or run.
      if (res.destroyed) return;
      cpu.billTo(res, caller);
      this.t.bodies.read(req, res, post.accept, (value, spentMs) => {
        const began = loopNow();
        try {
          this.accepted(post, value);
        } finally {
          cpu.charge(caller, spentMs + loopNow() - began);
        }
      });
    });
    // The connection is closed after it: its body (maybe megabytes) is never read.
    if (refused) this.t.responder.quota(res, refused, null, { connection: "close" });
  }

  /** A POST's parsed body: its session found (restored from a shared store first), then routed. */
  private accepted(post: Post, value: unknown): void {
    const { req, res } = post;
    if (!Array.isArray(value) && !isObject(value)) return this.t.responder.invalidRequest(res, 400, "Invalid Request: the body must be a JSON-RPC message");
    const sid = this.servesLegacy ? one(req.headers["mcp-session-id"]) : undefined;
    // Shared sessions: a session opened on another process is restored from the store first; one held here is
    // confirmed there (another process may have ended it).
    const shared = this.t.table.shared;
    if (sid !== undefined && shared) {
      const here = this.t.table.sessions.get(sid);
      (here ? shared.confirm(here) : shared.restore(sid)).then(
        () => this.route(post, value, sid),
        (err) => this.t.responder.internalError(res, err),
      );
      return;
    }
    this.route(post, value, sid);
  }

  private route(post: Post, value: Record<string, unknown> | unknown[], sid: string | undefined): void {
    const { req, res, principal } = post;
    const found = sid === undefined ? undefined : this.t.table.sessions.get(sid);
    if (found) this.t.table.shared?.touch(found);
    // A session is served only to the principal that opened it; to anyone else it does not exist (404).
    const session = found && samePrincipal(found.principal, principal) ? found : undefined;
    const facts: InboundFacts = {
      transport: "http",
      header: (name) => one(req.headers[name]),
      session: sid === undefined ? undefined : (session?.connection.session ?? "unknown"),
      served: this.t.core.eras,
      paramHeaders: this.t.core.paramHeaders,
    };
    const id = isObject(value) && isId(value.id) ? value.id : null;
    const message = Array.isArray(value) ? undefined : inboundOf(value);
    // Not a JSON-RPC message: -32600 before any era question (a legacy session answers it by its own revision).
    if (message && "invalid" in message && !session) return this.t.responder.invalidRequest(res, 400, `Invalid Request: ${message.invalid}`, message.id);
    // The one decision of era and revision (protocol/classify.ts); everything below follows it.
    const route = !message ? classifyBatch(facts) : "invalid" in message ? ({ kind: "legacy" } as const) : classify(message, facts);
    if (route.kind === "reject") return this.t.responder.reject(res, route.status, route.error, { id, revision: route.revision });
    if (principal && message && "kind" in message && message.kind === "request" && message.method) {
      const refusal = this.scopeRefusal(principal, message.method, message.params);
      if (refusal) return this.t.responder.refuse(res, refusal, (err) => this.t.challenge(err), id);
    }
    if (route.kind === "modern") return this.modern(post, value as Record<string, unknown>, route);
    this.t.legacy.post(post, value, session);
  }

  /**
   * 403 insufficient_scope when the feature a request names declares scopes the token lacks. The challenge's `scope`
   * names the granted scopes too, so that a client's new token keeps them (the "recommended approach" of
   * spec/2025-11-25/basic/authorization.mdx#runtime-insufficient-scope-errors); never offline_access
   * (spec/2026-07-28/basic/authorization/index.mdx#refresh-tokens).
   */
  private scopeRefusal(principal: Principal, method: string, params: Record<string, unknown> | undefined): AuthorizationError | undefined {
    const needed = this.t.core.requiredScopes(method, params);
    const missing = missingScopes(principal, needed);
    // (Below: at most 200 characters of a URI: this goes back in a header.)
    if (!missing.length) return undefined;
    const name = typeof params?.name === "string" ? ` ${params.name}` : typeof params?.uri === "string" ? ` ${params.uri.slice(0, 200)}` : "";
    const scope = [...new Set([...principal.scopes.filter((s) => s !== "offline_access"), ...needed!])];
    return new AuthorizationError(403, "insufficient_scope", `${method}${name} needs the scope ${needed!.join(" ")}`, scope);
  }

  /** A modern request: served statelessly, no Connection, nothing kept once it is answered. */
  private modern(post: Post, msg: Record<string, unknown>, route: Classification & { kind: "modern" }): void {
    const { res, accept } = post;
    // A notification is accepted (none is defined for this transport); responses were rejected by the classifier.
    if (!route.meta) return void res.writeHead(202).end();
    // A listen is answered by an event stream (spec/2026-07-28/basic/patterns/subscriptions.mdx): a client that
    // accepts only JSON could never receive its acknowledgement or events.
    if (msg.method === LISTEN_METHOD && !accept.sse)
      return this.t.responder.invalidRequest(res, 406, "Not Acceptable: subscriptions/listen answers with text/event-stream", isId(msg.id) ? msg.id : null);

    // The client left before its request was dispatched: nothing to run (a listen would never be ended).
    if (res.destroyed) return;
    // A response that may become a stream (a listen is one) holds its place in its caller's stream quota until it closes.
    if (accept.sse) {
      const quota = this.t.quotas.stream(this.t.quotas.callerOf(post.req, post.principal));
      if (typeof quota !== "function") return this.t.responder.quota(res, quota, isId(msg.id) ? msg.id : null);
      res.once("close", quota);
    }
    // The exchange's flight is what a disconnect cancels.
    const exchange = new Exchange(this.t, res, accept, route.revision);
    exchange.traceCarrier = traceCarrier(post.req.headers);
    const flight = (exchange.flight = new InFlight());
    res.once("close", () => exchange.closed());
    let done: Promise<void> | void;
    try {
      done = this.t.core.serveModern(msg, route, { sink: exchange, flight, listens: this.t.listens, principal: post.principal });
    } catch (err) {
      return this.t.responder.internalError(res, err);
    }
    if (done instanceof Promise)
      done.then(
        () => exchange.done(),
        (err) => this.t.responder.internalError(res, err),
      );
    else exchange.done();
  }
}
