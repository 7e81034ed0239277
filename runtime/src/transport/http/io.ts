/**
 * The two faces of one HTTP exchange as the endpoint sees them, whatever serves it: `node:http` (serveHttp,
 * nodeHandler) or a web-standard `fetch` handler (Workers, Deno, Bun, Hono). `Reply` is the subset of Node's
 * `ServerResponse` the endpoint uses, so a ServerResponse is one as it is (no wrapper on the Node path); `FetchReply`
 * implements it over a `Response` whose body is a `ReadableStream`.
 */

/** Request headers by lower-case name (Node's IncomingHttpHeaders shape). */
export type HeaderBag = Record<string, string | string[] | undefined>;

/** The request side: method, target, headers and a bounded body read. */
export interface Incoming {
  method: string;
  /** The request target: origin-form (`/mcp?x`) or absolute-form (`http://host/mcp`). */
  url: string;
  headers: HeaderBag;
  /**
   * Read the body, at most `limit` bytes: `done(body)`, or `tooLarge()` once the endpoint may answer 413 (a Node
   * client is let finish sending first, so it reads the 413 and not a reset).
   */
  readBody(limit: number, done: (body: Uint8Array) => void, tooLarge: () => void, failed: (err: unknown) => void): void;
  /** A body a framework already parsed (Express's `express.json()`, Fastify): used instead of reading the stream. */
  parsedBody?: unknown;
  /** A framework already read the body as text or bytes (`express.text()`, `express.raw()`), and inflated a coded one. */
  readByFramework?: boolean;
  /** The socket's remote address, where the platform gives it (node:http): the default caller of the quotas (HttpLimits). */
  remoteAddress?: string;
  /**
   * The platform kept only some of the request's header fields in `headers` (node:http keeps the first
   * `maxHeadersCount`, 2000 names and values by default): the endpoint cannot check what it does not see (an Origin
   * after the cut would pass the Origin check), so such a request is refused (431).
   */
  headersCut?: boolean;
  /** The connection the request came on, where the platform has one (node:http: its socket): a key for per-connection memos. */
  connection?: object;
}

/** The response side: the subset of Node's ServerResponse the endpoint writes with. */
export interface Reply {
  statusCode: number;
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  removeHeader(name: string): unknown;
  writeHead(status: number, headers?: Record<string, string>): Reply;
  flushHeaders(): void;
  write(chunk: string): unknown;
  end(chunk?: string): unknown;
  /** Bytes written and not yet taken by the client (Node: the response's and its socket's buffers). */
  readonly writableLength?: number;
  /** Drop the response and its connection at once, whatever is still queued (a client that does not read). */
  destroy?(): unknown;
  /** "close": finished, or the client went away first. */
  once(event: "close" | "finish", listener: () => void): unknown;
}

const encoder = new TextEncoder();

/** A reply and its request, to watch the request's signal later (fetch.ts); emptied when the reply ends. */
export type WatchLater = { reply?: FetchReply; request?: Request };

/**
 * A Reply that becomes a web-standard Response: one with a whole body when the endpoint ends before writing, else a
 * streaming one (SSE) whose body is a ReadableStream fed by `write`. A client that goes away (the request's signal,
 * or the stream cancelled) makes it `destroyed` and fires "close".
 */
export class FetchReply implements Reply {
  statusCode = 200;
  headersSent = false;
  destroyed = false;
  writableEnded = false;
  readonly response: Promise<Response>;
  /** By lower-case name; a plain object is the fast path of adapters' Response (e.g. @hono/node-server's). */
  private readonly headers: Record<string, string> = {};
  private resolve!: (response: Response) => void;
  private controller?: ReadableStreamDefaultController<Uint8Array>;
  private readonly listeners: { close: (() => void)[]; finish: (() => void)[] } = { close: [], finish: [] };
  private later?: WatchLater;

  constructor() {
    this.response = new Promise((r) => (this.resolve = r));
  }

  /**
   * Watch the request's signal: the client going away (or gone already: an aborted signal fires no event) makes this
   * reply gone. Called only for replies still open a moment after their request arrived (see fetch.ts): touching
   * `request.signal` costs adapters such as @hono/node-server an AbortController per request.
   */
  watch(signal: AbortSignal): void {
    this.later = undefined;
    if (this.writableEnded || this.destroyed) return;
    if (signal.aborted) this.gone();
    else signal.addEventListener("abort", () => this.gone(), { once: true });
  }

  /** This reply and `request` until the reply ends (then emptied, so that neither is kept alive by the holder). */
  watchLater(request: Request): WatchLater {
    return (this.later = { reply: this, request });
  }

