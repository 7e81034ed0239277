/**
 * The endpoint's open SSE responses: started and tracked here, kept alive by comments, ended at close, and bounded:
 * one whose client does not take what is written is closed once it holds `maxQueuedBytes` (HttpLimits.streamBufferBytes).
 */
import type { Reply } from "./io.js";
import { logError } from "./respond.js";
import { SSE_HEADERS } from "./sse.js";

/** The intervals of StreamRegistry.startTimers, in ms. */
export interface StreamTimers {
  keepAliveMs: number;
  sweepMs: number;
}

export class StreamRegistry {
  private readonly open = new Set<Reply>();
  private timers?: ReturnType<typeof setInterval>[];
  private closed = false;

  /**
   * @param sweep the idle-session sweep, run every `every.sweepMs`.
   * @param maxQueuedBytes bytes a stream may hold unread by its client before it is closed (streamBufferBytes).
   */
  constructor(
    private readonly every: StreamTimers,
    private readonly sweep: () => void,
    private readonly maxQueuedBytes = Infinity,
  ) {}

  /** Start an SSE response on `res` (naming the legacy session `sessionId`, if any) and track it. */
  start(res: Reply, status: number, sessionId?: string): void {
    if (sessionId !== undefined) res.setHeader("mcp-session-id", sessionId);
    res.writeHead(status, SSE_HEADERS);
    res.flushHeaders();
    this.open.add(res);
    this.bound(res);
  }

  /**
   * Every later write to `res` (events, keep-alives) first looks at what its client has not taken yet: past
   * maxQueuedBytes the stream is dropped (destroyed, so nothing queued stays in memory), which its owner sees as the
   * client going away ("close"). Only a stream that already holds the bound is dropped: one large event still goes.
   */
  private bound(res: Reply): void {
    const write = res.write;
    const max = this.maxQueuedBytes;
    res.write = (chunk: string) => {
      const queued = res.writableLength ?? 0;
      if (queued <= max) return write.call(res, chunk);
      this.drop(res, queued);
      return false;
    };
  }

  private drop(res: Reply, queued: number): void {
    if (res.destroyed) return;
    this.open.delete(res);
    logError(`an SSE stream was closed: its client had not read ${queued} bytes (limits.streamBufferBytes = ${this.maxQueuedBytes})`);
    if (res.destroy) res.destroy();
    else res.end();
  }

  /** `res` is ending (or has ended): no more keep-alives, and close() does not end it. */
  untrack(res: Reply): void {
    this.open.delete(res);
  }

  /**
   * Keep-alive comments on every open stream, and the idle-session sweep, started with the first request (a Worker
   * may not start timers outside a request) and unref'd where the platform can (they never keep a process alive).
   */
  startTimers(): void {
    if (this.timers || this.closed) return;
    const every = this.every;
    const keepAlive = setInterval(() => {
      for (const s of this.open) if (!s.destroyed) s.write(":\n\n");
    }, every.keepAliveMs);
    const sweeping = setInterval(this.sweep, every.sweepMs);
    for (const t of [keepAlive, sweeping]) (t as { unref?: () => void }).unref?.();
    this.timers = [keepAlive, sweeping];
  }

  /** Stop the timers (before sessions end). */
  stopTimers(): void {
    this.closed = true;
    for (const t of this.timers ?? []) clearInterval(t);
  }

  /** End every stream still open. */
  endAll(): void {
    for (const s of this.open) s.end();
    this.open.clear();
  }
}
