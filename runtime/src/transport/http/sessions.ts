/**
 * Legacy Streamable HTTP sessions (2025-03-26 to 2025-11-25): the session a successful initialize mints, its GET
 * stream, and its resumable SSE streams. spec/2025-11-25/basic/transports.mdx#session-management
 */
import type { Connection, Sink } from "../../protocol/connection.js";
import type { ProtocolCore } from "../../protocol/core.js";
import { boundedJson, type MessageLimits } from "../../protocol/limits.js";
import type { Principal } from "../../protocol/request.js";
import type { SessionChange } from "../../state/sessions.js";
import type { JsonRpcMessage, JsonRpcResponse } from "../../wire/jsonrpc.js";
import type { Reply } from "./io.js";
import { sseEvent } from "./sse.js";
import type { StreamRegistry } from "./streams.js";

const LEGACY: { transport: "http"; era: "legacy" } = { transport: "http", era: "legacy" };

/** A stream number no other process of a shared session picks (48 random bits; Last-Event-ID allows 15 digits). */
function randomStreamNumber(): number {
  const b = crypto.getRandomValues(new Uint16Array(3));
  return ((b[0] * 65536 + b[1]) * 65536 + b[2]) % 2 ** 48 || 1;
}

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/**
 * A session id: 24 cryptographically random bytes as 32 base64url characters (visible ASCII, as the session id MUST
 * be: spec/2025-11-25/basic/transports.mdx#session-management). Web Crypto, so every platform has it.
 */
export function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  let out = "";
  for (let i = 0; i < 24; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += B64URL[n >> 18] + B64URL[(n >> 12) & 63] + B64URL[(n >> 6) & 63] + B64URL[n & 63];
  }
  return out;
}

/**
 * What a session keeps for replay: per stream at most STREAM_LOG_EVENTS events; the logs of at most ENDED_LOGS
 * streams that have ended (the logs of streams still waiting for their response are never dropped by count: their
 * response is what a resumption is for); and at most SESSION_LOG_CHARS characters of events in all (older events go
 * first, from ended streams first). HandlerOptions.replayBufferBytes bounds all sessions together: past it, new events
 * are sent but not kept. spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery ("MAY" replay).
 */
const STREAM_LOG_EVENTS = 100;
const ENDED_LOGS = 16;
const SESSION_LOG_CHARS = 4 * 1024 * 1024;
/** The SSE `retry` (ms) sent with a priming event: how long a client waits before reconnecting. */
const SSE_RETRY_MS = 1000;

/** The characters of SSE events kept for replay across the endpoint's sessions (HandlerOptions.replayBufferBytes). */
export class ReplayBudget {
  private used = 0;
  constructor(private readonly limit: number) {}

  /** Room for `chars` more characters of replay log: taken, or false (the event is sent but not kept). */
  reserve(chars: number): boolean {
    if (this.used + chars > this.limit) return false;
    this.used += chars;
    return true;
  }

  release(chars: number): void {
    this.used -= chars;
  }
}

/** What a session asks of the shared session store, when one is configured (shared-sessions.ts). */
export interface SessionSharing {
  /** This process, as the prefix of its server→client request ids. */
  readonly origin: string;
  change(s: LegacyHttpSession, change: SessionChange): Promise<void>;
  publish(id: string, message: { t: "response"; message: JsonRpcResponse } | { t: "out"; message: JsonRpcMessage }): void;
  logEvent(s: LegacyHttpSession, n: number, seq: number, text: string): void;
  endStream(s: LegacyHttpSession, n: number): void;
  leave(id: string): void;
}

/** What a session needs of the endpoint that holds it (session-table.ts). */
export interface SessionHost {
  readonly core: ProtocolCore;
  readonly streams: StreamRegistry;
  readonly replay: ReplayBudget;
  readonly shared?: SessionSharing;
  /** The message limits of the session's Connection and streams (defaults applied). */
  readonly limits: Required<MessageLimits>;
}

/**
 * One SSE stream of a legacy session whose revision makes streams resumable. Every event carries the id
 * `<stream>-<seq>`, unique across the session's streams, and stays in a bounded log so that a client whose
 * connection dropped can resume this stream, and only this one, with a GET carrying Last-Event-ID.
 * spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery
 */
export class SessionStream {
  private seq = 0;
  readonly log: { seq: number; text: string }[] = [];
  /** The connection carrying the stream now, if any. */
  res?: Reply;
  /** The stream's last event is written (a POST's response, or nothing more will come). */
  ended = false;

