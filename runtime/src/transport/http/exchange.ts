/** One POST's exchange: its JSON response, or its SSE stream. */
import { billed, spentOn } from "./cpu-share.js";
import { afterNextPoll, YIELD_BYTES } from "../../protocol/turns.js";
import { largeBodies } from "./read-json.js";
import type { Sink } from "../../protocol/connection.js";
import { boundedJson, type MessageLimits } from "../../protocol/limits.js";
import type { InFlight } from "../../protocol/request.js";
import type { TraceCarrier } from "../../protocol/telemetry.js";
import { type Revision, disconnectIsCancellation, primesSseStreams, resumableStreams } from "../../rules.js";
import { httpRefusalOf } from "../../wire/http-status.js";
import type { JsonRpcMessage, RequestId } from "../../wire/jsonrpc.js";
import type { Accept } from "./body.js";
import type { Reply } from "./io.js";
import type { Responder } from "./respond.js";
import type { LegacySessions } from "./session-table.js";
import type { LegacyHttpSession, SessionStream } from "./sessions.js";
import { sseEvent } from "./sse.js";
import type { StreamRegistry } from "./streams.js";

/** What an exchange writes with: the stream registry, the responder, and the session table (an initialize's session). */
export interface ExchangeHost {
  readonly streams: StreamRegistry;
  readonly responder: Responder;
  readonly table: Pick<LegacySessions, "register" | "discard">;
  /** The message limits (responseBytes bounds what an exchange writes). */
  readonly limits: Required<MessageLimits>;
}

/**
 * The sink of one POST: answers with JSON, or switches to an SSE stream when the handler sends something
 * before its response and the client accepts SSE. After the response it sends nothing. A disconnect ends it, except
 * on a resumable legacy stream, where later events are kept for the client's GET with Last-Event-ID.
 */
export class Exchange implements Sink {
  /**
   * pending: nothing sent yet (JSON still possible); streaming: an SSE stream is open; finished: the response is
   * written; detached: the connection closed (the client went away, or closeStream) before the response.
   */
  state: "pending" | "streaming" | "finished" | "detached" = "pending";
  /** Modern: the request this exchange carries (a disconnect cancels it). */
  flight?: InFlight;
  /** Set on an initialize exchange: the session to register if the handshake succeeds. */
  minting?: LegacyHttpSession;
  /** The POST carries one request (not notifications or responses only). */
  request = false;
  /** The POST's W3C trace context headers, if any: a request's span parent when its `_meta` has none. */
  traceCarrier?: TraceCarrier;
  /** This POST's stream in a session whose revision makes streams resumable. */
  private stream?: SessionStream;

  constructor(
    private readonly host: ExchangeHost,
    readonly res: Reply,
    readonly accept: Accept,
    readonly revision: Revision,
    readonly session?: LegacyHttpSession,
  ) {}

  /** `message` to the client (its encoding and writing charged to the request's caller: cpu-share.ts). */
  send(message: JsonRpcMessage): void {
    billed(this.res, () => this.deliver(message));
  }

  /** Time spent on this POST's request after its start (a batch's members), charged to its caller (cpu-share.ts). */
  spent(ms: number): void {
    spentOn(this.res, ms);
  }

  private deliver(message: JsonRpcMessage): void {
    if (this.state === "finished" || (this.state === "detached" && !this.stream)) return;
    if (Array.isArray(message) || "result" in message || "error" in message) return this.finish(message);
    if (this.state === "pending") {
      if (!this.accept.sse) {
        // A JSON-only client cannot receive this on its POST; a server→client request may use the session's GET stream.
        if ("id" in message && this.session) this.session.send(message);
        return;
      }
      this.openSse(200);
      this.state = "streaming";
    }
    const json = this.encode(message);
    if (json === undefined) return;
    if (this.stream) this.stream.write(json);
    else this.res.write(sseEvent(json));
  }

  /** `message` serialized within responseBytes: a response over it is an internal error naming the limit (protocol/limits.ts). */
  private encode(message: JsonRpcMessage | JsonRpcMessage[]): string | undefined {
    return boundedJson(message, this.host.limits.responseBytes, this.session?.connection.session?.revision ?? this.revision);
  }

  /** Start this POST's SSE stream; in a resumable session its events carry ids (the first, a priming event). */
  private openSse(status: number): void {
    const session = this.session?.registered ? this.session : undefined;
    this.host.streams.start(this.res, status, session?.id);
    // The session's negotiated revision decides (an initialize answered over SSE has just negotiated it).
    const revision = session?.connection.session?.revision ?? this.revision;
    if (session && resumableStreams(revision)) this.stream = session.openStream(this.res, primesSseStreams(revision));
  }

