/**
 * Output to a byte stream that a client reads in chunks (stdio's stdout, an HTTP+SSE GET stream), written so that a
 * request's progress notifications reach the client in an earlier read than the response that ends the request.
 *
 * Why: the official TypeScript SDK clients (1.x `@modelcontextprotocol/sdk` and 2.x `@modelcontextprotocol/client`)
 * hand every message of one read to `Protocol` synchronously (stdio: `StdioClientTransport.processReadBuffer`; HTTP+SSE:
 * the `eventsource` parser's `feed`), but `Protocol._onnotification` runs the progress handler a microtask later
 * (`Promise.resolve().then(handler)`), while `Protocol._onresponse` runs at once and deletes the request's progress
 * handler. A progress notification that shares a read with its response is therefore dropped ("unknown token"). The
 * spec has progress precede the response (spec/2025-11-25/basic/utilities/progress.mdx#progress-flow,
 * spec/2026-07-28/basic/patterns/progress.mdx#progress-flow), and it is only useful to the client if it is seen.
 *
 * How: a response is not written until SETTLE_MS after the last progress notification written before it, and within
 * one batch the notifications go out ahead of the responses that wait. Nothing else waits: notifications, requests, and
 * responses with no progress notification shortly before them are written exactly as before (batched per tick on
 * stdio, WRITE_EVERY to a write), so pipelined throughput is unchanged.
 *
 * Limit: neither a pipe nor an SSE stream tells the writer that the client has read, so this is a margin, not a
 * guarantee: a client that does not read for longer than SETTLE_MS (its event loop blocked) still gets both at once.
 */
import type { JsonRpcMessage } from "../wire/jsonrpc.js";

/**
 * How long a client gets to read a progress notification before a response is written after it. An idle client
 * reads within microseconds; the margin covers a client whose event loop is busy at that moment (the SDK 2.x client
 * was seen blocked for about 20 ms around its first call). Only responses right after progress pay it.
 */
export const SETTLE_MS = 20;

/**
 * On stdio, how many messages wait for the end of their tick before they are written together. A tick that answers
 * many pipelined requests writes them in chunks of this many, so that the client reads (and sends its next requests)
 * while the rest are answered: one write per tick kept the two processes taking turns. Measured with `npm run bench`'s
 * stdio driver (64 in flight, 2 cores): 130k calls/s with one write per tick, 192k with 8 (bare loop: 217k), 168k with
 * 4, 186k with 16.
 */
export const WRITE_EVERY = 8;

const OTHER = 0;
const PROGRESS = 1;
const RESPONSE = 2;
type Kind = typeof OTHER | typeof PROGRESS | typeof RESPONSE;

function kindOf(message: JsonRpcMessage | JsonRpcMessage[]): Kind {
  if (Array.isArray(message)) return RESPONSE; // a batch's responses
  if ("method" in message) return message.method === "notifications/progress" && !("id" in message) ? PROGRESS : OTHER;
  return RESPONSE;
}

export class PacedOutput {
  private texts: string[] = [];
  private kinds: Kind[] = [];
  /** Per queued response: the time before which it is not written (NaN: not yet decided). */
  private notBefore: number[] = [];
  /** When the last progress notification was written. */
  private lastProgress = -Infinity;
  private scheduled = false;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  /**
   * @param write writes one chunk.
   * @param perTick true: batch what is pushed in one tick, WRITE_EVERY messages to a write (stdio); false: write at once
   * (SSE).
   */
  constructor(
    private readonly write: (chunk: string) => void,
    private readonly perTick: boolean,
  ) {}

  push(text: string, message: JsonRpcMessage | JsonRpcMessage[]): void {
    if (this.closed) return;
    this.texts.push(text);
    this.kinds.push(kindOf(message));
    this.notBefore.push(NaN);
    if (!this.perTick || this.texts.length >= WRITE_EVERY) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  /**
   * Write what is queued, except responses within SETTLE_MS of a progress notification written before them: those
   * wait (in order) for their time. Progress written after a response was queued cannot be its request's (the request
   * has ended), so it does not hold that response back any longer; notifications and requests are never held.
   */
  flush(): void {
    if (this.closed || !this.texts.length) return this.checkIdle();
    const { texts, kinds, notBefore } = this;
    // The clock matters only once progress is in play (a response may then wait): the first read of `performance`
    // loads Node's perf_hooks, about 0.7 ms of a stdio server's cold start. Without progress every notBefore is -Infinity.
    const now = this.lastProgress === -Infinity && !kinds.includes(PROGRESS) ? 0 : performance.now();
    let sawProgress = false;
    let held = 0;
    let out = "";
    for (let i = 0; i < texts.length; i++) {
      const kind = kinds[i];
      if (kind !== RESPONSE) {
        out += texts[i];
        if (kind === PROGRESS) sawProgress = true;
        continue;
      }
      if (Number.isNaN(notBefore[i])) notBefore[i] = (sawProgress ? now : this.lastProgress) + SETTLE_MS;
      if (held === 0 && notBefore[i] <= now) out += texts[i];
      else {
        // Responses keep their order: once one waits, those after it wait behind it.
        texts[held] = texts[i];
        kinds[held] = RESPONSE;
        notBefore[held] = notBefore[i];
        held++;
      }
    }
    texts.length = kinds.length = notBefore.length = held;
    if (sawProgress) this.lastProgress = now;
    if (out) this.write(out);
    if (held && !this.timer) {
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          this.flush();
        },
        Math.max(0, notBefore[0] - now),
      );
    }
    this.checkIdle();
  }

  /** Resolves once everything pushed so far has been written (or the output closed). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The stream is gone: drop what is queued and write nothing more. */
  close(): void {
    this.closed = true;
    this.texts = [];
    this.kinds = [];
    this.notBefore = [];
    clearTimeout(this.timer);
    this.timer = undefined;
    this.checkIdle();
  }

  private isIdle(): boolean {
    return this.closed || (!this.texts.length && !this.scheduled);
  }

  private checkIdle(): void {
    if (this.idleWaiters.length && this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
