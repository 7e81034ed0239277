/**
 * HTTP client transports for `McpClient` (client.ts): Streamable HTTP for both
 * eras, and the deprecated HTTP+SSE transport of 2024-11-05. SSE is parsed by
 * `eventsource-parser`. Every message is delivered with the HTTP status and
 * headers of the response that carried it (`Delivery`), so tests can check them.
 *
 * Modern (2026-07-28): every POST carries MCP-Protocol-Version, Mcp-Method and,
 * where the revision says so, Mcp-Name and the Mcp-Param-* headers of tool
 * parameters annotated `x-mcp-header` (learned from tools/list results).
 * Legacy: the Mcp-Session-Id from the initialize response is sent back on every
 * request, with MCP-Protocol-Version where the revision defines that header.
 *
 * spec/2026-07-28/basic/transports/streamable-http.mdx, spec/2025-11-25/basic/transports.mdx#streamable-http,
 * spec/2024-11-05/basic/transports.mdx#http-with-sse
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { ClientTransport, Delivery } from "./client.js";
import { encodeHeaderValue, headerParams, primitiveHeaderText, valueAt, type HeaderParam } from "../wire/headers.js";
import type { JsonRpcMessage } from "../wire/jsonrpc.js";
import { type Revision, hasHeader, nameHeaderSources } from "../rules.js";
import { isObject } from "../wire/jsonrpc.js";

type Route = Parameters<ClientTransport["send"]>[1];
type EventSourceMessage = { event?: string; id?: string; data: string };
type Parser = { feed(chunk: string): void };

type ParserCallbacks = { onEvent(e: EventSourceMessage): void; onRetry?(ms: number): void };
let parserModule: Promise<{ createParser(config: ParserCallbacks): Parser }> | undefined;
/** eventsource-parser, loaded on first use (a server that never acts as a client never loads it). */
function createParser(callbacks: ParserCallbacks): Promise<Parser> {
  parserModule ??= import("eventsource-parser") as never;
  return parserModule.then((m) => m.createParser(callbacks));
}

/** What a client follows of an SSE stream to resume it: the last event id and the server's `retry` delay. */
interface StreamCursor {
  lastEventId?: string;
  retryMs: number;
}

/** Resumption attempts of one request's stream before giving up on its response. */
const MAX_RESUMES = 10;

export interface HttpClientOptions {
  /** Extra headers on every request (e.g. Authorization, Origin). */
  headers?: Record<string, string>;
  /** Legacy: open the session's GET stream after notifications/initialized, for unsolicited server messages. Default false. */
  openGetStream?: boolean;
}

function headersOf(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => (out[k] = v));
  return out;
}

/**
 * Read an SSE body, calling `onMessage` for every JSON `message` event (and `onEvent` for every event); `cursor`
 * follows event ids and `retry` for a resumption. Events with empty data (a priming event) carry no message.
 */
async function readSse(res: Response, onMessage: (m: unknown) => void, onEvent?: (e: EventSourceMessage) => void, cursor?: StreamCursor): Promise<void> {
  if (!res.body) return;
  const onRetry = cursor && ((ms: number) => (cursor.retryMs = ms));
  const parser = await createParser({
    onRetry,
    onEvent: (e) => {
      if (cursor && e.id) cursor.lastEventId = e.id;
      onEvent?.(e);
      if ((e.event === undefined || e.event === "message") && e.data) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(e.data);
        } catch {
          return;
        }
        onMessage(parsed);
      }
    },
  });
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } catch {
    // Aborted or reset: the stream is over.
  } finally {
    reader.releaseLock();
  }
}

/** Streamable HTTP, both eras. */
export class StreamableHttpClientTransport implements ClientTransport {
  readonly kind = "http";
  onmessage?: (message: JsonRpcMessage, delivery?: Delivery) => void;
  onclose?: () => void;
  /** Legacy: the session id the server minted at initialize. */
  sessionId?: string;
  /** Legacy: the revision negotiated (from the initialize result). */
  protocolVersion?: string;
  private readonly controllers = new Set<AbortController>();
  private readonly toolHeaders = new Map<string, HeaderParam[]>();
  /** Modern tools/list requests in flight, by id: their results teach the x-mcp-header annotations. */
  private readonly listing = new Set<unknown>();
  private getStream?: AbortController;
  private closed = false;

  constructor(
    readonly url: URL | string,
    readonly options: HttpClientOptions = {},
  ) {}

