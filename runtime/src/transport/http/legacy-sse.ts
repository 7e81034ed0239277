/**
 * The deprecated HTTP+SSE transport of 2024-11-05 (off unless `legacySse`): a GET opens the session's event stream,
 * whose first event names the POST endpoint; every server message is a `message` event on that stream.
 * spec/2024-11-05/basic/transports.mdx#http-with-sse
 */
import type { Connection, Sink } from "../../protocol/connection.js";
import type { ProtocolCore } from "../../protocol/core.js";
import { boundedJson, type MessageLimits } from "../../protocol/limits.js";
import type { Revision } from "../../rules.js";
import type { JsonRpcMessage } from "../../wire/jsonrpc.js";
import { ANY, one, parseAccept } from "./body.js";
import type { Incoming, Reply } from "./io.js";
import { DEFAULT_MESSAGES_PATH } from "./options.js";
import type { JsonBodies } from "./read-json.js";
import { logError, type Responder } from "./respond.js";
import { samePrincipal } from "./principals.js";
import { newSessionId } from "./sessions.js";
import { PacedOutput } from "../paced.js";
import { sseEvent } from "./sse.js";
import type { StreamRegistry } from "./streams.js";
import type { Principal } from "../../protocol/request.js";
import type { CallerQuotas, QuotaRefusal } from "./quotas.js";

/** What the HTTP+SSE transport uses of the endpoint. */
export interface LegacySseHost {
  readonly core: ProtocolCore;
  readonly responder: Responder;
  readonly streams: StreamRegistry;
  readonly bodies: JsonBodies;
  /** HandlerOptions.messagesPath. */
  readonly messagesPath?: string;
  readonly quotas: CallerQuotas;
  /** The process-wide cap (HandlerOptions.maxSessions) is full: its refusal, else undefined. */
  sessionsFull(): QuotaRefusal | undefined;
}

const LEGACY: { transport: "http"; era: "legacy" } = { transport: "http", era: "legacy" };

/**
 * A 2024-11-05 HTTP+SSE session: every server message is an SSE `message` event on the GET stream. The SDK clients
 * dispatch all events of one network read synchronously (the `eventsource` parser), as on stdio, so a response right
 * after a progress notification waits a moment (PacedOutput). Streamable HTTP needs no such pacing: the
 * SDKs read its SSE events one `await reader.read()` at a time, which lets the progress handler run in between.
 */
export class SseSession implements Sink {
  readonly connection: Connection;
  /** The principal that opened the session (authorization): its POSTs need a token of the same principal. */
  principal?: Principal;
  private readonly out: PacedOutput;
  /** The revision of errors before initialize: the newest legacy one served. */
  private readonly fallback: Revision;
  constructor(
    core: ProtocolCore,
    readonly res: Reply,
    private readonly limits: Required<MessageLimits>,
    id: string,
  ) {
    // The link's id is the session's (handlers' ctx.sessionId, the failure log's `session`).
    this.connection = core.connect(this, { ...LEGACY, id, limits });
    this.fallback = core.eras.legacy.at(-1) ?? core.revisions[core.revisions.length - 1];
    this.out = new PacedOutput((chunk) => void (res.destroyed || res.write(chunk)), false);
    res.once("close", () => this.out.close());
  }
  send(message: JsonRpcMessage): void {
    if (this.res.destroyed) return;
    const json = boundedJson(message, this.limits.responseBytes, this.connection.session?.revision ?? this.fallback);
    if (json !== undefined) this.out.push(sseEvent(json), message);
  }
}

/**
 * The HTTP+SSE endpoints (GET `ssePath`, POST `messagesPath`) and their sessions. Each session is counted with the
 * legacy Streamable HTTP sessions (HandlerOptions.maxSessions) and in its caller's quotas: a session, and a stream.
 */
export class LegacySseTransport {
  readonly sessions = new Map<string, SseSession>();

  constructor(private readonly t: LegacySseHost) {}

  /** End every session. */
  close(): void {
    for (const s of this.sessions.values()) s.connection.close();
    this.sessions.clear();
  }

  open(req: Incoming, res: Reply, principal?: Principal): void {
    if (!parseAccept(one(req.headers.accept)).sse) return this.t.responder.invalidRequest(res, 406, "Not Acceptable: the SSE endpoint needs Accept: text/event-stream");
    const refused = this.t.sessionsFull();
    if (refused) return this.t.responder.quota(res, refused);
    const caller = this.t.quotas.callerOf(req, principal);
    const sessionQuota = this.t.quotas.session(caller);
    if (typeof sessionQuota !== "function") return this.t.responder.quota(res, sessionQuota);
    const streamQuota = this.t.quotas.stream(caller);
    if (typeof streamQuota !== "function") {
      sessionQuota();
      return this.t.responder.quota(res, streamQuota);
    }
    const id = newSessionId();
    const session = new SseSession(this.t.core, res, this.t.quotas.limits, id);
    session.principal = principal;
    this.sessions.set(id, session);
    this.t.streams.start(res, 200);
    // The first event names the POST endpoint, with this session's id. spec/2024-11-05/basic/transports.mdx#http-with-sse
    res.write(`event: endpoint\ndata: ${this.t.messagesPath ?? DEFAULT_MESSAGES_PATH}?sessionId=${id}\n\n`);
    res.once("close", () => {
      sessionQuota();
      streamQuota();
      this.t.streams.untrack(res);
      this.sessions.delete(id);
      session.connection.close();
    });
  }

  post(req: Incoming, res: Reply, query: string, principal?: Principal): void {
    const id = new URLSearchParams(query).get("sessionId") ?? "";
    const found = this.sessions.get(id);
    const session = found && samePrincipal(found.principal, principal) ? found : undefined;
    if (!session) return this.t.responder.invalidRequest(res, 404, "Not Found: unknown or closed SSE session");
    this.t.bodies.read(req, res, ANY, (value) => {
      res.writeHead(202).end("Accepted");
      session.connection.receive(value, undefined, undefined, principal).catch(logError);
    });
  }
}
