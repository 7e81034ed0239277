/**
 * Turns of the event loop: long work (a large body, a batch's members) is cut into pieces, each run in a later turn,
 * so that the other callers' requests that arrived meanwhile are served between the pieces instead of after all of
 * them (#20: one caller's 512 KiB reads and batches of 100 raised the others' p99 latency; bench/README.md, soak).
 */

/**
 * `run` after the event loop has polled for I/O once more: the first setImmediate runs after the current poll's
 * callbacks, the second after the next poll's (a 0 ms timer would run before that poll). Hosts without setImmediate
 * (workerd): a 0 ms timer.
 */
export function afterNextPoll(run: () => void): void {
  const immediate = globalThis.setImmediate as ((f: () => void) => unknown) | undefined;
  if (typeof immediate === "function") immediate(() => immediate(run));
  else setTimeout(run, 0);
}

/**
 * `run` once the callbacks of the current poll for I/O have run (one setImmediate: what arrived in this poll and was
 * answered within its turn is done by then). Hosts without setImmediate (workerd): a 0 ms timer.
 */
export function afterThisPoll(run: () => void): void {
  const immediate = globalThis.setImmediate as ((f: () => void) => unknown) | undefined;
  if (typeof immediate === "function") immediate(run);
  else setTimeout(run, 0);
}

/** afterNextPoll as a promise. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => afterNextPoll(resolve));
}

/** A body (or an answer) of more than this many bytes is parsed, run and written in turns of its own. */
export const YIELD_BYTES = 64 * 1024;

/** A batch's members run for at most about this long (ms) in one turn. */
export const BATCH_SLICE_MS = 1;
