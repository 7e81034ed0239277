/**
 * A Connection is one peer link that keeps state between messages: a stdio pipe, or one legacy HTTP session (a modern
 * HTTP request needs none: the endpoint hands it to the dispatcher directly). Each inbound message goes one way:
 * inspect (JSON-RPC shape) → classify (era, revision, `_meta`; protocol/classify.ts) → admit (arrival order) →
 * the legacy handshake and session, or straight on → dispatch (validate, method table, encode; protocol/dispatch.ts).
 *
 * Legacy (handshake) era: spec/2025-11-25/basic/lifecycle.mdx
 * Modern (stateless) era:  spec/2026-07-28/basic/versioning.mdx, spec/2026-07-28/basic/index.mdx#statelessness
 */
import { type Revision, errorCode } from "../rules.js";
import type { McpServer } from "../server/server.js";
import { errorResponse } from "../wire/errors.js";
import { inspect, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse, type RequestId } from "../wire/jsonrpc.js";
import { AdmissionQueue } from "./admission.js";
import { batchRefusal, runBatch } from "./batch.js";
import { boundedJson, messageLimits, type MessageLimits } from "./limits.js";
import { classify, type Classification } from "./classify.js";
import { ClientRequests } from "./client-requests.js";
import { dispatcherFor, type Dispatcher } from "./dispatch.js";
import { randomId } from "../state/request-state.js";
import { changeNotification, handshake, markInitialized, restoredSession, type LegacySession } from "./legacy-session.js";
import type { InFlight, Link, Principal, RequestScope, Sink } from "./request.js";
import type { SessionChange, SessionState } from "../state/sessions.js";
import { beginRequest, sessionEnded, sessionStartTime } from "./telemetry.js";

export { META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_SUBSCRIPTION_ID } from "../wire/meta.js";
export type { Sink } from "./request.js";
export type { LegacySession } from "./legacy-session.js";

export interface ConnectionOptions {
  transport: "stdio" | "http";
  /** HTTP only: this connection serves one era (a legacy session). */
  era?: "legacy" | "modern";
  /** The link's id (a legacy HTTP session's id, so that what is bound to it is found by every process); default random. */
  id?: string;
  /** Prefix of the ids of this link's server→client requests, unique per process where several serve the session. */
  requestIdPrefix?: string;
  /** The session changed (initialized, log level, subscriptions): where sessions are shared, store the change. */
  onSessionChange?: (session: LegacySession, change: SessionChange) => void;
  /** A client response to no request of this process: it may be another process's (shared sessions). */
  onForeignResponse?: (response: JsonRpcResponse) => void;
  /** Batch members, how many run at once, the size of one outbound message (defaults: MESSAGE_LIMITS). */
  limits?: MessageLimits;
}

export class Connection implements Link {
  /** Legacy state, once `initialize` has been answered. On stdio it makes the pipe legacy for its lifetime. */
  session?: LegacySession;
  readonly inFlight = new Map<RequestId, InFlight>();
  readonly listens = new Set<() => void>();
  readonly transport: "stdio" | "http";
  private linkId?: string;
  private readonly admission = new AdmissionQueue();
  private readonly asks: ClientRequests;
  private readonly dispatcher: Dispatcher;
  private readonly unsubscribe: () => void;
  private readonly limits: Required<MessageLimits>;
  /** When this link's legacy session began (performance.now()): mcp.server.session.duration at close. */
  private sessionStart?: number;

  constructor(
    readonly server: McpServer,
    readonly out: Sink,
    readonly options: ConnectionOptions = { transport: "stdio" },
  ) {
    this.transport = options.transport;
    this.limits = messageLimits(options.limits);
    this.dispatcher = dispatcherFor(server);
    this.asks = new ClientRequests(server, out, options.requestIdPrefix);
    // Legacy change notifications go to the link's own output (stdio, or the session's GET stream). Every process
    // sharing a session hears every event, so they are the link's own, never forwarded (sendEvent).
    this.unsubscribe = server.onEvent((e) => {
      const message = changeNotification(this.session, e);
      if (message) (out.sendEvent ?? out.send).call(out, message);
    });
  }

  /**
   * Receive one parsed JSON value (a message or a batch). Answers go to `sink` (default: the link's output).
   * `route`, when the transport classified the message already (HTTP), is used as it is; `principal`, the verified
   * principal of the HTTP request that carried it (authorization), goes into each request's scope. Resolves when the value is
   * answered; never rejects.
   */
  receive(value: unknown, sink: Sink = this.out, route?: Classification, principal?: Principal): Promise<void> {
    return this.admission.enter(async (admit, settled) => {
      try {
        if (Array.isArray(value)) await this.receiveBatch(value, sink, admit, principal);
        else await this.receiveOne(value, sink, admit, route, principal);
      } catch (err) {
        // A bug of the runtime's own: logged, and a request still gets an answer (-32603), so no client waits forever.
        console.error(`mcp runtime: ${String((err as Error)?.stack ?? err)}`);
        const req = inspect(value);
        if (req.type === "request") {
          const revision = this.session?.revision ?? this.fallbackRevision;
          sink.send(this.errorResponse(req.message.id, errorCode(revision, "INTERNAL_ERROR")!, "Internal error", undefined, revision));
        }
      } finally {
        settled();
      }
    });
  }