  private headersFor(message: JsonRpcMessage | JsonRpcMessage[], route: Route): Record<string, string> {
    const h: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream", ...this.options.headers };
    const single = Array.isArray(message) ? undefined : (message as unknown as Record<string, unknown>);
    const method = route.method ?? (typeof single?.method === "string" ? single.method : undefined);
    const revision = route.revision as Revision | undefined;
    if (route.modern && revision) {
      if (hasHeader(revision, "MCP-Protocol-Version")) h["mcp-protocol-version"] = revision;
      if (method !== undefined && hasHeader(revision, "Mcp-Method")) h["mcp-method"] = method;
      const params = isObject(single?.params) ? single.params : undefined;
      const source = nameHeaderSources(revision).find((p) => p.startsWith(`${method}:`));
      const field = source?.slice(source.lastIndexOf(":") + 1);
      const name = field !== undefined ? params?.[field] : undefined;
      if (typeof name === "string") h["mcp-name"] = encodeHeaderValue(name);
      if (typeof params?.name === "string" && hasHeader(revision, "Mcp-Param-X")) {
        for (const p of this.toolHeaders.get(params.name) ?? []) {
          const text = primitiveHeaderText(valueAt(params.arguments, p.path));
          if (text !== undefined) h[`mcp-param-${p.name}`] = encodeHeaderValue(text);
        }
      }
    } else if (!route.modern) {
      if (this.sessionId) h["mcp-session-id"] = this.sessionId;
      const version = this.protocolVersion ?? (method === "initialize" ? undefined : revision);
      if (version && method !== "initialize" && hasHeader(version as Revision, "MCP-Protocol-Version")) h["mcp-protocol-version"] = version;
    }
    return h;
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[], route: Route): Promise<void> {
    if (this.closed) throw new Error("transport closed");
    const single = Array.isArray(message) ? undefined : (message as unknown as Record<string, unknown>);
    if (route.modern && single?.method === "tools/list") this.listing.add(single.id);
    const controller = new AbortController();
    this.controllers.add(controller);
    try {
      const res = await fetch(this.url, { method: "POST", headers: this.headersFor(message, route), body: JSON.stringify(message), signal: controller.signal });
      const delivery: Delivery = { status: res.status, headers: headersOf(res) };
      const sid = res.headers.get("mcp-session-id");
      if (sid && !route.modern && single?.method === "initialize" && res.ok) this.sessionId = sid;
      const type = res.headers.get("content-type") ?? "";
      if (res.status === 202 || res.status === 204) {
        await res.body?.cancel();
        if (single?.method === "notifications/initialized" && this.options.openGetStream) this.openGetStream();
        return;
      }
      if (type.startsWith("text/event-stream")) {
        // Read the stream in the background: the response (and what precedes it) arrives as events.
        const id = single && "method" in single && "id" in single ? single.id : undefined;
        void this.readRequestStream(res, delivery, id, route, controller.signal).finally(() => this.controllers.delete(controller));
        return;
      }
      const text = await res.text();
      this.controllers.delete(controller);
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      if (body === undefined || (!isObject(body) && !Array.isArray(body))) {
        if (single && "id" in single && !("result" in single) && !("error" in single)) throw new Error(`HTTP ${res.status} without a JSON-RPC body: ${text.slice(0, 200)}`);
        if (!res.ok) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
        return;
      }
      // An error without an id (a transport-level rejection) belongs to the request just sent.
      if (isObject(body) && "error" in body && body.id === undefined && single && "id" in single) body = { ...body, id: single.id };
      if (isObject(body) && "error" in body && body.id === null && single && "id" in single) body = { ...body, id: single.id };
      this.deliver(body, delivery);
    } catch (err) {
      this.controllers.delete(controller);
      if (controller.signal.aborted) return;
      throw err;
    }
  }