  constructor(
    readonly session: LegacyHttpSession,
    readonly n: number,
  ) {}

  /** Events written so far. */
  get written(): number {
    return this.seq;
  }

  /** Close the connection carrying the stream, keeping the stream (its later events are logged for a resumption). */
  detach(): void {
    const res = this.res;
    this.res = undefined;
    if (res && !res.writableEnded) {
      this.session.host.streams.untrack(res);
      res.end();
    }
  }

  /** Carry the stream on `res` (a new stream, or a resumed one) until it closes. */
  attach(res: Reply): void {
    this.res = res;
    res.once("close", () => {
      if (this.res === res) this.res = undefined;
    });
  }

  /** Write and log one event carrying `json` (a serialized message); without it, the priming event (id, retry, empty data). */
  write(json?: string): void {
    const seq = ++this.seq;
    const id = `${this.n}-${seq}`;
    const text = json === undefined ? `id: ${id}\nretry: ${SSE_RETRY_MS}\ndata: \n\n` : `id: ${id}\nevent: message\ndata: ${json}\n\n`;
    if (this.log.length >= STREAM_LOG_EVENTS) this.session.dropOldest(this);
    if (this.session.reserve(this, text.length)) this.log.push({ seq, text });
    // Shared sessions: kept where another process can replay it (a GET with Last-Event-ID may land anywhere).
    this.session.host.shared?.logEvent(this.session, this.n, seq, text);
    const res = this.res;
    if (res && !res.destroyed) res.write(text);
  }

  /** No more events: end the connection (the log stays, bounded, for a client that lost the end). */
  end(): void {
    this.ended = true;
    this.session.ended(this);
    this.session.host.shared?.endStream(this.session, this.n);
    const res = this.res;
    if (res && !res.destroyed) {
      this.session.host.streams.untrack(res);
      res.end();
    }
  }

  /** Resume on `res`: replay the events after `after`, then carry the rest (or end, if the stream has ended). */
  resume(res: Reply, after: number): void {
    this.attach(res);
    for (const e of this.log) if (e.seq > after) res.write(e.text);
    if (this.ended) {
      this.session.host.streams.untrack(res);
      res.end();
    }
  }
}

/** A legacy Streamable HTTP session: its own Connection (negotiated version, capabilities, log level, subscriptions, pending requests). */
export class LegacyHttpSession implements Sink {
  /** The principal that opened the session (authorization): it is served to that principal only. */
  principal?: Principal;
  readonly connection: Connection;
  registered = false;
  /** The GET stream, when open: the only place unsolicited messages go. */
  stream?: Reply;
  /** The GET stream's events, in a resumable revision (kept across reconnections). */
  standalone?: SessionStream;
  /** Shared sessions: the numbers of the session's GET streams on every process, most recent last (at most 16). */
  getStreams: number[] = [];
  /** Unsolicited messages waiting for a GET stream (bounded). */
  backlog: JsonRpcMessage[] = [];
  lastSeen = Date.now();
  /** When the shared store was last told the session is in use. */
  touched = 0;
  /** Gives back the session's place in its caller's quota (HttpLimits.sessionsPerCaller), when it ends. */
  quota?: () => void;
  /** Shared sessions: resolves once the session is in the store (its initialize response waits for it). */
  stored?: Promise<void>;
  active = 0;
  /** Resumable streams by number, oldest first. */
  private readonly streams = new Map<number, SessionStream>();
  /** Streams that have ended, oldest first (their logs are the first to go). */
  private readonly endedStreams: SessionStream[] = [];
  private nextStream = 0;
  /** Characters of events kept in this session's logs. */
  private logChars = 0;

  constructor(
    readonly host: SessionHost,
    readonly id: string,
  ) {
    const shared = host.shared;
    this.connection = host.core.connect(
      this,
      shared
        ? {
            ...LEGACY,
            id,
            // Server→client request ids unique among the processes serving the session; a client's answer that lands on
            // another process comes back over the bus, and one for another process goes there.
            requestIdPrefix: `${shared.origin}-`,
            onSessionChange: (_session, change) => void shared.change(this, change),
            onForeignResponse: (response) => shared.publish(id, { t: "response", message: response }),
            limits: host.limits,
          }
        : { ...LEGACY, id, limits: host.limits },
    );
  }