  /** The session's state changed: tell whoever keeps it (shared sessions). */
  sessionChanged(change: SessionChange): void {
    if (this.session) this.options.onSessionChange?.(this.session, change);
  }

  /** Resume a session another process opened, from its stored state (shared sessions). */
  restoreSession(state: SessionState): void {
    this.session = restoredSession(this.server, state);
  }

  /**
   * A change another process made to the session (shared sessions), applied here as the store applied it:
   * initialized (held notifications of requests still running here go out, asks waiting for it proceed), the log
   * level, a subscription.
   */
  applySessionChange(change: SessionChange): void {
    const session = this.session;
    if (!session) return;
    if ("initialized" in change) markInitialized(session, (id) => this.inFlight.has(id));
    else if ("logLevel" in change) session.logLevel = change.logLevel as LegacySession["logLevel"];
    else if ("subscribe" in change) session.subscriptions.add(change.subscribe);
    else if ("unsubscribe" in change) session.subscriptions.delete(change.unsubscribe);
  }

  /** A response that another process's link received for a request of this one (shared sessions). */
  settleForeign(response: JsonRpcResponse): boolean {
    return this.asks.settle(response);
  }

  /** The link's id (an HTTP session's; a stdio link's, for its tasks): made on first use, so stdio may never load node:crypto. */
  get id(): string {
    return (this.linkId ??= this.options.id ?? randomId());
  }

  /** Resolves when every message received so far has been answered. */
  idle(): Promise<void> {
    return this.admission.idle();
  }

  /** End this link's subscriptions/listen streams gracefully (e.g. stdin reached EOF). */
  endSubscriptions(): void {
    for (const end of [...this.listens]) end();
  }

  /** Stop receiving server events and abort in-flight work (the transport is gone). */
  close(): void {
    if (this.session && this.sessionStart !== undefined) sessionEnded(this, this.session.revision, this.sessionStart);
    this.sessionStart = undefined;
    this.unsubscribe();
    this.abortAll();
  }

  /** Abort every in-flight request (transport closed): their handlers' signals fire and no response follows. */
  abortAll(): void {
    for (const f of this.inFlight.values()) f.cancel(new Error("connection closed"));
    this.rejectClientRequests("connection closed");
  }

  /** Fail every server→client request still waiting: the client can no longer answer (EOF, transport closed). */
  rejectClientRequests(reason: string): void {
    this.asks.rejectAll(reason);
  }

  askClient(scope: RequestScope, method: string, params: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    return this.asks.ask(this.session, method, params, { revision: scope.revision, sink: scope.sink, signal: scope.flight!.signal });
  }

  /** The revision whose rules shape errors when no request has named one: the session's, else the newest served. */
  private get fallbackRevision(): Revision {
    return this.session?.revision ?? this.server.revisions[this.server.revisions.length - 1];
  }

  /** An error response with the id the revision allows when the request's id is unknown (wire/errors.ts). */
  errorResponse(id: RequestId | null | undefined, code: number, message: string, data?: unknown, revision = this.fallbackRevision): JsonRpcResponse {
    return errorResponse(revision, id, code, message, data);
  }

  /** A line or body that is not JSON: -32700, answered in arrival order (the session in force decides the id form). */
  parseError(detail: string, sink: Sink = this.out): Promise<void> {
    return this.admission.inOrder(() => sink.send(this.errorResponse(null, errorCode(this.fallbackRevision, "PARSE_ERROR")!, `Parse error: ${detail}`)));
  }

  /** An inbound message too large to read: -32600, id unknown. */
  tooLarge(limit: number, sink: Sink = this.out): Promise<void> {
    return this.admission.inOrder(() => sink.send(this.errorResponse(null, errorCode(this.fallbackRevision, "INVALID_REQUEST")!, `Invalid Request: message larger than ${limit} bytes`)));
  }

  /**
   * Serialize an outbound message. A response that cannot be serialized (a BigInt, a cycle, too deep) becomes a
   * -32603 error for the same id, so no request goes unanswered; one over `limits.responseBytes` too, naming the limit
   * (a notification over it is not sent: "").
   */
  serialize(message: JsonRpcMessage | JsonRpcMessage[]): string {
    try {
      return boundedJson(message, this.limits.responseBytes, this.fallbackRevision) ?? "";
    } catch (err) {
      const id = !Array.isArray(message) && "id" in message ? (message.id as RequestId) : undefined;
      if (id === undefined || !("result" in message || "error" in message)) return "";
      const revision = this.fallbackRevision;
      return JSON.stringify(this.errorResponse(id, errorCode(revision, "INTERNAL_ERROR")!, `Internal error: the result cannot be serialized (${(err as Error).message})`, undefined, revision));
    }
  }

