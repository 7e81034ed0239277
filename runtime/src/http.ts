/**
 * The Streamable HTTP transport, for both eras on one endpoint, and the
 * deprecated HTTP+SSE transport (off unless enabled).
 *
 * The era of each POST is read from its body (a `_meta` protocol version means
 * modern; `initialize` or an `Mcp-Session-Id` means legacy) and every rule that
 * differs by revision is asked of the rules module; nothing here names a
 * revision. Era routing inside the message stays in `connection.ts`: this file
 * owns what is HTTP (security checks, sessions, header mirroring, statuses,
 * JSON-or-SSE responses, disconnects) and hands each message to a Connection.
 *
 * spec/2026-07-28/basic/transports/streamable-http.mdx
 * spec/2025-11-25/basic/transports.mdx#streamable-http
 * spec/2024-11-05/basic/transports.mdx#http-with-sse
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Connection, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, type Sink } from "./connection.js";
import { decodeHeaderValue, headerMatches, headerParams, primitiveHeaderText, valueAt, type HeaderParam } from "./http-headers.js";
import type { JsonRpcMessage, RequestId } from "./jsonrpc.js";
import { PacedOutput } from "./paced.js";
import {
  type Revision,
  LATEST_MODERN,
  disconnectIsCancellation,
  errorCode,
  hasHeader,
  httpErrorStatuses,
  isLegacy,
  isModern,
  isRevision,
  nameHeaderSources,
  primesSseStreams,
  resumableStreams,
  unknownMethodHttpStatus,
} from "./rules.js";
import type { McpServer } from "./server.js";

export interface HttpOptions {
  /** Interface to bind. Default 127.0.0.1. A non-loopback address (e.g. 0.0.0.0) also needs `allowRemote: true`. */
  host?: string;
  /** TCP port; 0 picks a free one. Default 3000. */
  port?: number;
  /** The MCP endpoint. Default "/mcp". */
  path?: string;
  /**
   * Origins allowed to call the server (exact `scheme://host[:port]` strings, or a predicate); requests from other
   * origins get 403. Requests without an Origin header (non-browser clients) are served.
   * Default: loopback origins only (http(s)://localhost, 127.0.0.1, [::1], any port).
   */
  allowedOrigins?: readonly string[] | ((origin: string) => boolean);
  /**
   * Host header names accepted (`name` or `name:port`); others get 403. Default for a loopback bind: localhost,
   * 127.0.0.1 and [::1] (with the bound port or none), which stops DNS rebinding. A non-loopback bind checks Host
   * only when this is set.
   */
  allowedHosts?: readonly string[];
  /** Required to bind anything but a loopback address: the server has no authentication of its own. */
  allowRemote?: boolean;
  /** Largest accepted POST body in bytes (larger: 413). Default 4 MiB. */
  maxBodyBytes?: number;
  /** Also serve the deprecated 2024-11-05 HTTP+SSE transport (GET `ssePath`, POST `messagesPath`). Default false. */
  legacySse?: boolean;
  /** Default "/sse". */
  ssePath?: string;
  /** Default "/messages". */
  messagesPath?: string;
  /** A legacy session unused this long (no request, no open stream) is terminated. Default 30 minutes. */
  sessionIdleMs?: number;
  /** Most concurrent legacy sessions; initialize beyond it gets 503. Default 10 000. */
  maxSessions?: number;
  /**
   * Legacy sessions keep the events of their SSE streams so that a client can resume a dropped stream (Last-Event-ID):
   * at most this many bytes (approximately: characters) across all sessions; past it, events are sent but not kept.
   * Default 64 MiB. Each session keeps at most 4 MiB.
   */
  replayBufferBytes?: number;
  /** Interval of SSE keep-alive comments on open streams, in ms. Default 15 000. */
  keepAliveMs?: number;
  /** Do not print the listening line. */
  quiet?: boolean;
}

export interface HttpHandle {
  /** The MCP endpoint URL, e.g. http://127.0.0.1:3000/mcp. */
  url: string;
  host: string;
  port: number;
  server: Server;
  /** Stop listening, end every stream and session, close every connection. */
  close(): Promise<void>;
}

