/**
 * Legacy Streamable HTTP (2025-03-26 to 2025-11-25): the sessions an initialize mints (Mcp-Session-Id), their POSTs,
 * their GET streams (with resumption by Last-Event-ID) and their DELETE.
 * spec/2025-11-25/basic/transports.mdx#session-management, spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery
 */
import { legacyHeaderCheck } from "../../protocol/classify.js";
import type { ProtocolCore } from "../../protocol/core.js";
import type { MessageLimits } from "../../protocol/limits.js";
import type { Principal } from "../../protocol/request.js";
import { traceCarrier } from "../../protocol/telemetry.js";
import { type Revision, resumableStreams } from "../../rules.js";
import { isId, isObject } from "../../wire/jsonrpc.js";
import { samePrincipal } from "./principals.js";
import { one, parseAccept, type Accept } from "./body.js";
import { Exchange } from "./exchange.js";
import type { HeaderBag, Incoming, Reply } from "./io.js";
import type { CallerQuotas, QuotaRefusal } from "./quotas.js";
import type { Responder } from "./respond.js";
import type { LegacySessions } from "./session-table.js";
import { LegacyHttpSession, newSessionId } from "./sessions.js";
import type { StreamRegistry } from "./streams.js";

/** What legacy Streamable HTTP uses of the endpoint. */
export interface LegacyHost {
  readonly core: ProtocolCore;
  readonly table: LegacySessions;
  readonly responder: Responder;
  readonly streams: StreamRegistry;
  readonly quotas: CallerQuotas;
  readonly limits: Required<MessageLimits>;
  /** The process-wide cap (HandlerOptions.maxSessions) is full: its refusal, else undefined. */
  sessionsFull(): QuotaRefusal | undefined;
}

/** A POST as legacy Streamable HTTP serves it: its request, its response, what it accepts and who sent it. */
export interface LegacyPost {
  req: Incoming;
  res: Reply;
  accept: Accept;
  principal?: Principal;
}

export class LegacyStreamableHttp {
  private readonly sessions: Map<string, LegacyHttpSession>;
  /** Whether any legacy revision is served (else GET and DELETE have nothing to serve). */
  private readonly served: boolean;

  constructor(private readonly t: LegacyHost) {
    this.sessions = t.table.sessions;
    this.served = t.core.eras.legacy.length > 0;
  }

  /**
   * The session a request names, here or (shared sessions) restored from the store: then `found`. Unknown (or another
   * principal's) is 404; a MCP-Protocol-Version header must name a served legacy revision.
   */
  private withSession(res: Reply, headers: HeaderBag, principal: Principal | undefined, found: (s: LegacyHttpSession) => void): void {
    const id = one(headers["mcp-session-id"])!;
    const here = this.sessions.get(id);
    const shared = this.t.table.shared;
    if (shared) {
      (here ? shared.confirm(here).then((live) => (live ? here : undefined)) : shared.restore(id)).then(
        (s) => this.checkSession(res, headers, principal, s, found),
        (err) => this.t.responder.internalError(res, err),
      );
      return;
    }
    this.checkSession(res, headers, principal, here, found);
  }

  private checkSession(res: Reply, headers: HeaderBag, principal: Principal | undefined, found: LegacyHttpSession | undefined, then: (s: LegacyHttpSession) => void): void {
    // Another principal's session does not exist for this one: a session id alone never authorizes (spec/2025-11-25/basic/authorization.mdx#token-requirements).
    const s = found && samePrincipal(found.principal, principal) ? found : undefined;
    if (!s) return this.t.responder.invalidRequest(res, 404, "Not Found: unknown or terminated session; send initialize to start a new one", null);
    const wrong = legacyHeaderCheck({ header: (name) => one(headers[name]), served: this.t.core.eras });
    if (wrong) return this.t.responder.reject(res, wrong.status, { code: wrong.error.code, message: wrong.error.message }, { id: null, revision: wrong.revision });
    this.t.table.shared?.touch(s);
    then(s);
  }