  setHeader(name: string, value: string | number | readonly string[]): this {
    this.headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
    return this;
  }

  removeHeader(name: string): this {
    delete this.headers[name.toLowerCase()];
    return this;
  }

  writeHead(status: number, headers?: Record<string, string>): this {
    this.statusCode = status;
    if (headers) for (const k in headers) this.headers[k.toLowerCase()] = headers[k];
    return this;
  }

  flushHeaders(): void {
    this.open();
  }

  write(chunk: string): boolean {
    if (this.writableEnded || this.destroyed) return false;
    this.open();
    try {
      this.controller!.enqueue(encoder.encode(chunk));
    } catch {
      this.gone();
    }
    return true;
  }

  end(chunk?: string): this {
    if (this.writableEnded) return this;
    this.writableEnded = true;
    if (!this.headersSent) {
      this.headersSent = true;
      // null, not "", for statuses that have no body (202, 204).
      this.resolve(new Response(chunk === undefined || chunk === "" ? null : chunk, { status: this.statusCode, headers: this.headers }));
    } else if (!this.destroyed) {
      try {
        if (chunk) this.controller!.enqueue(encoder.encode(chunk));
        this.controller!.close();
      } catch {
        /* the client cancelled the stream meanwhile */
      }
    }
    this.emit("finish");
    this.emit("close");
    return this;
  }

  once(event: "close" | "finish", listener: () => void): this {
    this.listeners[event].push(listener);
    return this;
  }

  /** Bytes enqueued on the body that its reader has not taken yet. */
  get writableLength(): number {
    const d = this.controller?.desiredSize;
    return d === null || d === undefined ? 0 : Math.max(0, -d);
  }

  /** Drop the body and what is queued on it (its reader gets an error), as a client gone. */
  destroy(): void {
    if (this.destroyed || this.writableEnded) return;
    try {
      this.controller?.error(new Error("the stream was closed: its client did not read it"));
    } catch {
      /* already closed */
    }
    this.gone();
  }

  /** Commit the status and headers: the Response resolves now, its body streaming. */
  private open(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    // Counted in bytes from zero, so that -desiredSize is what the client has not read yet (writableLength).
    const body = new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          this.controller = c;
        },
        cancel: () => this.gone(),
      },
      { highWaterMark: 0, size: (chunk) => chunk.byteLength },
    );
    this.resolve(new Response(body, { status: this.statusCode, headers: this.headers }));
  }

  private gone(): void {
    if (this.destroyed || this.writableEnded) return;
    this.destroyed = true;
    // Nobody reads the answer, but the platform still awaits a Response: 499, "client closed request".
    if (!this.headersSent) {
      this.headersSent = true;
      this.resolve(new Response(null, { status: 499 }));
    }
    try {
      this.controller?.close();
    } catch {
      /* already closed */
    }
    this.emit("close");
  }

  private emit(event: "close" | "finish"): void {
    const later = this.later;
    if (later) {
      later.reply = later.request = undefined;
      this.later = undefined;
    }
    for (const l of this.listeners[event].splice(0)) l();
  }
}

/** The Incoming of a web-standard Request: its body read through its stream, bounded. */
export function fetchIncoming(request: Request): Incoming {
  const url = new URL(request.url);
  // Only an http(s) URL names a target here; any other (`blob:`, a custom scheme) stays whole, an absolute-form target
  // the endpoint refuses (400).
  const web = url.protocol === "http:" || url.protocol === "https:";
  // A plain object, as Node's: what HttpLimits.clientKey is given too.
  const headers: HeaderBag = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // The Request URL is absolute; the Host check reads the authority from the Host header, as on Node.
  headers.host ??= url.host;
  return {
    method: request.method,
    url: web ? url.pathname + url.search : request.url,
    headers,
    readBody(limit, done, tooLarge, failed) {
      const declared = headers["content-length"];
      if (Number(declared) > limit) return tooLarge();
      // With a Content-Length the framing bounds the body, so it can be read whole; `arrayBuffer()` is also the fast
      // path of adapters such as @hono/node-server (touching `body` makes them build a full Request: 4x slower).
      // A chunked body has no such bound: it is read as a stream and cut off at the limit.
      if (declared !== undefined) {
        void request.arrayBuffer().then((buffer) => (buffer.byteLength > limit ? tooLarge() : done(new Uint8Array(buffer))), failed);
        return;
      }
      void readStream(request, limit).then((body) => (body === undefined ? tooLarge() : done(body)), failed);
    },
  };
}

async function readStream(request: Request, limit: number): Promise<Uint8Array | undefined> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      void reader.cancel().catch(() => {});
      return undefined;
    }
    parts.push(value);
  }
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
