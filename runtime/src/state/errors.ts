/**
 * Retry-After (seconds) of a 503 for a store that could not be reached: a refused connection fails within a second
 * and ioredis reconnects by itself, so a few seconds is when a retry may succeed without a client hammering it.
 */
export const STORE_RETRY_AFTER_S = 3;

/**
 * A shared store (Redis, PostgreSQL) that could not be reached: its connection refused, closed or timed out, as
 * opposed to an error of the command itself. The driver's error is the `cause`, for the server's log; the message
 * names the store and repeats the cause's message (the log's words too: the HTTP answer says only that the store is
 * unavailable, never this message).
 */
export class StoreUnavailableError extends Error {
  constructor(
    readonly store: string,
    options: { cause: unknown },
  ) {
    super(`${store} could not be reached: ${(options.cause as Error)?.message ?? String(options.cause)}`, options);
    this.name = "StoreUnavailableError";
  }
}

/** Whether `err` is, or was caused by, a StoreUnavailableError (a wrapper such as the task store's keeps it as cause). */
export function isStoreUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof StoreUnavailableError) return true;
  }
  return false;
}