  /**
   * A legacy POST, classified: in `session`, or (none) an initialize that mints one if its handshake succeeds. A new
   * session counts in the process-wide cap and its caller's quota; a POST whose client accepts SSE, in the stream
   * quotas of its caller and session (HttpLimits) until it closes.
   */
  post(post: LegacyPost, value: unknown, session: LegacyHttpSession | undefined): void {
    const { req, res, accept, principal } = post;
    const id = isObject(value) && isId(value.id) ? value.id : null;
    const caller = this.t.quotas.callerOf(req, principal);
    const isRequest = (m: unknown) => isObject(m) && typeof m.method === "string" && "id" in m;
    const request = Array.isArray(value) ? value.some(isRequest) : isRequest(value);
    let minting: LegacyHttpSession | undefined;
    if (!session) {
      const refused = this.t.sessionsFull();
      if (refused) return this.t.responder.quota(res, refused, id);
      const quota = this.t.quotas.session(caller);
      if (typeof quota !== "function") return this.t.responder.quota(res, quota, id);
      // 2024-11-05 had no Streamable HTTP; a client that negotiates it here still needs its state kept, so every
      // successful initialize gets a session. The id is cryptographically random, visible ASCII.
      session = minting = new LegacyHttpSession(this.t.table, newSessionId());
      minting.quota = quota;
      // Bound to the principal that opened it, for its lifetime.
      session.principal = principal;
    }
    if (request && accept.sse) {
      const stream = this.t.quotas.stream(caller, minting ? undefined : session.id);
      if (typeof stream !== "function") {
        minting?.quota?.();
        return this.t.responder.quota(res, stream, id);
      }
      res.once("close", stream);
    }
    session.lastSeen = Date.now();
    session.active++;
    const revision = session.connection.session?.revision ?? this.t.core.eras.legacy.at(-1)!;
    const exchange = new Exchange(this.t, res, accept, revision, session);
    exchange.minting = minting;
    exchange.request = request;
    exchange.traceCarrier = traceCarrier(req.headers);
    res.once("close", () => exchange.closed());
    const s = session;
    // A session whose handshake failed (or whose client left first) was never registered: its quota goes back.
    const unregistered = () => void (minting && !minting.registered && minting.quota?.());
    s.connection.receive(value, exchange, undefined, principal).then(
      () => {
        s.active--;
        s.lastSeen = Date.now();
        exchange.done();
        unregistered();
      },
      (err) => {
        s.active--;
        unregistered();
        this.t.responder.internalError(res, err);
      },
    );
  }

  get(req: Incoming, res: Reply, principal?: Principal): void {
    const headers = req.headers;
    // No session: nothing to stream (the modern era has no GET stream). spec/2026-07-28/basic/transports/streamable-http.mdx#backward-compatibility
    if (headers["mcp-session-id"] === undefined || !this.served) {
      return this.t.responder.invalidRequest(res, 405, "Method Not Allowed: GET needs a legacy session (Mcp-Session-Id)", null, { allow: "POST" });
    }
    if (!parseAccept(one(headers.accept)).sse) return this.t.responder.invalidRequest(res, 406, "Not Acceptable: a GET stream needs Accept: text/event-stream");
    this.withSession(res, headers, principal, (session) => {
      // A GET stream (or a resumption) holds its place in the stream quotas until it closes.
      const quota = this.t.quotas.stream(this.t.quotas.callerOf(req, principal), session.id);
      if (typeof quota !== "function") return this.t.responder.quota(res, quota);
      res.once("close", quota);
      this.stream(req, res, session);
    });
  }

