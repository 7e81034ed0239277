/**
 * JSON-RPC batches, which only 2025-03-26 has (spec/2025-03-26/basic/index.mdx#batching; removed in
 * spec/2025-06-18/changelog.mdx): at most `batchMembers` members (a longer batch is refused whole, and none of it
 * runs), at most `batchConcurrency` of them running at once, and an answer of at most `responseBytes`.
 */
import { type Revision, errorCode, supportsBatches } from "../rules.js";
import { errorResponse } from "../wire/errors.js";
import type { JsonRpcMessage, JsonRpcResponse, RequestId } from "../wire/jsonrpc.js";
import { type MessageLimits, tooLargeResponse, utf8Bytes } from "./limits.js";
import type { Sink } from "./request.js";
import { BATCH_SLICE_MS, nextTurn } from "./turns.js";

/** Why a batch is refused where no revision is in force: which of the `served` revisions take batches (in their session), if any. */
export function noBatchesHere(served: readonly Revision[]): string {
  const taking = served.filter(supportsBatches);
  return taking.length
    ? `Invalid Request: JSON-RPC batches are taken only in a legacy session of ${taking.join(", ")}`
    : "Invalid Request: JSON-RPC batches are not supported (no revision this server serves has them)";
}

/** Why a batch of `length` members is refused under `revision` (undefined: none in force yet, of the `served`), or undefined. */
export function batchRefusal(revision: Revision | undefined, length: number, batchMembers: number, served: readonly Revision[]): { message: string; data?: unknown } | undefined {
  if (length === 0) return { message: "Invalid Request: an empty batch" };
  if (!revision) return { message: noBatchesHere(served) };
  if (!supportsBatches(revision)) return { message: `Invalid Request: JSON-RPC batches are not supported in revision ${revision}` };
  if (length > batchMembers)
    return { message: `Invalid Request: a batch of ${length} members is over the server's limit batchMembers (${batchMembers})`, data: { limit: "batchMembers", max: batchMembers } };
  return undefined;
}

export interface BatchRun {
  revision: Revision;
  /** Where the answer (and the members' notifications and requests) go. */
  sink: Sink;
  /** Lets the link admit its next message. */
  release: () => void;
  limits: Required<MessageLimits>;
  /** Receive one member: its answers to `to`, `admit` once it is admitted. */
  member: (m: unknown, to: Sink, admit: () => void) => Promise<void> | void;
}

/**
 * Run a batch's members, at most `batchConcurrency` at once (the others wait for one to finish), each admitted in
 * order, their starts in slices of about BATCH_SLICE_MS of the event loop. The link admits its next message once the first window has started (JSON-RPC lets a server process a batch's
 * members in any order). The answer is one array, in completion order (which JSON-RPC 2.0 allows), none if no member
 * is a request.
 */
export async function runBatch(batch: unknown[], run: BatchRun): Promise<void> {
  // What runs after the first member's start is not its request's synchronous start: timed, and told to the sink
  // (HTTP charges it to the caller; the members of a batch of 100 cost about twice what its start does).
  const later = { on: false, busy: false };
  const answer = batchAnswer(run, later);
  const running = new Set<Promise<void>>();
  const done: Promise<void>[] = [];
  let slice = performance.now();
  for (const m of batch) {
    // The members' starts in slices of about BATCH_SLICE_MS, each in a turn of its own (protocol/turns.ts).
    if (performance.now() - slice > BATCH_SLICE_MS) {
      run.release();
      await nextTurn();
      slice = performance.now();
    }
    if (running.size >= run.limits.batchConcurrency) {
      run.release();
      await Promise.race(running);
    }
    let admit!: () => void;
    const admitted = new Promise<void>((r) => (admit = r));
    const d = later.on ? timed(later, run.sink, () => run.member(m, answer, admit)) : Promise.resolve(run.member(m, answer, admit));
    const member: Promise<void> = d.then(() => void running.delete(member));
    running.add(member);
    done.push(member);
    later.on = true;
    await Promise.race([admitted, d]);
  }
  run.release();
  await Promise.all(done);
  if (answer.list.length) run.sink.send(answer.list as unknown as JsonRpcMessage);
}

/** `start()`'s run, its time told to `sink` (not again for what it sends: `busy`). */
function timed(later: { busy: boolean }, sink: Sink, start: () => Promise<void> | void): Promise<void> {
  const began = performance.now();
  later.busy = true;
  try {
    return Promise.resolve(start());
  } finally {
    later.busy = false;
    sink.spent?.(performance.now() - began);
  }
}

/**
 * The sink of a batch's members: responses are kept for the answer, within `responseBytes` as a whole (a result that
 * would pass it is answered with -32603 naming the limit); the rest go to the link's sink at once. A response kept
 * after the batch's start is timed (`later`), unless a timed member start sends it.
 */
function batchAnswer({ revision, sink, limits }: BatchRun, later: { on: boolean; busy: boolean }): Sink & { list: JsonRpcResponse[] } {
  const max = limits.responseBytes;
  let bytes = 2;
  const list: JsonRpcResponse[] = [];
  const internal = (id: RequestId, message: string) => errorResponse(revision, id, errorCode(revision, "INTERNAL_ERROR")!, message);
  return {
    list,
    send: (m) => {
      if (!("result" in m || "error" in m)) return sink.send(m);
      if (later.on && !later.busy) return void timed(later, sink, () => keep(m as JsonRpcResponse));
      keep(m as JsonRpcResponse);
    },
  };

  function keep(m: JsonRpcResponse): void {
    const id = m.id as RequestId;
    let r = m;
    let size: number;
    try {
      size = utf8Bytes(JSON.stringify(r)) + 1;
    } catch (err) {
      r = internal(id, `Internal error: the result cannot be serialized (${(err as Error).message})`);
      size = JSON.stringify(r).length + 1;
    }
    if (bytes + size > max) {
      r = tooLargeResponse(id, `the batch's answer would be ${bytes + size} bytes`, max, revision);
      size = JSON.stringify(r).length + 1;
    }
    bytes += size;
    list.push(r);
  }
}
