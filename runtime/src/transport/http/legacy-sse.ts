/**
 * The deprecated HTTP+SSE transport of 2024-11-05 (off unless `legacySse`): a GET opens the session's event stream,
 * whose first event names the POST endpoint; every server message is a `message` event on that stream.
 * spec/2024-11-05/basic/transports.mdx#http-with-sse
 */
import type { Connection, Sink } from "../../protocol/connection.js";
import type { ProtocolCore } from "../../protocol/core.js";
import type { JsonRpcMessage } from "../../wire/jsonrpc.js";
import { ANY, one, parseAccept } from "./body.js";
import type { Incoming, Reply } from "./io.js";
import { DEFAULT_MESSAGES_PATH } from "./options.js";
import type { JsonBodies } from "./read-json.js";
import { logError, type Responder } from "./respond.js";
import { samePrincipal } from "./authorization.js";
import { newSessionId } from "./sessions.js";
import { PacedOutput } from "../paced.js";
import { sseEvent } from "./sse.js";
import type { StreamRegistry } from "./streams.js";
import type { Principal } from "../../protocol/request.js";

/** What the HTTP+SSE transport uses of the endpoint. */
export interface LegacySseHost {
  readonly core: ProtocolCore;
  readonly responder: Responder;
  readonly streams: StreamRegistry;
  readonly bodies: JsonBodies;
  /** HandlerOptions.messagesPath. */
  readonly messagesPath?: string;
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
  constructor(
    core: ProtocolCore,
    readonly res: Reply,
  ) {
    this.connection = core.connect(this, LEGACY);
    this.out = new PacedOutput((chunk) => void (res.destroyed || res.write(chunk)), false);
    res.once("close", () => this.out.close());
  }
  send(message: JsonRpcMessage): void {
    if (!this.res.destroyed) this.out.push(sseEvent(message), message);
  }
}

/**
 * The HTTP+SSE endpoints (GET `ssePath`, POST `messagesPath`) and their sessions. These are not legacy Streamable HTTP
 * sessions: HandlerOptions.maxSessions does not count them.
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
    const id = newSessionId();
    const session = new SseSession(this.t.core, res);
    session.principal = principal;
    this.sessions.set(id, session);
    this.t.streams.start(res, 200);
    // The first event names the POST endpoint, with this session's id. spec/2024-11-05/basic/transports.mdx#http-with-sse
    res.write(`event: endpoint\ndata: ${this.t.messagesPath ?? DEFAULT_MESSAGES_PATH}?sessionId=${id}\n\n`);
    res.once("close", () => {
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