  private stream(req: Incoming, res: Reply, session: LegacyHttpSession): void {
    const headers = req.headers;
    session.lastSeen = Date.now();
    const revision = session.connection.session?.revision;
    const lastEventId = one(headers["last-event-id"]);
    // Resumption: replay what followed Last-Event-ID on the stream it names, and only there. spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery
    const resumed = revision && lastEventId !== undefined && resumableStreams(revision) ? session.lookup(lastEventId) : undefined;
    if (resumed === "unknown" && this.t.table.shared) {
      const [n, after] = lastEventId!.split("-").map(Number);
      const shared = this.t.table.shared;
      // A GET stream another process carried (its connection dropped there): the GET stream again, here; its
      // logged events after Last-Event-ID first. spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery
      if (session.getStreams.includes(n)) {
        if (session.stream && !session.stream.destroyed) return this.t.responder.invalidRequest(res, 409, "Conflict: this session already has a GET stream");
        shared.replay(session, n, after).then(
          (events) => this.openGetStream(res, session, revision, undefined, events),
          (err) => this.t.responder.internalError(res, err),
        );
        return;
      }
      // Shared sessions: a stream another process wrote, replayed from the event log and followed until it ends.
      shared
        .resumeRemote(session, n, after, res, () => {
          this.t.streams.start(res, 200, session.id);
          res.once("close", () => this.t.streams.untrack(res));
        })
        .then(
          (known) => {
            if (known === "busy") return this.t.responder.invalidRequest(res, 409, "Conflict: that stream is already connected");
            if (known) return;
            this.t.streams.start(res, 200, session.id);
            this.t.streams.untrack(res);
            res.end();
          },
          (err) => this.t.responder.internalError(res, err),
        );
      return;
    }
    if (resumed === "unknown") {
      // A stream of this session that is no longer kept (or never was): nothing to replay, and the GET stream is not
      // what was asked for. The stream ends at once; a client that still waits for a response there will not get it.
      this.t.streams.start(res, 200, session.id);
      this.t.streams.untrack(res);
      res.end();
      return;
    }
    if (resumed && resumed.stream !== session.standalone) {
      if (resumed.stream.res && !resumed.stream.res.destroyed) return this.t.responder.invalidRequest(res, 409, "Conflict: that stream is already connected");
      this.t.streams.start(res, 200, session.id);
      res.once("close", () => this.t.streams.untrack(res));
      // Shared sessions: a resumption of this stream that another process carries ends there (the newest connection
      // is the stream's). spec/2025-11-25/basic/transports.mdx#multiple-connections
      this.t.table.shared?.publish(session.id, { t: "follow", n: resumed.stream.n });
      resumed.stream.resume(res, resumed.after);
      return;
    }
    // One GET stream per session, so that no message goes to two streams.
    if (session.stream && !session.stream.destroyed) return this.t.responder.invalidRequest(res, 409, "Conflict: this session already has a GET stream");
    this.openGetStream(res, session, revision, resumed?.after);
  }

  /**
   * `res` becomes the session's GET stream here: resumed after `after` (its own log), or after `replayed` events
   * another process wrote on its GET stream (shared sessions), then what waited for it.
   */
  private openGetStream(res: Reply, session: LegacyHttpSession, revision: Revision | undefined, after?: number, replayed: { text: string }[] = []): void {
    if (res.destroyed) return;
    session.stream = res;
    // Shared sessions: a GET stream of the session open on another process ends (the client's newest is the one).
    this.t.table.shared?.publish(session.id, { t: "get" });
    this.t.streams.start(res, 200, session.id);
    if (revision && resumableStreams(revision)) {
      if (!session.standalone) {
        session.standalone = session.openStream(res, false);
        // Shared sessions: the stream's number is kept with the session, so that a GET resuming it may land anywhere.
        if (this.t.table.shared) {
          session.addGetStreams([session.standalone.n]);
          void this.t.table.shared.change(session, { getStream: session.standalone.n });
        }
      }
      for (const e of replayed) res.write(e.text);
      if (after !== undefined) session.standalone.resume(res, after);
      else session.standalone.attach(res);
    }
    for (const m of session.backlog.splice(0)) session.send(m);
    res.once("close", () => {
      this.t.streams.untrack(res);
      if (session.stream === res) session.stream = undefined;
      session.lastSeen = Date.now();
    });
  }

  delete(req: Incoming, res: Reply, principal?: Principal): void {
    const headers = req.headers;
    if (headers["mcp-session-id"] === undefined || !this.served) {
      return this.t.responder.invalidRequest(res, 405, "Method Not Allowed: DELETE needs a legacy session (Mcp-Session-Id)", null, { allow: "POST" });
    }
    this.withSession(res, headers, principal, (session) => {
      this.t.table.discard(session);
      const shared = this.t.table.shared;
      if (!shared) return void res.writeHead(200).end();
      // Shared sessions: answered once the store has forgotten it and every process was told, so that no process
      // serves it after the client saw its DELETE succeed (spec/2025-11-25/basic/transports.mdx#session-management).
      shared.terminateEverywhere(session).then(
        () => res.writeHead(200).end(),
        (err) => this.t.responder.storeUnavailable(res, err),
      );
    });
  }
}