type Accept = { json: boolean; sse: boolean };
type Headers = Record<string, string>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is RequestId => typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
const noop = () => {};
const one = (h: string | string[] | undefined): string | undefined => (Array.isArray(h) ? h[0] : h);

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);
const isLoopbackAddress = (host: string) => LOOPBACK_NAMES.has(host.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(host);

const SSE_HEADERS: Headers = { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" };
const MODERN: { transport: "http"; era: "modern" } = { transport: "http", era: "modern" };
const LEGACY: { transport: "http"; era: "legacy" } = { transport: "http", era: "legacy" };
const NULL_SINK: Sink = { send: noop };
const EMPTY = Buffer.alloc(0);
const ANY: Accept = { json: true, sse: true };
const LISTEN_METHOD = "subscriptions/listen";

/** Whether a Content-Type names JSON (parameters such as charset allowed). */
function isJsonType(ct: string | undefined): boolean {
  if (!ct) return false;
  if (ct === "application/json") return true;
  const essence = ct.split(";", 1)[0].trim().toLowerCase();
  return essence === "application/json";
}

const acceptCache = new Map<string, Accept>();
/** What an Accept header allows of JSON and SSE (absent: anything). */
function parseAccept(header: string | undefined): Accept {
  if (header === undefined || header === "") return { json: true, sse: true };
  const cached = acceptCache.get(header);
  if (cached) return cached;
  const out: Accept = { json: false, sse: false };
  for (const part of header.split(",")) {
    const [range, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    if (params.some((p) => /^q=0(\.0*)?$/.test(p))) continue;
    if (range === "*/*") out.json = out.sse = true;
    else if (range === "application/json" || range === "application/*") out.json = true;
    else if (range === "text/event-stream" || range === "text/*") out.sse = true;
  }
  if (acceptCache.size < 256) acceptCache.set(header, out);
  return out;
}

/** The per-revision HTTP rules, computed once per revision from the rules module. */
interface HttpRules {
  versionHeader: boolean;
  methodHeader: boolean;
  paramHeaders: boolean;
  /** method → params field that Mcp-Name mirrors. */
  nameSources: Map<string, string>;
  /** JSON-RPC error code → HTTP status. */
  statuses: Map<number, number>;
}

/** One SSE response: a POST's stream, a legacy session's GET stream, or an HTTP+SSE stream. */
function sseEvent(message: JsonRpcMessage | JsonRpcMessage[], event = "message"): string {
  return `event: ${event}\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * The sink of one POST: answers with JSON, or switches to an SSE stream when the handler sends something
 * before its response and the client accepts SSE. After the response it sends nothing. A disconnect ends it, except
 * on a resumable legacy stream, where later events are kept for the client's GET with Last-Event-ID.
 */
class Exchange implements Sink {
  /** 0 pending, 1 streaming, 2 finished, 3 client gone. */
  state = 0;
  connection?: Connection;
  /** Set on an initialize exchange: the session to register if the handshake succeeds. */
  minting?: LegacyHttpSession;
  /** The POST carries one request (not notifications or responses only). */
  request = false;
  /** This POST's stream in a session whose revision makes streams resumable. */
  private stream?: SessionStream;

  constructor(
    readonly t: HttpTransport,
    readonly res: ServerResponse,
    readonly accept: Accept,
    readonly revision: Revision,
    readonly session?: LegacyHttpSession,
  ) {}

  send(message: JsonRpcMessage): void {
    if (this.state === 2 || (this.state === 3 && !this.stream)) return;
    if (Array.isArray(message) || "result" in message || "error" in message) return this.finish(message);
    if (this.state === 0) {
      if (!this.accept.sse) {
        // A JSON-only client cannot receive this on its POST; a server→client request may use the session's GET stream.
        if ("id" in message && this.session) this.session.send(message);
        return;
      }
      this.openSse(200);
      this.state = 1;
    }
    if (this.stream) this.stream.write(message);
    else this.res.write(sseEvent(message));
  }

  /** Start this POST's SSE stream; in a resumable session its events carry ids (the first, a priming event). */
  private openSse(status: number): void {
    const session = this.session?.registered ? this.session : undefined;
    this.t.startSse(this.res, status, session);
    // The session's negotiated revision decides (an initialize answered over SSE has just negotiated it).
    const revision = session?.connection.session?.revision ?? this.revision;
    if (session && resumableStreams(revision)) this.stream = session.openStream(this.res, primesSseStreams(revision));
  }

  private finish(message: JsonRpcMessage | JsonRpcMessage[]): void {
    const res = this.res;
    const stream = this.stream;
    if (this.state === 1 || this.state === 3) {
      this.state = 2;
      if (stream) {
        stream.write(message);
        stream.end();
      } else {
        this.t.untrack(res);
        res.end(sseEvent(message));
      }
      return;
    }
    this.state = 2;
    if (res.destroyed) return;
    if (this.minting) this.t.register(this.minting, res);
    const status = this.t.statusFor(message, this.revision);
    if (this.accept.json) {
      if (this.session && this.session.registered) res.setHeader("mcp-session-id", this.session.id);
      res.statusCode = status;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(message));
    } else {
      this.openSse(status);
      if (this.stream) {
        this.stream.write(message);
        this.stream.end();
      } else {
        this.t.untrack(res);
        res.end(sseEvent(message));
      }
    }
  }

  /** The Connection has finished with this POST. */
  done(): void {
    if (this.state === 0) {
      this.state = 2;
      if (this.minting) this.minting.connection.close();
      if (this.res.destroyed) return;
      // A request MUST get JSON or an event stream; one the client cancelled has no response, so its stream ends
      // empty (a JSON-only client gets 202). Only notifications or responses: 202, no body.
      // spec/2025-11-25/basic/transports.mdx#sending-messages-to-the-server
      if (this.request && this.accept.sse) {
        this.openSse(200);
        if (this.stream) this.stream.end();
        else {
          this.t.untrack(this.res);
          this.res.end();
        }
        return;
      }
      this.res.writeHead(202).end();
    } else if (this.state === 1 || this.state === 3) {
      this.state = 2;
      if (this.stream) this.stream.end();
      else {
        this.t.untrack(this.res);
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
    if (this.state >= 2 || !this.session?.registered || !primesSseStreams(this.revision) || !resumableStreams(this.revision)) return false;
    if (this.state === 0) {
      if (!this.accept.sse) return false;
      this.openSse(200);
      this.state = 1;
    }
    const stream = this.stream!;
    // The priming event carried the retry delay; after other events, send it again just before closing.
    if (stream.written > 1) stream.write();
    this.state = 3;
    stream.detach();
    return true;
  }

  /** The response closed: finished, or the client went away first. */
  closed(): void {
    if (this.state >= 2) return;
    this.state = 3;
    this.t.untrack(this.res);
    // Modern: the disconnect is the cancellation (abort, then nothing more). Legacy: the handler runs on.
    if (disconnectIsCancellation(this.revision)) this.connection?.abortAll();
  }
}

/**
 * What a session keeps for replay: per stream at most STREAM_LOG_EVENTS events; the logs of at most ENDED_LOGS
 * streams that have ended (the logs of streams still waiting for their response are never dropped by count: their
 * response is what a resumption is for); and at most SESSION_LOG_CHARS characters of events in all (older events go
 * first, from ended streams first). HttpOptions.replayBufferBytes bounds all sessions together: past it, new events
 * are sent but not kept. spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery ("MAY" replay).
 */
const STREAM_LOG_EVENTS = 100;
const ENDED_LOGS = 16;
const SESSION_LOG_CHARS = 4 * 1024 * 1024;
/** The SSE `retry` (ms) sent with a priming event: how long a client waits before reconnecting. */
const SSE_RETRY_MS = 1000;

/**
 * One SSE stream of a legacy session whose revision makes streams resumable. Every event carries the id
 * `<stream>-<seq>`, unique across the session's streams, and stays in a bounded log so that a client whose
 * connection dropped can resume this stream, and only this one, with a GET carrying Last-Event-ID.
 * spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery
 */
class SessionStream {
  private seq = 0;
  readonly log: { seq: number; text: string }[] = [];
  /** The connection carrying the stream now, if any. */
  res?: ServerResponse;
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
      this.session.t.untrack(res);
      res.end();
    }
  }

  /** Carry the stream on `res` (a new stream, or a resumed one) until it closes. */
  attach(res: ServerResponse): void {
    this.res = res;
    res.once("close", () => {
      if (this.res === res) this.res = undefined;
    });
  }

  /** Write and log one event; without a message, the priming event (id, retry, empty data). */
  write(message?: JsonRpcMessage | JsonRpcMessage[]): void {
    const seq = ++this.seq;
    const id = `${this.n}-${seq}`;
    const text = message === undefined ? `id: ${id}\nretry: ${SSE_RETRY_MS}\ndata: \n\n` : `id: ${id}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
    if (this.log.length >= STREAM_LOG_EVENTS) this.session.dropOldest(this);
    if (this.session.reserve(this, text.length)) this.log.push({ seq, text });
    const res = this.res;
    if (res && !res.destroyed) res.write(text);
  }

  /** No more events: end the connection (the log stays, bounded, for a client that lost the end). */
  end(): void {
    this.ended = true;
    this.session.ended(this);
    const res = this.res;
    if (res && !res.destroyed) {
      this.session.t.untrack(res);
      res.end();
    }
  }

  /** Resume on `res`: replay the events after `after`, then carry the rest (or end, if the stream has ended). */
  resume(res: ServerResponse, after: number): void {
    this.attach(res);
    for (const e of this.log) if (e.seq > after) res.write(e.text);
    if (this.ended) {
      this.session.t.untrack(res);
      res.end();
    }
  }
}

/** A legacy Streamable HTTP session: its own Connection (negotiated version, capabilities, log level, subscriptions, pending requests). */
class LegacyHttpSession implements Sink {
  readonly connection: Connection;
  registered = false;
  /** The GET stream, when open: the only place unsolicited messages go. */
  stream?: ServerResponse;
  /** The GET stream's events, in a resumable revision (kept across reconnections). */
  standalone?: SessionStream;
  /** Unsolicited messages waiting for a GET stream (bounded). */
  backlog: JsonRpcMessage[] = [];
  lastSeen = Date.now();
  active = 0;
  /** Resumable streams by number, oldest first. */
  private readonly streams = new Map<number, SessionStream>();
  /** Streams that have ended, oldest first (their logs are the first to go). */
  private readonly endedStreams: SessionStream[] = [];
  private nextStream = 0;
  /** Characters of events kept in this session's logs. */
  private logChars = 0;

  constructor(
    readonly t: HttpTransport,
    readonly id: string,
  ) {
    this.connection = new Connection(t.server, this, LEGACY);
  }

  send(message: JsonRpcMessage): void {
    const s = this.stream;
    if (s && !s.destroyed) {
      if (this.standalone) this.standalone.write(message);
      else s.write(sseEvent(message));
      return;
    }
    if (this.backlog.length >= 1000) this.backlog.shift();
    this.backlog.push(message);
  }

  /** A new resumable stream carried by `res`, primed if the revision asks for it. */
  openStream(res: ServerResponse, prime: boolean): SessionStream {
    const stream = new SessionStream(this, ++this.nextStream);
    this.streams.set(stream.n, stream);
    stream.attach(res);
    if (prime) stream.write();
    return stream;
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
    if (!this.t.reserveReplay(chars)) return false;
    this.logChars += chars;
    return true;
  }

  /** Drop the oldest kept event of `stream`. */
  dropOldest(stream: SessionStream): void {
    const e = stream.log.shift();
    if (!e) return;
    this.logChars -= e.text.length;
    this.t.releaseReplay(e.text.length);
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

  terminate(): void {
    this.connection.close();
    const s = this.stream;
    this.stream = undefined;
    if (s) {
      this.t.untrack(s);
      s.end();
    }
    for (const stream of this.streams.values()) {
      const res = stream.res;
      if (res && !res.writableEnded) {
        this.t.untrack(res);
        res.end();
      }
      while (stream.log.length) this.dropOldest(stream);
    }
    this.streams.clear();
    this.endedStreams.length = 0;
  }
}

/**
 * A 2024-11-05 HTTP+SSE session: every server message is an SSE `message` event on the GET stream. The SDK clients
 * dispatch all events of one network read synchronously (the `eventsource` parser), as on stdio, so a response right
 * after a progress notification waits a moment (PacedOutput). Streamable HTTP needs no such pacing: the
 * SDKs read its SSE events one `await reader.read()` at a time, which lets the progress handler run in between.
 */
class SseSession implements Sink {
  readonly connection: Connection;
  private readonly out: PacedOutput;
  constructor(
    server: McpServer,
    readonly res: ServerResponse,
  ) {
    this.connection = new Connection(server, this, LEGACY);
    this.out = new PacedOutput((chunk) => void (res.destroyed || res.write(chunk)), false);
    res.once("close", () => this.out.close());
  }
  send(message: JsonRpcMessage): void {
    if (!this.res.destroyed) this.out.push(sseEvent(message), message);
  }
}

export class HttpTransport {
  readonly path: string;
  readonly host: string;
  private readonly maxBody: number;
  private readonly sessions = new Map<string, LegacyHttpSession>();
  private readonly sseSessions = new Map<string, SseSession>();
  private readonly streams = new Set<ServerResponse>();
  private readonly rulesCache = new Map<Revision, HttpRules>();
  private readonly toolHeaders = new WeakMap<object, HeaderParam[]>();
  private readonly originCache = new Map<string, boolean>();
  private readonly hostCache = new Map<string, boolean>();
  private readonly hostNames?: Set<string>;
  /** Answers transport-level errors (no session, no request): the newest served revision shapes them. */
  private readonly root: Connection;
  private readonly newestModern: Revision;
  private readonly fallback: Revision;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly servesLegacy: boolean;
  /** Idle Connections for modern requests: one request at a time each (ids are per client), reused, never rebuilt per request. */
  private readonly modernPool: Connection[] = [];
  port = 0;
  readonly http: Server;

  constructor(
    readonly server: McpServer,
    readonly options: HttpOptions,
  ) {
    this.path = options.path ?? "/mcp";
    this.host = options.host ?? "127.0.0.1";
    this.maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
    this.root = new Connection(server, NULL_SINK, { transport: "http" });
    this.newestModern = server.eras.modern.at(-1) ?? LATEST_MODERN ?? server.revisions[server.revisions.length - 1];
    this.fallback = server.revisions[server.revisions.length - 1];
    this.servesLegacy = server.eras.legacy.length > 0;
    const loopback = isLoopbackAddress(this.host.replace(/^\[|\]$/g, ""));
    if (options.allowedHosts) this.hostNames = new Set(options.allowedHosts.map((h) => h.toLowerCase()));
    else if (loopback) this.hostNames = new Set(["localhost", "127.0.0.1", "[::1]"]);
    this.http = createServer((req, res) => this.handle(req, res));
    this.http.keepAliveTimeout = 60_000;
    this.http.headersTimeout = 65_000;
    this.http.on("clientError", (_err, socket) => {
      if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
      else socket.destroy();
    });
  }

  // ---- lifecycle ----

  async listen(): Promise<HttpHandle> {
    const o = this.options;
    const loopback = isLoopbackAddress(this.host.replace(/^\[|\]$/g, ""));
    if (!loopback) {
      if (!o.allowRemote) {
        throw new Error(
          `serveHttp: refusing to bind ${this.host}: the server has no authentication, so anyone who can reach the port could call its tools. ` +
            `Bind 127.0.0.1, or pass allowRemote: true (behind an authenticating proxy).`,
        );
      }
      process.stderr.write(
        `mcp runtime: WARNING: listening on ${this.host} exposes this MCP server, which has no authentication, to every network that can reach the port; ` +
          `anyone there can call its tools${this.hostNames ? "" : ", and no Host check guards against DNS rebinding (set allowedHosts)"}.\n`,
      );
    }
    await new Promise<void>((resolve, reject) => {
      this.http.once("error", reject);
      this.http.listen(o.port ?? 3000, this.host, () => {
        this.http.off("error", reject);
        resolve();
      });
    });
    this.port = (this.http.address() as AddressInfo).port;
    const shownHost = this.host.includes(":") && !this.host.startsWith("[") ? `[${this.host}]` : this.host;
    const url = `http://${shownHost}:${this.port}${this.path}`;
    const keepAlive = setInterval(() => {
      for (const s of this.streams) if (!s.destroyed) s.write(":\n\n");
    }, o.keepAliveMs ?? 15_000);
    const idleMs = o.sessionIdleMs ?? 30 * 60_000;
    const sweep = setInterval(() => this.sweep(idleMs), Math.min(60_000, Math.max(1000, idleMs / 2)));
    keepAlive.unref();
    sweep.unref();
    this.timers.push(keepAlive, sweep);
    if (!o.quiet) process.stderr.write(`listening ${url}\n`);
    return { url, host: this.host, port: this.port, server: this.http, close: () => this.close() };
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

  /** Room for `chars` more characters of replay log across sessions (HttpOptions.replayBufferBytes). */
  reserveReplay(chars: number): boolean {
    if (this.replayChars + chars > (this.options.replayBufferBytes ?? 64 * 1024 * 1024)) return false;
    this.replayChars += chars;
    return true;
  }

  releaseReplay(chars: number): void {
    this.replayChars -= chars;
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const c of this.modernPool.splice(0)) c.close();
    for (const t of this.timers) clearInterval(t);
    const closed = new Promise<void>((r) => this.http.close(() => r()));
    for (const s of this.sessions.values()) s.terminate();
    this.sessions.clear();
    for (const s of this.sseSessions.values()) s.connection.close();
    this.sseSessions.clear();
    for (const s of this.streams) s.end();
    this.streams.clear();
    this.root.close();
    this.http.closeIdleConnections();
    setTimeout(() => this.http.closeAllConnections(), 1000).unref();
    await closed;
  }

  // ---- per revision ----

  private rules(revision: Revision): HttpRules {
    let r = this.rulesCache.get(revision);
    if (!r) {
      const statuses = new Map<number, number>();
      for (const pair of httpErrorStatuses(revision)) {
        const [code, status] = pair.split(":").map(Number);
        statuses.set(code, status);
      }
      const notFound = errorCode(revision, "METHOD_NOT_FOUND");
      if (notFound !== undefined) statuses.set(notFound, unknownMethodHttpStatus(revision));
      const nameSources = new Map<string, string>();
      for (const pair of nameHeaderSources(revision)) {
        const i = pair.lastIndexOf(":");
        nameSources.set(pair.slice(0, i), pair.slice(i + 1));
      }
      r = {
        versionHeader: hasHeader(revision, "MCP-Protocol-Version"),
        methodHeader: hasHeader(revision, "Mcp-Method"),
        paramHeaders: hasHeader(revision, "Mcp-Param-X"),
        nameSources,
        statuses,
      };
      this.rulesCache.set(revision, r);
    }
    return r;
  }

  /** The HTTP status of a response message under `revision`'s rules (errors the spec gives a status; else 200). */
  statusFor(message: JsonRpcMessage | JsonRpcMessage[], revision: Revision): number {
    if (Array.isArray(message) || !("error" in message)) return 200;
    // An error without an id answers a message the server could not accept (no id could be read, a rejected batch,
    // an invalid notification): an HTTP error status. spec/2025-11-25/basic/transports.mdx#sending-messages-to-the-server,
    // spec/2026-07-28/basic/transports/streamable-http.mdx#sending-messages-to-the-server
    if (message.id === undefined || message.id === null) return 400;
    return this.rules(revision).statuses.get((message as { error: { code: number } }).error.code) ?? 200;
  }

  // ---- responses that never reach a Connection ----

  private reject(res: ServerResponse, status: number, code: number, message: string, id?: RequestId | null, revision = this.fallback, headers?: Headers): void {
    if (res.headersSent || res.destroyed) return;
    const body = JSON.stringify(this.root.errorResponse(id ?? null, code, message, undefined, revision));
    if (headers) for (const k in headers) res.setHeader(k, headers[k]);
    res.statusCode = status;
    res.setHeader("content-type", "application/json");
    res.end(body);
  }

  private invalidRequest(res: ServerResponse, status: number, message: string, id?: RequestId | null, headers?: Headers): void {
    this.reject(res, status, errorCode(this.fallback, "INVALID_REQUEST")!, message, id, this.fallback, headers);
  }

  startSse(res: ServerResponse, status: number, session?: LegacyHttpSession): void {
    if (session) res.setHeader("mcp-session-id", session.id);
    res.writeHead(status, SSE_HEADERS);
    res.flushHeaders();
    this.streams.add(res);
  }

  untrack(res: ServerResponse): void {
    this.streams.delete(res);
  }

  register(session: LegacyHttpSession, res: ServerResponse): void {
    if (session.connection.session === undefined) {
      // The handshake failed: no session.
      session.connection.close();
      return;
    }
    session.registered = true;
    this.sessions.set(session.id, session);
    res.setHeader("mcp-session-id", session.id);
  }

  // ---- security ----

  private originAllowed(origin: string): boolean {
    let ok = this.originCache.get(origin);
    if (ok !== undefined) return ok;
    const allowed = this.options.allowedOrigins;
    if (typeof allowed === "function") ok = allowed(origin);
    else if (allowed) ok = allowed.includes("*") || allowed.includes(origin);
    else {
      try {
        const u = new URL(origin);
        ok = (u.protocol === "http:" || u.protocol === "https:") && LOOPBACK_NAMES.has(u.hostname.toLowerCase());
      } catch {
        ok = false;
      }
    }
    if (this.originCache.size < 1024) this.originCache.set(origin, ok);
    return ok;
  }

  private hostAllowed(host: string | undefined): boolean {
    const names = this.hostNames;
    if (!names) return true;
    if (!host) return false;
    let ok = this.hostCache.get(host);
    if (ok !== undefined) return ok;
    const h = host.toLowerCase();
    let name = h;
    let port: string | undefined;
    if (h.startsWith("[")) {
      const end = h.indexOf("]");
      name = h.slice(0, end + 1);
      const rest = h.slice(end + 1);
      if (rest) port = rest.startsWith(":") ? rest.slice(1) : "invalid";
    } else {
      const i = h.lastIndexOf(":");
      if (i >= 0) {
        name = h.slice(0, i);
        port = h.slice(i + 1);
      }
    }
    ok = names.has(h) || (names.has(name) && (port === undefined || port === String(this.port)));
    if (this.hostCache.size < 1024) this.hostCache.set(host, ok);
    return ok;
  }

  // ---- routing ----

  private handle(req: IncomingMessage, res: ServerResponse): void {
    req.on("error", noop);
    try {
      this.route(req, res);
    } catch (err) {
      this.internalError(res, err);
    }
  }

  private internalError(res: ServerResponse, err: unknown): void {
    process.stderr.write(`mcp runtime: ${String((err as Error)?.stack ?? err)}\n`);
    if (!res.headersSent && !res.destroyed) this.reject(res, 500, errorCode(this.fallback, "INTERNAL_ERROR")!, "Internal error");
    else if (!res.writableEnded) res.end();
  }

  private route(req: IncomingMessage, res: ServerResponse): void {
    const headers = req.headers;
    let url = req.url ?? "/";
    let authority = headers.host;
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
    if (!this.hostAllowed(authority)) return this.invalidRequest(res, 403, `Forbidden: Host ${JSON.stringify(authority ?? "")} is not allowed`);
    const origin = headers.origin;
    if (origin !== undefined) {
      if (!this.originAllowed(origin)) return this.invalidRequest(res, 403, `Forbidden: Origin ${JSON.stringify(origin)} is not allowed`);
      res.setHeader("access-control-allow-origin", origin);
      res.setHeader("vary", "Origin");
      res.setHeader("access-control-expose-headers", "mcp-session-id");
    }
    const q = url.indexOf("?");
    const pathname = q < 0 ? url : url.slice(0, q);
    if (pathname === this.path) {
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
    if (this.options.legacySse) {
      if (pathname === (this.options.ssePath ?? "/sse") && req.method === "GET") return this.openSse(req, res);
      if (pathname === (this.options.messagesPath ?? "/messages") && req.method === "POST") {
        return this.ssePost(req, res, url.slice(q + 1));
      }
    }
    this.invalidRequest(res, 404, `Not Found: ${pathname}`);
  }

  private preflight(req: IncomingMessage, res: ServerResponse): void {
    res.setHeader("access-control-allow-methods", "GET, POST, DELETE");
    const asked = one(req.headers["access-control-request-headers"]);
    res.setHeader("access-control-allow-headers", asked ?? "content-type, accept, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id");
    res.setHeader("access-control-max-age", "600");
    res.writeHead(204).end();
  }

  /**
   * Read the body within the limit, then `done(body)`. Past the limit: 413 with a JSON-RPC body and
   * `connection: close`, sent once the client has finished sending (so it reads the 413, not a reset);
   * an endless body is cut off.
   */
  private readBody(req: IncomingMessage, res: ServerResponse, done: (body: Buffer) => void): void {
    const limit = this.maxBody;
    if (Number(req.headers["content-length"]) > limit) return this.tooLarge(req, res);
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        first = more = undefined;
        return this.tooLarge(req, res);
      }
      if (first === undefined) first = c;
      else (more ??= [first]).push(c);
    });
    req.on("end", () => {
      if (size <= limit) done(more ? Buffer.concat(more) : (first ?? EMPTY));
    });
  }

  private tooLarge(req: IncomingMessage, res: ServerResponse): void {
    const limit = this.maxBody;
    let answered = false;
    const answer = () => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      this.invalidRequest(res, 413, `Payload Too Large: the body exceeds ${limit} bytes`, null, { connection: "close" });
    };
    const timer = setTimeout(() => {
      answer();
      req.destroy();
    }, 10_000);
    timer.unref();
    let drained = 0;
    const cap = Math.max(64 * 1024 * 1024, limit * 4);
    req.removeAllListeners("data");
    req.removeAllListeners("end");
    req.on("data", (c: Buffer) => {
      drained += c.length;
      if (drained > cap && !answered) {
        answer();
        res.once("finish", () => req.destroy());
      }
    });
    req.on("end", answer);
    req.resume();
  }

  /** Content-Type, Accept, body and JSON: the checks every POST passes before its era matters. */
  private readJson(req: IncomingMessage, res: ServerResponse, accept: Accept, done: (value: unknown) => void): void {
    if (!isJsonType(req.headers["content-type"])) return this.invalidRequest(res, 415, "Unsupported Media Type: Content-Type must be application/json");
    if (!accept.json && !accept.sse) return this.invalidRequest(res, 406, "Not Acceptable: Accept must allow application/json or text/event-stream");
    this.readBody(req, res, (body) => {
      let value: unknown;
      try {
        value = JSON.parse(body.toString("utf8"));
      } catch (err) {
        return this.reject(res, 400, errorCode(this.fallback, "PARSE_ERROR")!, `Parse error: ${(err as Error).message}`);
      }
      try {
        done(value);
      } catch (err) {
        this.internalError(res, err);
      }
    });
  }

  private post(req: IncomingMessage, res: ServerResponse): void {
    const accept = parseAccept(req.headers.accept);
    this.readJson(req, res, accept, (value) => {
      if (!Array.isArray(value) && !isObject(value)) return this.invalidRequest(res, 400, "Invalid Request: the body must be a JSON-RPC message");
      // The era, from the body first: a _meta protocol version means modern; initialize or a session id means legacy.
      if (!this.servesLegacy || (!Array.isArray(value) && this.isModernPost(value, req.headers))) return this.modernPost(req, res, value as Record<string, unknown>, accept);
      this.legacyPost(req, res, value, accept);
    });
  }

  private isModernPost(msg: Record<string, unknown>, headers: IncomingHttpHeaders): boolean {
    const params = msg.params;
    const meta = isObject(params) ? params._meta : undefined;
    if (isObject(meta) && META_PROTOCOL_VERSION in meta) return true;
    if (headers["mcp-session-id"] !== undefined || msg.method === "initialize") return false;
    // No body claim and no legacy marker: the headers only a modern client sends (its request then fails validation, e.g. -32602 for the missing _meta).
    const version = one(headers["mcp-protocol-version"]);
    if (version !== undefined) return !(isRevision(version) && isLegacy(version));
    return headers["mcp-method"] !== undefined;
  }

  // ---- modern ----

  private modernPost(req: IncomingMessage, res: ServerResponse, msg: Record<string, unknown>, accept: Accept): void {
    const headers = req.headers;
    const hasId = "id" in msg;
    if (typeof msg.method !== "string" || !hasId) {
      // A notification is accepted (none is defined for this transport); a client MUST NOT send responses.
      if (typeof msg.method === "string") return void res.writeHead(202).end();
      return this.invalidRequest(res, 400, "Invalid Request: a client sends only requests and notifications", isId(msg.id) ? msg.id : null, undefined);
    }
    const id = isId(msg.id) ? msg.id : null;
    const params = isObject(msg.params) ? msg.params : undefined;
    const meta = params && isObject(params._meta) ? params._meta : undefined;
    const metaVersion = meta?.[META_PROTOCOL_VERSION];
    const revision = isRevision(metaVersion) && isModern(metaVersion) ? metaVersion : this.newestModern;
    const rules = this.rules(revision);
    const mismatch = errorCode(revision, "HEADER_MISMATCH") ?? errorCode(revision, "INVALID_REQUEST")!;
    // The validation order: header missing (-32020), _meta missing (-32602), headers ≠ body (-32020); then the
    // Connection: unsupported version (-32022), unknown method (-32601). spec/2026-07-28/basic/transports/streamable-http.mdx#server-validation
    const versionHeader = one(headers["mcp-protocol-version"]);
    if (rules.versionHeader && versionHeader === undefined) return this.reject(res, 400, mismatch, "Header mismatch: the MCP-Protocol-Version header is required", id, revision);
    if (typeof metaVersion !== "string" || !isObject(meta![META_CLIENT_CAPABILITIES])) {
      const missing = typeof metaVersion !== "string" ? META_PROTOCOL_VERSION : META_CLIENT_CAPABILITIES;
      return this.reject(res, 400, errorCode(revision, "INVALID_PARAMS")!, `Invalid params: _meta["${missing}"] is required`, id, revision);
    }
    const wrong = this.headerMismatch(rules, headers, msg.method, params!, versionHeader, metaVersion);
    if (wrong) return this.reject(res, 400, mismatch, `Header mismatch: ${wrong}`, id, revision);
    // A listen is answered by an event stream (spec/2026-07-28/basic/patterns/subscriptions.mdx): a client that
    // accepts only JSON could never receive its acknowledgement or events.
    if (msg.method === LISTEN_METHOD && !accept.sse) return this.invalidRequest(res, 406, "Not Acceptable: subscriptions/listen answers with text/event-stream", id);

    const exchange = new Exchange(this, res, accept, revision);
    const connection = this.modernPool.pop() ?? new Connection(this.server, NULL_SINK, MODERN);
    exchange.connection = connection;
    res.once("close", () => exchange.closed());
    connection.receive(msg, exchange).then(
      () => {
        exchange.done();
        // Back to the pool only once nothing of this request runs on it (a disconnect aborted it, or it finished).
        if (this.modernPool.length < 256 && !this.closing) this.modernPool.push(connection);
        else connection.close();
      },
      (err) => {
        connection.close();
        this.internalError(res, err);
      },
    );
  }

  /** Why the mirrored headers disagree with the body, or undefined. */
  private headerMismatch(rules: HttpRules, headers: IncomingHttpHeaders, method: string, params: Record<string, unknown>, versionHeader: string | undefined, metaVersion: string): string | undefined {
    if (rules.versionHeader && versionHeader !== metaVersion) return `MCP-Protocol-Version header value '${versionHeader}' does not match body value '${metaVersion}'`;
    if (rules.methodHeader) {
      const h = one(headers["mcp-method"]);
      if (h === undefined) return "the Mcp-Method header is required";
      if (h !== method) return `Mcp-Method header value '${h}' does not match body value '${method}'`;
    }
    const field = rules.nameSources.get(method);
    if (field !== undefined) {
      const body = params[field];
      const raw = one(headers["mcp-name"]);
      if (typeof body === "string") {
        if (raw === undefined) return "the Mcp-Name header is required";
        const decoded = decodeHeaderValue(raw);
        if (decoded === undefined) return "the Mcp-Name header value is malformed";
        if (decoded !== body) return `Mcp-Name header value '${raw}' does not match body value '${body}'`;
      }
    }
    if (rules.paramHeaders && typeof params.name === "string") {
      const tool = this.server.tools.get(params.name);
      if (tool) {
        let declared = this.toolHeaders.get(tool);
        if (!declared) this.toolHeaders.set(tool, (declared = headerParams(tool.inputSchema)));
        for (const p of declared) {
          const value = valueAt(params.arguments, p.path);
          const raw = one(headers[p.header]);
          // No value in the body: the header is not expected, and one that is sent matches nothing (an intermediary
          // could route on a value the server never executes).
          if (value === undefined || value === null) {
            if (raw !== undefined) return `Mcp-Param-${p.name} header is present but the body has no value at ${p.path.join(".")}`;
            continue;
          }
          if (primitiveHeaderText(value) === undefined) continue;
          if (raw === undefined) return `the Mcp-Param-${p.name} header is required (the body carries ${p.path.join(".")})`;
          const decoded = decodeHeaderValue(raw);
          if (decoded === undefined) return `the Mcp-Param-${p.name} header value is malformed`;
          if (!headerMatches(decoded, value)) return `Mcp-Param-${p.name} header value '${raw}' does not match body value ${JSON.stringify(value)}`;
        }
      }
    }
    return undefined;
  }

  // ---- legacy Streamable HTTP ----

  /** A MCP-Protocol-Version header on a legacy request must name a served legacy revision; absent, the session's version holds. */
  private legacyVersionRejected(res: ServerResponse, headers: IncomingHttpHeaders, id: RequestId | null): boolean {
    const v = one(headers["mcp-protocol-version"]);
    if (v === undefined || (isRevision(v) && isLegacy(v) && this.server.revisions.includes(v))) return false;
    this.invalidRequest(res, 400, `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(v)} (supported: ${this.server.eras.legacy.join(", ")})`, id);
    return true;
  }

  private session(res: ServerResponse, headers: IncomingHttpHeaders, id: RequestId | null): LegacyHttpSession | undefined {
    const sid = one(headers["mcp-session-id"])!;
    const s = this.sessions.get(sid);
    if (!s) this.invalidRequest(res, 404, "Not Found: unknown or terminated session; send initialize to start a new one", id);
    return s;
  }

  private legacyPost(req: IncomingMessage, res: ServerResponse, value: unknown, accept: Accept): void {
    const headers = req.headers;
    const id = isObject(value) && isId(value.id) ? value.id : null;
    let session: LegacyHttpSession | undefined;
    let minting: LegacyHttpSession | undefined;
    if (headers["mcp-session-id"] !== undefined) {
      session = this.session(res, headers, id);
      if (!session) return;
      if (this.legacyVersionRejected(res, headers, id)) return;
    } else if (isObject(value) && value.method === "initialize") {
      if (this.sessions.size >= (this.options.maxSessions ?? 10_000)) return this.invalidRequest(res, 503, "Service Unavailable: too many sessions", id);
      // 2024-11-05 had no Streamable HTTP; a client that negotiates it here still needs its state kept, so every
      // successful initialize gets a session. The id is cryptographically random, visible ASCII.
      session = minting = new LegacyHttpSession(this, randomBytes(24).toString("base64url"));
    } else {
      return this.invalidRequest(res, 400, "Bad Request: the Mcp-Session-Id header is required (send initialize first)", id);
    }
    session.lastSeen = Date.now();
    session.active++;
    const revision = session.connection.session?.revision ?? this.server.eras.legacy.at(-1)!;
    const exchange = new Exchange(this, res, accept, revision, session);
    exchange.minting = minting;
    const isRequest = (m: unknown) => isObject(m) && typeof m.method === "string" && "id" in m;
    exchange.request = Array.isArray(value) ? value.some(isRequest) : isRequest(value);
    exchange.connection = session.connection;
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

  private get(req: IncomingMessage, res: ServerResponse): void {
    const headers = req.headers;
    // No session: nothing to stream (the modern era has no GET stream). spec/2026-07-28/basic/transports/streamable-http.mdx#backward-compatibility
    if (headers["mcp-session-id"] === undefined || !this.servesLegacy) {
      return this.invalidRequest(res, 405, "Method Not Allowed: GET needs a legacy session (Mcp-Session-Id)", null, { allow: "POST" });
    }
    const session = this.session(res, headers, null);
    if (!session) return;
    if (!parseAccept(headers.accept).sse) return this.invalidRequest(res, 406, "Not Acceptable: a GET stream needs Accept: text/event-stream");
    if (this.legacyVersionRejected(res, headers, null)) return;
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

  private delete(req: IncomingMessage, res: ServerResponse): void {
    const headers = req.headers;
    if (headers["mcp-session-id"] === undefined || !this.servesLegacy) {
      return this.invalidRequest(res, 405, "Method Not Allowed: DELETE needs a legacy session (Mcp-Session-Id)", null, { allow: "POST" });
    }
    const session = this.session(res, headers, null);
    if (!session) return;
    if (this.legacyVersionRejected(res, headers, null)) return;
    this.sessions.delete(session.id);
    session.terminate();
    res.writeHead(200).end();
  }

  // ---- HTTP+SSE (2024-11-05, deprecated) ----

  private openSse(req: IncomingMessage, res: ServerResponse): void {
    if (!parseAccept(req.headers.accept).sse) return this.invalidRequest(res, 406, "Not Acceptable: the SSE endpoint needs Accept: text/event-stream");
    const id = randomBytes(24).toString("base64url");
    const session = new SseSession(this.server, res);
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

  private ssePost(req: IncomingMessage, res: ServerResponse, query: string): void {
    const id = new URLSearchParams(query).get("sessionId") ?? "";
    const session = this.sseSessions.get(id);
    if (!session) return this.invalidRequest(res, 404, "Not Found: unknown or closed SSE session");
    this.readJson(req, res, ANY, (value) => {
      res.writeHead(202).end("Accepted");
      session.connection.receive(value).catch((err) => process.stderr.write(`mcp runtime: ${String((err as Error)?.stack ?? err)}\n`));
    });
  }
}

/** Serve `server` over Streamable HTTP (and, with `legacySse`, HTTP+SSE). Resolves once listening. */
export function serveHttp(server: McpServer, options: HttpOptions = {}): Promise<HttpHandle> {
  return new HttpTransport(server, options).listen();
}
