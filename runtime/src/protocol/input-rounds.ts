/**
 * One run of a modern handler that may answer `input_required` (MRTR): the answers it may use, the asks it made, and
 * the sealed `requestState` that carries the answers into the client's retry.
 * spec/2026-07-28/basic/patterns/mrtr.mdx
 */
import { type AnswerValidators, type Revision, type Validator, describeErrors, errorCode } from "../rules.js";
import { McpError } from "../wire/jsonrpc.js";
import { InputRequiredSignal, paramsDigest } from "./mrtr.js";
import type { RequestStateCodec, RequestStatePayload } from "../state/request-state.js";
import { isObject } from "../wire/jsonrpc.js";
import type { ClientAsk } from "./outbound.js";

export interface InputRound {
  /** Answers sealed in the verified requestState: they stand, whatever this request's inputResponses say. */
  answers: Record<string, unknown>;
  /** The inputResponses entries this request may give (validated when used): see acceptedResponses. */
  responses: Record<string, unknown>;
  /** Answers this run consumed: carried into the next requestState. */
  used: Record<string, unknown>;
  /** Unanswered asks of this run, by key. */
  asked: Map<string, { method: string; params: Record<string, unknown> }>;
  counters: Record<string, number>;
  /** The validators of the answers in `responses`, by asked method. */
  answerValidators: AnswerValidators;
  invalidParams: number;
}

/** The request a round belongs to: its method and params, and the principal (principalIdentity) its state is sealed for. */
export interface RoundRequest {
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly principal?: string;
}

/**
 * Open a round: verify `requestState` (attacker-controlled: tampered, expired or foreign state is -32602, and so is
 * a state sealed for another `principal`) and gather the answers. Throws McpError.
 */
export function openRound(codec: RequestStateCodec, revision: Revision, { method, params, principal }: RoundRequest, answerValidators: AnswerValidators): InputRound {
  let sealed: RequestStatePayload | undefined;
  if (params.requestState !== undefined) {
    sealed = codec.open(params.requestState as string);
    // Bound to the principal: the answers a user gave are never replayed under another user's token.
    if (!sealed || sealed.m !== method || sealed.d !== paramsDigest(params) || sealed.s !== principal) {
      throw new McpError(errorCode(revision, "INVALID_PARAMS")!, "Invalid params: requestState failed verification (tampered, expired, or from another request)");
    }
  }
  const given = isObject(params.inputResponses) ? (params.inputResponses as Record<string, unknown>) : {};
  const answers = sealed?.a ?? {};
  return { answers, responses: sealed ? acceptedResponses(given, sealed) : given, used: {}, asked: new Map(), counters: {}, answerValidators, invalidParams: errorCode(revision, "INVALID_PARAMS")! };
}

/**
 * The inputResponses entries a retry may give: answers to what the previous round asked (the sealed `q`, which never
 * names a key already answered). InputResponses keys correspond to the InputRequests keys, and what the server does
 * not recognize it ignores (spec/2026-07-28/basic/patterns/mrtr.mdx#inputresponses, #error-handling), so an earlier
 * round's sealed answer, on which the handler may already have acted, is never swapped by a retry. A request without
 * requestState is no retry but the request made afresh, with answers given up front: its entries are all taken (the
 * conformance suite's input-required-result-ignore-extra-params expects one call with `user_name` to complete). So a
 * client may always start over; what must happen at most once is the server's to enforce (mrtr.mdx: "Servers for
 * which a given requestState must be consumed at most once … MUST enforce that invariant server-side").
 */
function acceptedResponses(given: Record<string, unknown>, sealed: RequestStatePayload): Record<string, unknown> {
  const asked = Array.isArray(sealed.q) ? sealed.q : [];
  const accepted: Record<string, unknown> = {};
  for (const key of asked) if (Object.prototype.hasOwnProperty.call(given, key)) accepted[key] = given[key];
  return accepted;
}

/** The `input_required` result of a round that asked: every ask, and the answers used so far sealed for the retry. */
export function inputRequired(codec: RequestStateCodec, ttlMs: number, { method, params, principal }: RoundRequest, round: InputRound): Record<string, unknown> {
  const requestState = codec.seal({ m: method, d: paramsDigest(params), e: Date.now() + ttlMs, a: round.used, q: [...round.asked.keys()], s: principal });
  return { resultType: "input_required", inputRequests: Object.fromEntries(round.asked), requestState };
}

/** An ask in a round: the answer if the client gave a valid one, else a pending ask that ends the run. */
export function askInRound(round: InputRound, { method, capability, params, key: wanted }: ClientAsk): Promise<Record<string, unknown>> {
  const n = (round.counters[capability] = (round.counters[capability] ?? 0) + 1);
  const key = wanted ?? `${capability}-${n}`;
  const validate: Validator | undefined = round.answerValidators[method];
  if (Object.prototype.hasOwnProperty.call(round.answers, key)) {
    round.used[key] = round.answers[key];
    return Promise.resolve(round.answers[key] as Record<string, unknown>);
  }
  if (Object.prototype.hasOwnProperty.call(round.responses, key)) {
    const answer = round.responses[key];
    // An answer that is not a valid result of the asked method is a protocol error (spec/2026-07-28/basic/patterns/mrtr.mdx#error-handling).
    const why = !isObject(answer) ? "not an object" : validate !== undefined && !validate(answer) ? describeErrors(validate) : undefined;
    if (why !== undefined) return Promise.reject(new McpError(round.invalidParams, `Invalid params: inputResponses["${key}"] is not a valid ${method} result: ${why}`));
    round.used[key] = answer;
    return Promise.resolve(answer as Record<string, unknown>);
  }
  // Missing: ask (again). The run cannot go on without the answer: it ends here, and dispatch answers input_required
  // with every ask made (asks started together, e.g. under Promise.all, are all registered before this rejection is seen).
  round.asked.set(key, { method, params: params ?? {} });
  return Promise.reject(new InputRequiredSignal());
}