  /**
   * A request's SSE stream. Legacy: if it ends before the request's response after events with ids (the server
   * closed the connection, SSE polling, or the network dropped it), wait the server's `retry` delay and resume it
   * with GET and Last-Event-ID, until the response arrives. spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery
   */
  private async readRequestStream(res: Response, delivery: Delivery, id: unknown, route: Route, signal: AbortSignal): Promise<void> {
    let answered = id === undefined;
    const onMessage = (m: unknown) => {
      if (isObject(m) && m.id === id && ("result" in m || "error" in m)) answered = true;
      this.deliver(m, delivery);
    };
    const cursor: StreamCursor = { retryMs: 1000 };
    await readSse(res, onMessage, undefined, cursor);
    for (let attempt = 0; !answered && !route.modern && cursor.lastEventId !== undefined && this.sessionId && attempt < MAX_RESUMES; attempt++) {
      try {
        await sleep(cursor.retryMs, undefined, { signal });
        const resumed = await fetch(this.url, { method: "GET", headers: this.streamHeaders(this.sessionId, { "last-event-id": cursor.lastEventId }), signal });
        if (!resumed.ok || !(resumed.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
          await resumed.body?.cancel();
          return;
        }
        await readSse(resumed, onMessage, undefined, cursor);
      } catch {
        return; // closed, or the server is gone
      }
    }
  }

  private deliver(value: unknown, delivery: Delivery): void {
    for (const m of Array.isArray(value) ? value : [value]) {
      if (!isObject(m)) continue;
      if ("result" in m && this.listing.delete(m.id)) this.learnTools(m.result);
      if ("result" in m && isObject(m.result) && typeof m.result.protocolVersion === "string" && isObject(m.result.serverInfo)) this.protocolVersion = m.result.protocolVersion;
      this.onmessage?.(m as unknown as JsonRpcMessage, delivery);
    }
  }

  /** Remember the x-mcp-header annotations of listed tools (a tool with a malformed annotation still gets the valid ones). */
  private learnTools(result: unknown): void {
    if (!isObject(result) || !Array.isArray(result.tools)) return;
    for (const t of result.tools) if (isObject(t) && typeof t.name === "string") this.toolHeaders.set(t.name, headerParams(t.inputSchema));
  }

  /** Headers of a legacy GET on the session's endpoint (a new stream, or a resumption with Last-Event-ID). */
  private streamHeaders(sessionId: string, extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { accept: "text/event-stream", "mcp-session-id": sessionId, ...extra, ...this.options.headers };
    if (this.protocolVersion && hasHeader(this.protocolVersion as Revision, "MCP-Protocol-Version")) headers["mcp-protocol-version"] = this.protocolVersion;
    return headers;
  }

  /** Legacy: open the session's GET stream (server→client messages outside any request). */
  openGetStream(): void {
    if (!this.sessionId || this.getStream || this.closed) return;
    const controller = (this.getStream = new AbortController());
    void fetch(this.url, { method: "GET", headers: this.streamHeaders(this.sessionId), signal: controller.signal })
      .then((res) => {
        if (!res.ok) return void res.body?.cancel();
        return readSse(res, (m) => this.deliver(m, { status: res.status, headers: headersOf(res) }));
      })
      .catch(() => undefined)
      .finally(() => {
        if (this.getStream === controller) this.getStream = undefined;
      });
  }

  /** Legacy: end the session (DELETE). */
  async terminateSession(): Promise<number | undefined> {
    if (!this.sessionId) return undefined;
    const res = await fetch(this.url, { method: "DELETE", headers: { "mcp-session-id": this.sessionId, ...this.options.headers } });
    await res.body?.cancel();
    this.sessionId = undefined;
    return res.status;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.getStream?.abort();
    for (const c of this.controllers) c.abort();
    this.controllers.clear();
    try {
      await this.terminateSession();
    } catch {
      // The server is gone already.
    }
    this.onclose?.();
  }
}

/** The deprecated HTTP+SSE transport (2024-11-05): GET the SSE endpoint, POST to the URL its `endpoint` event names. */
export class SseClientTransport implements ClientTransport {
  readonly kind = "http";
  onmessage?: (message: JsonRpcMessage, delivery?: Delivery) => void;
  onclose?: () => void;
  /** The POST URL from the `endpoint` event. */
  endpoint?: URL;
  private ready?: Promise<URL>;
  private readonly stream = new AbortController();
  private closed = false;

  constructor(
    readonly url: URL | string,
    readonly options: Pick<HttpClientOptions, "headers"> = {},
  ) {}

  /** Open the SSE stream; resolves with the POST endpoint. */
  start(): Promise<URL> {
    this.ready ??= new Promise<URL>((resolve, reject) => {
      fetch(this.url, { method: "GET", headers: { accept: "text/event-stream", ...this.options.headers }, signal: this.stream.signal })
        .then((res) => {
          if (!res.ok) {
            void res.body?.cancel();
            return reject(new Error(`SSE endpoint answered HTTP ${res.status}`));
          }
          const delivery: Delivery = { status: res.status, headers: headersOf(res) };
          return readSse(
            res,
            (m) => isObject(m) && this.onmessage?.(m as unknown as JsonRpcMessage, delivery),
            (e) => {
              if (e.event === "endpoint") resolve((this.endpoint = new URL(e.data, this.url)));
            },
          ).then(() => {
            reject(new Error("SSE stream ended before the endpoint event"));
            if (!this.closed) this.onclose?.();
          });
        })
        .catch(reject);
    });
    return this.ready;
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.closed) throw new Error("transport closed");
    const endpoint = await this.start();
    const res = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json", ...this.options.headers }, body: JSON.stringify(message) });
    const text = await res.text();
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stream.abort();
    this.onclose?.();
  }
}
