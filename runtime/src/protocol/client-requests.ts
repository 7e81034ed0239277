/**
 * The legacy era's server→client requests (elicitation/create, sampling/createMessage, roots/list): sent on the
 * asking request's stream once the session is initialized, answered by the client's response, bounded by a timeout,
 * withdrawn (notifications/cancelled) when the request that asked is cancelled.
 * spec/2025-11-25/client/elicitation.mdx, spec/2025-11-25/client/sampling.mdx, spec/2025-11-25/client/roots.mdx
 */
import type { McpServer } from "../server/server.js";
import { type DispatchValidators, type Revision, type Validator, allValidatorsFor, describeErrors, validatorsFor } from "../rules.js";
import type { JsonRpcRequest, JsonRpcResponse, RequestId } from "../wire/jsonrpc.js";
import type { LegacySession } from "./legacy-session.js";
import type { Sink } from "./request.js";

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
  method: string;
  /** The session revision's answer validators (the asked method's result schema among them), or their load. */
  answers: DispatchValidators | Promise<DispatchValidators>;
}

/** The request that asks: its revision, its stream, its signal. */
export interface AskingRequest {
  readonly revision: Revision;
  readonly sink: Sink;
  readonly signal: AbortSignal;
}

export class ClientRequests {
  private readonly pending = new Map<RequestId, Pending>();
  private next = 0;
  /** Set once the client can no longer answer (stdin EOF, connection closed): asks then fail at once. */
  private noMoreAnswers?: Error;
  /** Asks waiting for the session to be ready, failed when the client can no longer answer. */
  private readonly waiters = new Set<(err: Error) => void>();

  /**
   * @param out the link's own output, where a withdrawn request's notifications/cancelled goes.
   * @param idPrefix makes this link's request ids unique among the processes that share its session.
   */
  constructor(
    private readonly server: McpServer,
    private readonly out: Sink,
    private readonly idPrefix = "",
  ) {}

  /**
   * Ask the client `method` on `on.sink` (the asking request's stream), in `on.revision`; `on.signal` (the asking
   * request's) withdraws it. Resolves with its valid result; rejects on a timeout, an error answer or an invalid result.
   */
  async ask(session: LegacySession | undefined, method: string, params: Record<string, unknown> | undefined, on: AskingRequest): Promise<Record<string, unknown>> {
    const { revision, sink, signal } = on;
    if (this.noMoreAnswers) throw this.noMoreAnswers;
    // No requests before notifications/initialized. spec/2025-11-25/basic/lifecycle.mdx#initialization
    if (session && !session.initialized) {
      // Waiting ends when the session is ready, the request is cancelled, or the client can no longer answer (EOF).
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => fail(signal.reason);
        const done = () => {
          this.waiters.delete(fail);
          signal.removeEventListener("abort", onAbort);
        };
        const fail = (err: unknown) => (done(), reject(err));
        void session.ready.then(() => (done(), resolve()));
        signal.addEventListener("abort", onAbort, { once: true });
        this.waiters.add(fail);
      });
    }
    if (this.noMoreAnswers) throw this.noMoreAnswers;
    const id = `s-${this.idPrefix}${++this.next}`;
    const request = { jsonrpc: "2.0", id, method, params: params ?? {} } as JsonRpcRequest;
    // With validateResults (the generated projects' tests), what the handler asks is checked as results are: a request
    // the revision's schema rejects (e.g. a nested property in an elicitation form) fails the handler, not the client.
    // (Modern asks travel in the input_required result, which dispatch validates.)
    if (this.server.validateResults) {
      const validate = ((await allValidatorsFor(revision)).serverRequestValidators as Record<string, Validator>)[method];
      if (validate && !validate(request)) throw new Error(`server bug: the ${method} request does not match the ${revision} schema: ${describeErrors(validate)}`);
    }
    // The answer is validated against the asked method's result: the revision's answer validators load, if they have
    // not yet, while the client answers (the request goes out now, as the handler asked).
    const answers = validatorsFor(revision);
    if (answers instanceof Promise) answers.catch(() => {}); // a failed load fails the answer, in settle
    const timeoutMs = this.server.options.clientRequestTimeoutMs;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: the client did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer, method, answers });
      signal.addEventListener("abort", () => {
        if (!this.pending.delete(id)) return;
        clearTimeout(timer);
        this.out.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "the request that asked was cancelled" } });
        reject(new Error("cancelled"));
      });
      sink.send(request);
    });
  }

  /** The client's response to one of our requests; unknown or late ones are ignored. Returns whether it was ours. */
  settle(res: JsonRpcResponse): boolean {
    const pending = this.pending.get(res.id as RequestId);
    if (!pending) return false;
    this.pending.delete(res.id as RequestId);
    clearTimeout(pending.timer);
    // The client's error is the handler's failure, not a code to forward to the client as the server's own.
    if ("error" in res) pending.reject(new Error(`the client answered with error ${res.error.code}: ${res.error.message}`));
    // A result that is not a valid result of the asked method is the handler's failure too (as an invalid MRTR answer is).
    else if (pending.answers instanceof Promise)
      pending.answers.then(
        (v) => checkAnswer(pending, v, res.result),
        (err: Error) => pending.reject(err),
      );
    else checkAnswer(pending, pending.answers, res.result);
    return true;
  }

  /**
   * The client answered one of our requests with something that is not a JSON-RPC response (`"result": null`, an
   * error without an integer code): the ask fails now, as for an invalid result, instead of waiting for its timeout.
   * spec/2025-11-25/basic/index.mdx#result-responses
   */
  refuse(id: RequestId, reason: string): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    pending.reject(new Error(`the client's answer to ${pending.method} is not a JSON-RPC response: ${reason}`));
  }

  /** Fail every request still waiting: the client can no longer answer (EOF, transport closed). */
  rejectAll(reason: string): void {
    this.noMoreAnswers ??= new Error(reason);
    for (const fail of this.waiters) fail(this.noMoreAnswers);
    this.waiters.clear();
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error(reason));
    }
    this.pending.clear();
  }
}

/** Settle `pending` with the client's `result`, or fail it when that is not a valid result of the asked method. */
function checkAnswer(pending: Pending, answers: DispatchValidators, result: Record<string, unknown>): void {
  const validate = answers.answerValidators[pending.method];
  if (validate && !validate(result)) pending.reject(new Error(`the client's ${pending.method} result is invalid: ${describeErrors(validate)}`));
  else pending.resolve(result);
}