  /** A message for the session's GET stream: written where it is open here; shared sessions: else wherever it is open. */
  send(message: JsonRpcMessage): void {
    if (this.writeToGetStream(message)) return;
    if (this.host.shared) return this.host.shared.publish(this.id, { t: "out", message });
    if (this.backlog.length >= 1000) this.backlog.shift();
    this.backlog.push(message);
  }

  /** A change notification: every process sharing the session hears the event itself, so it is never forwarded. */
  sendEvent(message: JsonRpcMessage): void {
    if (this.writeToGetStream(message) || this.host.shared) return;
    if (this.backlog.length >= 1000) this.backlog.shift();
    this.backlog.push(message);
  }

  /** Write to the GET stream if it is open here (a message over responseBytes is not sent); returns whether it was. */
  writeToGetStream(message: JsonRpcMessage): boolean {
    const s = this.stream;
    if (!s || s.destroyed) return false;
    const json = this.encode(message);
    if (json === undefined) return true;
    if (this.standalone) this.standalone.write(json);
    else s.write(sseEvent(json));
    return true;
  }

  /** `message` serialized within responseBytes (protocol/limits.ts), by the session's revision; undefined: not sent. */
  encode(message: JsonRpcMessage | JsonRpcMessage[]): string | undefined {
    return boundedJson(message, this.host.limits.responseBytes, this.connection.session?.revision ?? this.host.core.eras.legacy.at(-1)!);
  }

  /** A new resumable stream carried by `res`, primed if the revision asks for it. */
  openStream(res: Reply, prime: boolean): SessionStream {
    // Shared sessions: stream numbers unique among the processes (event ids are `<stream>-<seq>`).
    const stream = new SessionStream(this, this.host.shared ? randomStreamNumber() : ++this.nextStream);
    this.streams.set(stream.n, stream);
    stream.attach(res);
    if (prime) stream.write();
    return stream;
  }

  /** Shared sessions: GET stream numbers another process opened (or this one), kept with the session. */
  addGetStreams(numbers: number[] | undefined): void {
    if (!numbers?.length) return;
    this.getStreams = [...new Set([...this.getStreams, ...numbers])].slice(-16);
  }

  /** `stream` has ended: past ENDED_LOGS ended streams, the oldest one's log goes. */
  ended(stream: SessionStream): void {
    this.endedStreams.push(stream);
    if (this.endedStreams.length > ENDED_LOGS) this.forget(this.endedStreams.shift()!);
  }

  /** Room for `chars` more characters of log for `stream`, dropping older events (ended streams' first); false: do not keep it. */
  reserve(stream: SessionStream, chars: number): boolean {
    if (chars > SESSION_LOG_CHARS) return false;
    while (this.logChars + chars > SESSION_LOG_CHARS) {
      const victim = this.endedStreams.find((s) => s.log.length) ?? [...this.streams.values()].find((s) => s.log.length);
      if (!victim) break;
      this.dropOldest(victim);
    }
    if (!this.host.replay.reserve(chars)) return false;
    this.logChars += chars;
    return true;
  }

  /** Drop the oldest kept event of `stream`. */
  dropOldest(stream: SessionStream): void {
    const e = stream.log.shift();
    if (!e) return;
    this.logChars -= e.text.length;
    this.host.replay.release(e.text.length);
  }

  /** The stream a Last-Event-ID names (`<stream>-<seq>`): found, unknown (a well-formed id of no kept stream), or malformed. */
  lookup(lastEventId: string): { stream: SessionStream; after: number } | "unknown" | undefined {
    const m = /^(\d{1,15})-(\d{1,15})$/.exec(lastEventId);
    if (!m) return undefined;
    const stream = this.streams.get(Number(m[1]));
    return stream ? { stream, after: Number(m[2]) } : "unknown";
  }

  /** Drop a stream and its log. */
  forget(stream: SessionStream): void {
    if (stream === this.standalone) return;
    while (stream.log.length) this.dropOldest(stream);
    this.streams.delete(stream.n);
  }

  /** End the session here: its connection, streams and logs (shared sessions: this process's copy; DELETE ends the rest). */
  terminate(): void {
    this.quota?.();
    this.host.shared?.leave(this.id);
    this.connection.close();
    const s = this.stream;
    this.stream = undefined;
    if (s) {
      this.host.streams.untrack(s);
      s.end();
    }
    for (const stream of this.streams.values()) {
      const res = stream.res;
      if (res && !res.writableEnded) {
        this.host.streams.untrack(res);
        res.end();
      }
      while (stream.log.length) this.dropOldest(stream);
    }
    this.streams.clear();
    this.endedStreams.length = 0;
  }
}