  // ---- the message's path ----

  /** A JSON-RPC batch: refused whole, or its members run within the limits (protocol/batch.ts). */
  private async receiveBatch(batch: unknown[], sink: Sink, release: () => void, principal?: Principal): Promise<void> {
    const revision = this.session?.revision;
    const refused = batchRefusal(revision, batch.length, this.limits.batchMembers, this.server.revisions);
    if (refused) return void sink.send(this.errorResponse(null, errorCode(this.fallbackRevision, "INVALID_REQUEST")!, refused.message, refused.data));
    const member = (m: unknown, to: Sink, admit: () => void) => this.receiveOne(m, to, admit, { kind: "legacy", revision: revision! }, principal);
    await runBatch(batch, { revision: revision!, sink, release, limits: this.limits, member });
  }

  private receiveOne(value: unknown, sink: Sink, admit: () => void, route?: Classification, principal?: Principal): Promise<void> | void {
    const inbound = inspect(value);
    switch (inbound.type) {
      case "invalid":
        return sink.send(this.errorResponse(inbound.id, errorCode(this.fallbackRevision, "INVALID_REQUEST")!, `Invalid Request: ${inbound.reason}`));
      case "response":
        if (!this.asks.settle(inbound.message)) this.options.onForeignResponse?.(inbound.message);
        return;
      case "malformed-response": // never answered; one naming our request is its (bad) answer: that ask fails now
        return inbound.id === undefined ? undefined : this.asks.refuse(inbound.id, inbound.reason);
      case "notification":
        return this.notification(inbound.message.method, inbound.message.params);
      case "request":
        return this.request(inbound.message, sink, admit, route, principal);
    }
  }

  /** The classifier decides (protocol/classify.ts); nothing here re-derives the era. */
  private request(req: JsonRpcRequest, sink: Sink, admit: () => void, decided?: Classification, principal?: Principal): Promise<void> | void {
    const route = decided ?? classify({ kind: "request", method: req.method, params: req.params }, { transport: this.transport, session: this.session, served: this.server.eras });
    switch (route.kind) {
      case "reject":
        return sink.send(errorResponse(route.revision, req.id, route.error.code, route.error.message, route.error.data));
      case "legacy":
        return this.legacyRequest(req, sink, admit, principal);
      case "modern": {
        const meta = route.meta!;
        return this.dispatcher.dispatch(
          { revision: route.revision, req, sink, clientCapabilities: meta.clientCapabilities, clientInfo: meta.clientInfo, meta: meta.raw, link: this, principal },
          admit,
        );
      }
    }
  }

  /** Legacy: the handshake, pings before it, and the session's requests. spec/2025-11-25/basic/lifecycle.mdx */
  private legacyRequest(req: JsonRpcRequest, sink: Sink, admit: () => void, principal?: Principal): Promise<void> | void {
    if (req.method === "initialize") {
      const telemetry = beginRequest({ revision: this.fallbackRevision, req, sink, clientCapabilities: {}, link: this }, () => false);
      return handshake(this.server, this.session, req).then(({ response, session }) => {
        if (session) {
          this.session = session;
          this.sessionStart ??= sessionStartTime();
        }
        telemetry?.end(response);
        sink.send(response);
      });
    }
    const session = this.session;
    if (!session) {
      // Before initialize a client may send only pings. spec/2025-11-25/basic/lifecycle.mdx#initialization
      if (req.method === "ping") return sink.send({ jsonrpc: "2.0", id: req.id, result: {} });
      const revision = this.server.eras.legacy.at(-1) ?? this.fallbackRevision;
      return sink.send(errorResponse(revision, req.id, errorCode(revision, "INVALID_REQUEST")!, "Invalid Request: the session is not initialized; send initialize first"));
    }
    return this.dispatcher.dispatch({ revision: session.revision, req, sink, clientCapabilities: session.clientCapabilities, clientInfo: session.clientInfo, link: this, principal }, admit);
  }

  private notification(method: string, params: Record<string, unknown> | undefined): void {
    switch (method) {
      case "notifications/initialized":
        if (this.session && !this.session.initialized) {
          markInitialized(this.session, (id) => this.inFlight.has(id));
          this.sessionChanged({ initialized: true });
        }
        return;
      case "notifications/cancelled": {
        // Unknown or late cancellations are ignored; initialize is never cancelled (it is answered before anything else runs).
        const id = params?.requestId as RequestId | undefined;
        const flight = id === undefined ? undefined : this.inFlight.get(id);
        flight?.cancel(new Error(typeof params?.reason === "string" ? params.reason : "cancelled by the client"));
        return;
      }
      default:
        // Notifications never get a response, even unknown ones.
        return;
    }
  }
}