  private finish(message: JsonRpcMessage | JsonRpcMessage[]): void {
    const res = this.res;
    const stream = this.stream;
    if (this.state === "streaming" || this.state === "detached") {
      this.state = "finished";
      const json = this.encode(message)!;
      if (stream) {
        stream.write(json);
        stream.end();
      } else {
        this.host.streams.untrack(res);
        res.end(sseEvent(json));
      }
      return;
    }
    this.state = "finished";
    if (res.destroyed) return;
    if (this.minting) {
      this.host.table.register(this.minting, res);
      // Shared sessions: the client learns the id only once every process can find the session.
      const stored = this.minting.stored;
      if (stored) {
        const minted = this.minting;
        stored.then(
          () => this.respond(message),
          (err) => {
            // No session every process can find: none at all (no Mcp-Session-Id), and the client may try again. Why
            // is the server's log's (SharedSessions.create reports the store's error), not the client's.
            this.host.table.discard(minted);
            res.removeHeader("mcp-session-id");
            const id = !Array.isArray(message) && "id" in message ? (message.id as RequestId) : null;
            this.host.responder.storeUnavailable(res, err, id);
          },
        );
        return;
      }
    }
    this.respond(message);
  }

  private respond(message: JsonRpcMessage | JsonRpcMessage[]): void {
    const res = this.res;
    if (res.destroyed) return;
    // The answer to a large body is encoded in a later turn than the one that ran it (protocol/turns.ts).
    if (largeBodies.delete(res)) return afterNextPoll(() => billed(res, () => this.respond(message)));
    const status = this.host.responder.statusFor(message, this.revision);
    // A quota or a store outage: when to try again (protocol/errors.ts).
    const refusal = Array.isArray(message) ? undefined : httpRefusalOf(message);
    if (refusal) res.setHeader("retry-after", String(refusal.retryAfter));
    // A response always serializes to something (one over the limit: its -32603 error).
    const json = this.encode(message)!;
    if (this.accept.json) {
      if (this.session && this.session.registered) res.setHeader("mcp-session-id", this.session.id);
      res.statusCode = status;
      res.setHeader("content-type", "application/json");
      // A large body is written in a later turn than the one that encoded it (its write is about 1 ms per 512 KiB):
      // the other callers' requests that arrived meanwhile are served between (protocol/turns.ts).
      if (json.length <= YIELD_BYTES) res.end(json);
      else afterNextPoll(() => billed(res, () => res.destroyed || res.end(json)));
    } else {
      this.openSse(status);
      if (this.stream) {
        this.stream.write(json);
        this.stream.end();
      } else {
        this.host.streams.untrack(res);
        res.end(sseEvent(json));
      }
    }
  }

  /** The Connection has finished with this POST. */
  done(): void {
    if (this.state === "pending") {
      this.state = "finished";
      if (this.minting) this.minting.connection.close();
      if (this.res.destroyed) return;
      // A request MUST get JSON or an event stream; one the client cancelled has no response, so its stream ends
      // empty (a JSON-only client gets 202). Only notifications or responses: 202, no body.
      // spec/2025-11-25/basic/transports.mdx#sending-messages-to-the-server
      if (this.request && this.accept.sse) {
        this.openSse(200);
        if (this.stream) this.stream.end();
        else {
          this.host.streams.untrack(this.res);
          this.res.end();
        }
        return;
      }
      this.res.writeHead(202).end();
    } else if (this.state === "streaming" || this.state === "detached") {
      this.state = "finished";
      if (this.stream) this.stream.end();
      else {
        this.host.streams.untrack(this.res);
        this.res.end();
      }
    }
  }

  /**
   * Close the connection but not the stream (spec/2025-11-25/basic/transports.mdx#sending-messages-to-the-server):
   * an event with an id and `retry` first, so the client knows where to resume and when; later events are kept.
   */
  closeStream(): boolean {
    // Polling came with priming (2025-11-25); earlier, a server SHOULD NOT close a POST's stream before its response
    // (spec/2025-06-18/basic/transports.mdx#sending-messages-to-the-server).
    if (this.state === "finished" || this.state === "detached" || !this.session?.registered || !primesSseStreams(this.revision) || !resumableStreams(this.revision)) return false;
    if (this.state === "pending") {
      if (!this.accept.sse) return false;
      this.openSse(200);
      this.state = "streaming";
    }
    const stream = this.stream!;
    // The priming event carried the retry delay; after other events, send it again just before closing.
    if (stream.written > 1) stream.write();
    this.state = "detached";
    stream.detach();
    return true;
  }

  /** The response closed: finished, or the client went away first. */
  closed(): void {
    if (this.state === "finished" || this.state === "detached") return;
    this.state = "detached";
    this.host.streams.untrack(this.res);
    // Modern: the disconnect is the cancellation (abort, then nothing more). Legacy: the handler runs on.
    if (disconnectIsCancellation(this.revision)) this.flight?.cancel(new Error("the client disconnected"));
  }
}
