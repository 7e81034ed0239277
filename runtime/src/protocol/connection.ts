/**
 * One place decides the era. A Connection is one peer link (a stdio pipe, or
 * one legacy HTTP session, or one modern HTTP request): it classifies each
 * inbound message, settles the era and the revision in force, validates the
 * message against that revision's generated validator, dispatches it to the
 * server, and encodes the answer for that revision. The path is one way:
 * transport → classify → route → validate → dispatch → encode.
 *
 * Legacy (handshake) era: spec/2025-11-25/basic/lifecycle.mdx
 * Modern (stateless) era:  spec/2026-07-28/basic/versioning.mdx, spec/2026-07-28/basic/index.mdx#statelessness
 */
import type { CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ListRootsResult, LoggingLevel } from "../../../out/latest.js";
import { classify, type Classification } from "./classify.js";
import { inspect, McpError, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse, type RequestId } from "../wire/jsonrpc.js";
import {
  type Revision,
  definesErrorCode,
  errorCode,
  hasField,
  hasCapability,
  hasMethod,
  isLegacy,
  isModern,
  mayAnswerInputRequired,
  serverMaySendRequests,
  methodFlows,
  methodKind,
  parseErrorOmitsId,
  supportsBatches,
  validatorsFor,
  allValidatorsFor,
  type DispatchValidators,
  type Validator,
  describeErrors,
  type RevisionValidators,
} from "../rules.js";
import { InputRequiredSignal, paramsDigest, RequestStateCodec } from "./mrtr.js";
import { LOGGING_LEVELS, McpServer, MissingCapabilityError, type AskOptions, type RequestContext, type ServerEvent } from "../server/server.js";

export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
export const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/** Where messages for one request go: the connection's output, or (HTTP) that request's own stream. */
export interface Sink {
  send(message: JsonRpcMessage): void;
  /** Close the connection carrying this request's stream, keeping the stream resumable (HTTP only; see RequestContext.closeStream). */
  closeStream?(): boolean;
}

/** Legacy per-session state: spec/2025-11-25/basic/lifecycle.mdx. Nothing here is visible to modern requests. */
export interface LegacySession {
  revision: Revision;
  clientCapabilities: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
  /** notifications/initialized received. */
  initialized: boolean;
  /** Set by logging/setLevel. */
  logLevel?: LoggingLevel;
  subscriptions: Set<string>;
  /** Server notifications held until notifications/initialized (only pings and logging may precede it), with their request. */
  held: { message: JsonRpcMessage; requestId: RequestId; sink: Sink }[];
  /** Resolves at notifications/initialized: server→client requests wait for it. */
  ready: Promise<void>;
  markReady: () => void;
}

/** A request being handled. Its AbortController is made only when a handler looks at `ctx.signal` (most never do). */
class InFlight {
  /** Set when the client cancelled (or the transport closed): no response may follow. */
  cancelled = false;
  /** Modern MRTR state of this run, made on the first ask (or up front when the request carries answers). */
  round?: InputRound;
  private controller?: AbortController;
  private reason?: unknown;

  get aborted(): boolean {
    return this.reason !== undefined;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason !== undefined) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.reason !== undefined) return;
    this.reason = reason ?? new Error("aborted");
    this.controller?.abort(this.reason);
  }
}

/** One run of a modern handler that may answer input_required (MRTR). */
interface InputRound {
  /** Answers available to this run: from the verified requestState, then this request's inputResponses. */
  answers: Record<string, unknown>;
  /** inputResponses of this request (validated when used). */
  responses: Record<string, unknown>;
  /** Answers this run consumed: carried into the next requestState. */
  used: Record<string, unknown>;
  /** Unanswered asks of this run, by key. */
  asked: Map<string, { method: string; params: Record<string, unknown> }>;
  counters: Record<string, number>;
  validators: DispatchValidators;
  invalidParams: number;
}

interface PendingClientRequest {
  resolve(result: Record<string, unknown>): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
  method: string;
  /** The asked method's result schema in the session's revision. */
  validate?: Validator;
}

function readiness(): { ready: Promise<void>; markReady: () => void } {
  let markReady!: () => void;
  const ready = new Promise<void>((r) => (markReady = r));
  return { ready, markReady };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const ELICIT = "elicitation/create";
/**
 * The elicitation mode a request asks for when the client did not declare it, else undefined. Where the revision
 * defines modes, an empty `elicitation` capability means form only, and a server MUST NOT send a mode the client
 * does not support. spec/2025-11-25/client/elicitation.mdx#capabilities
 */
function unsupportedElicitationMode(revision: Revision, declared: Record<string, unknown>, params: Record<string, unknown> | undefined): string | undefined {
  const mode = params?.mode === "url" ? "url" : "form";
  if (!hasCapability(revision, "client", `elicitation.${mode}`)) return undefined;
  const modes = ["form", "url"].filter((m) => isObject(declared[m]));
  return (modes.length ? modes : ["form"]).includes(mode) ? undefined : mode;
}
const levelRank = (l: string) => LOGGING_LEVELS.indexOf(l as LoggingLevel);

/**
 * Required server capability (dotted path) for an inbound method, where the spec gates one. The same in every
 * revision (each feature page's "Capabilities" section, e.g. spec/2025-11-25/server/tools.mdx#capabilities); whether a
 * revision defines the capability at all comes from the rules module (`hasCapability`).
 */
const CAPABILITY_FOR_METHOD: Record<string, string> = {
  "tools/list": "tools",
  "tools/call": "tools",
  "resources/list": "resources",
  "resources/templates/list": "resources",
  "resources/read": "resources",
  "resources/subscribe": "resources.subscribe",
  "resources/unsubscribe": "resources.subscribe",
  "prompts/list": "prompts",
  "prompts/get": "prompts",
  "completion/complete": "completions",
  "logging/setLevel": "logging",
};

export interface ConnectionOptions {
  transport: "stdio" | "http";
  /** HTTP only: this connection serves one era (a legacy session, or one modern request). */
  era?: "legacy" | "modern";
}

export class Connection {
  /** Legacy state, once `initialize` has been answered. On stdio it makes the pipe legacy for its lifetime. */
  session?: LegacySession;
  private readonly inFlight = new Map<RequestId, InFlight>();
  private readonly pendingClient = new Map<RequestId, PendingClientRequest>();
  private nextServerRequestId = 0;

  private readonly unsubscribe: () => void;

  constructor(
    readonly server: McpServer,
    private readonly out: Sink,
    readonly options: ConnectionOptions = { transport: "stdio" },
  ) {
    this.unsubscribe = server.onEvent((e) => this.sessionEvent(e));
  }

  private readonly listens = new Set<() => void>();

  /** End this connection's subscriptions/listen streams gracefully (e.g. stdin reached EOF). */
  endSubscriptions(): void {
    for (const end of [...this.listens]) end();
  }

  /** Stop receiving server events and abort in-flight work (the transport is gone). */
  close(): void {
    this.unsubscribe();
    this.abortAll();
  }

  /** Legacy: unsolicited change notifications, gated on the declared capability and (resources/updated) the session's subscriptions. */
  private sessionEvent(e: ServerEvent): void {
    const s = this.session;
    if (!s || !s.initialized || e.filter === "end") return;
    const caps = this.server.capabilities(s.revision) as Record<string, Record<string, unknown> | undefined>;
    const gate: Record<string, boolean> = {
      toolsListChanged: caps.tools?.listChanged === true,
      promptsListChanged: caps.prompts?.listChanged === true,
      resourcesListChanged: caps.resources?.listChanged === true,
      resourceSubscriptions: caps.resources?.subscribe === true && s.subscriptions.has(e.uri ?? ""),
    };
    if (!gate[e.filter] || !methodFlows(s.revision, e.method, "server→client")) return;
    this.out.send({ jsonrpc: "2.0", method: e.method, params: e.uri === undefined ? {} : { uri: e.uri } });
  }

  /**
   * subscriptions/listen (spec/2026-07-28/basic/patterns/subscriptions.mdx): acknowledge first with the honoured
   * filter, then deliver matching events tagged with the subscription id (the listen request's id) until the client
   * cancels (no response then) or the server ends it (a result, preceded on stdio by notifications/cancelled).
   */
  private async listen(params: Record<string, unknown>, ctx: RequestContext, sink: Sink): Promise<Record<string, unknown>> {
    const id = ctx.requestId;
    const tagged = (p: Record<string, unknown>) => ({ ...p, _meta: { [META_SUBSCRIPTION_ID]: id } });
    const filter = this.server.honourFilter((params.notifications ?? {}) as Record<string, unknown>);
    sink.send({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: tagged({ notifications: filter }) });
    let end!: () => void;
    const ended = new Promise<void>((r) => (end = r));
    const stop = this.server.onEvent((e) => {
      if (ctx.signal.aborted) return;
      if (e.filter === "end") return end();
      const wanted = e.filter === "resourceSubscriptions" ? (filter.resourceSubscriptions as string[] | undefined)?.includes(e.uri ?? "") : filter[e.filter] === true;
      if (wanted) sink.send({ jsonrpc: "2.0", method: e.method, params: tagged(e.uri === undefined ? {} : { uri: e.uri }) });
    });
    ctx.signal.addEventListener("abort", () => end());
    this.listens.add(end);
    try {
      await ended;
    } finally {
      stop();
      this.listens.delete(end);
    }
    if (!ctx.signal.aborted && this.options.transport === "stdio") {
      sink.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "the server ended the subscription" } });
    }
    return { _meta: { [META_SUBSCRIPTION_ID]: id } };
  }

  /** Resolves when every request received so far has been answered. */
  idle(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Abort every in-flight request (transport closed): their handlers' signals fire and no response follows. */
  abortAll(): void {
    for (const f of this.inFlight.values()) {
      f.cancelled = true;
      f.abort(new Error("connection closed"));
    }
    this.rejectClientRequests("connection closed");
  }

  /** The revision whose rules shape errors when no request has named one: the session's, else the newest served. */
  private get fallbackRevision(): Revision {
    return this.session?.revision ?? this.server.revisions[this.server.revisions.length - 1];
  }

  /** An error response with the id the revision allows when the request's id is unknown: omitted from 2025-11-25, null before. */
  errorResponse(id: RequestId | null | undefined, code: number, message: string, data?: unknown, revision = this.fallbackRevision): JsonRpcResponse {
    const error = data === undefined ? { code, message } : { code, message, data };
    if (id === null || id === undefined) return parseErrorOmitsId(revision) ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id: null, error };
    return { jsonrpc: "2.0", id, error };
  }

  /** A line or body that is not JSON: -32700, answered in arrival order (the session in force decides the id form). */
  parseError(detail: string, sink: Sink = this.out): Promise<void> {
    return this.inOrder(() => sink.send(this.errorResponse(null, errorCode(this.fallbackRevision, "PARSE_ERROR")!, `Parse error: ${detail}`)));
  }

  /** An inbound message too large to read: -32600, id unknown. */
  tooLarge(limit: number, sink: Sink = this.out): Promise<void> {
    return this.inOrder(() => sink.send(this.errorResponse(null, errorCode(this.fallbackRevision, "INVALID_REQUEST")!, `Invalid Request: message larger than ${limit} bytes`)));
  }

  private inOrder(f: () => void): Promise<void> {
    if (!this.gated) {
      f();
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(() => (f(), resolve())));
  }

  /**
   * Receive one parsed JSON value (a message or a batch). Answers go to `sink`
   * (default: the connection's output). Resolves when the value is answered; never rejects.
   *
   * Messages are *admitted* strictly in arrival order (era routing, the
   * handshake, validation), so `initialize` settles the session before the
   * next line is routed; handlers then run concurrently and may finish in
   * any order. Admission is synchronous in the common case; a message waits
   * only while an earlier one is still being admitted (e.g. loading its
   * revision's validators).
   */
  receive(value: unknown, sink: Sink = this.out, route?: Classification): Promise<void> {
    if (this.gated) return new Promise((resolve) => this.waiting.push(() => void this.start(value, sink, route).then(resolve)));
    return this.start(value, sink, route);
  }

  /** An earlier message is not admitted yet: later ones wait in `waiting`. */
  private gated = false;
  private draining = false;
  private readonly waiting: (() => void)[] = [];
  private active = 0;
  private readonly idleWaiters: (() => void)[] = [];

  private start(value: unknown, sink: Sink, route?: Classification): Promise<void> {
    this.gated = true;
    this.active++;
    let open = false;
    const admit = () => {
      if (open) return;
      open = true;
      this.gated = false;
      if (this.draining) return; // an outer drain loop continues
      this.draining = true;
      try {
        while (!this.gated && this.waiting.length) this.waiting.shift()!();
      } finally {
        this.draining = false;
      }
    };
    return this.run(value, sink, admit, route);
  }

  private async run(value: unknown, sink: Sink, admit: () => void, route?: Classification): Promise<void> {
    try {
      if (Array.isArray(value)) await this.receiveBatch(value, sink, admit);
      else await this.receiveOne(value, sink, admit, route);
    } catch (err) {
      process.stderr.write(`mcp runtime: ${String((err as Error)?.stack ?? err)}\n`);
    } finally {
      admit();
      if (--this.active === 0 && this.waiting.length === 0) for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  private async receiveBatch(batch: unknown[], sink: Sink, release: () => void): Promise<void> {
    const revision = this.session?.revision;
    // JSON-RPC batches only in 2025-03-26. spec/2025-03-26/basic/index.mdx#batching, spec/2025-06-18/changelog.mdx
    if (!revision || !supportsBatches(revision) || batch.length === 0) {
      const why = batch.length === 0 ? "an empty batch" : `JSON-RPC batches are not supported in revision ${revision ?? "(before initialize)"}`;
      sink.send(this.errorResponse(null, errorCode(this.fallbackRevision, "INVALID_REQUEST")!, `Invalid Request: ${why}`));
      return;
    }
    const responses: JsonRpcResponse[] = [];
    const collector: Sink = { send: (m) => ("result" in m || "error" in m ? responses.push(m as JsonRpcResponse) : sink.send(m)) };
    const done: (Promise<void> | void)[] = [];
    for (const m of batch) {
      let admit!: () => void;
      const admitted = new Promise<void>((r) => (admit = r));
      // Every message of a batch is the session's (batches exist only in a legacy revision).
      const d = this.receiveOne(m, collector, admit, { kind: "legacy", revision });
      done.push(d);
      await Promise.race([admitted, d]);
    }
    release();
    await Promise.all(done);
    // One response per request, none for notifications; no empty array.
    if (responses.length) sink.send(responses as unknown as JsonRpcMessage);
  }

  private receiveOne(value: unknown, sink: Sink, admit: () => void, route?: Classification): Promise<void> | void {
    const inbound = inspect(value);
    switch (inbound.type) {
      case "invalid":
        sink.send(this.errorResponse(inbound.id, errorCode(this.fallbackRevision, "INVALID_REQUEST")!, `Invalid Request: ${inbound.reason}`));
        return;
      case "response":
        this.settleClientRequest(inbound.message);
        return;
      case "malformed-response":
        return;
      case "notification":
        this.notification(inbound.message.method, inbound.message.params);
        return;
      case "request":
        return this.request(inbound.message, sink, admit, route);
    }
  }

  // ---- era routing: the classifier decides (protocol/classify.ts) ----

  private request(req: JsonRpcRequest, sink: Sink, admit: () => void, decided?: Classification): Promise<void> | void {
    const route = decided ?? classify({ kind: "request", method: req.method, params: req.params }, { transport: this.options.transport, session: this.session, served: this.server.eras });
    switch (route.kind) {
      case "reject":
        return sink.send(this.errorResponse(req.id, route.error.code, route.error.message, route.error.data, route.revision));
      case "legacy":
        return this.legacyRequest(req, sink, admit);
      case "modern":
        return this.dispatch(route.revision, req, sink, route.meta!.clientCapabilities, route.meta!.clientInfo, route.meta!.raw, admit);
    }
  }

  /** Legacy: spec/2025-11-25/basic/lifecycle.mdx */
  private legacyRequest(req: JsonRpcRequest, sink: Sink, admit: () => void): Promise<void> | void {
    if (req.method === "initialize") return this.initialize(req, sink);
    const session = this.session;
    if (!session) {
      // Before initialize a client may send only pings. spec/2025-11-25/basic/lifecycle.mdx#initialization
      if (req.method === "ping") return sink.send({ jsonrpc: "2.0", id: req.id, result: {} });
      const revision = this.server.eras.legacy.at(-1) ?? this.fallbackRevision;
      return sink.send(this.errorResponse(req.id, errorCode(revision, "INVALID_REQUEST")!, "Invalid Request: the session is not initialized; send initialize first", undefined, revision));
    }
    return this.dispatch(session.revision, req, sink, session.clientCapabilities, session.clientInfo, undefined, admit);
  }

  private async initialize(req: JsonRpcRequest, sink: Sink): Promise<void> {
    const params = req.params ?? {};
    const legacy = this.server.eras.legacy;
    const requested = params.protocolVersion;
    const errRevision = legacy.at(-1) ?? this.fallbackRevision;
    const invalid = errorCode(errRevision, "INVALID_PARAMS")!;
    if (this.session) return sink.send(this.errorResponse(req.id, errorCode(this.session.revision, "INVALID_REQUEST")!, "Invalid Request: already initialized", undefined, this.session.revision));
    // A missing or non-string version is -32602. spec/2025-11-25/basic/lifecycle.mdx#version-negotiation
    if (typeof requested !== "string") return sink.send(this.errorResponse(req.id, invalid, "Invalid params: protocolVersion must be a string", undefined, errRevision));
    // Echo a supported legacy version, else counter-offer the newest legacy one (also for 2026-07-28: it has no handshake).
    const revision = (legacy as string[]).includes(requested) ? (requested as Revision) : legacy[legacy.length - 1];
    const validators = await validatorsFor(revision);
    const v = validators.clientRequestValidators.initialize;
    if (v && !v(req)) return sink.send(this.errorResponse(req.id, errorCode(revision, "INVALID_PARAMS")!, `Invalid params: ${describeErrors(v)}`, undefined, revision));
    this.session = {
      revision,
      clientCapabilities: isObject(params.capabilities) ? params.capabilities : {},
      clientInfo: isObject(params.clientInfo) ? params.clientInfo : undefined,
      initialized: false,
      subscriptions: new Set(),
      held: [],
      ...readiness(),
    };
    const result: Record<string, unknown> = { protocolVersion: revision, capabilities: this.server.capabilities(revision), serverInfo: this.server.serverInfo(revision) };
    if (this.server.options.instructions && hasField(revision, "InitializeResult", "instructions")) result.instructions = this.server.options.instructions;
    sink.send({ jsonrpc: "2.0", id: req.id, result });
  }

  // ---- dispatch ----

  /** A request of `revision`, routed and admitted: check it is served, validate it, run its handler, answer. */
  private dispatch(
    revision: Revision,
    req: JsonRpcRequest,
    sink: Sink,
    clientCapabilities: Record<string, unknown>,
    clientInfo: Record<string, unknown> | undefined,
    meta: Record<string, unknown> | undefined,
    admit: () => void,
  ): Promise<void> | void {
    const method = req.method;
    // Unknown to this revision, or removed from it (initialize, ping, logging/setLevel, resources/subscribe … to a modern peer): -32601.
    if (methodKind(revision, method) !== "request" || !methodFlows(revision, method, "client→server") || !this.served(revision, method)) {
      return sink.send(this.errorResponse(req.id, errorCode(revision, "METHOD_NOT_FOUND")!, `Method not found: ${method}`, undefined, revision));
    }
    if (this.inFlight.has(req.id)) {
      return sink.send(this.errorResponse(req.id, errorCode(revision, "INVALID_REQUEST")!, `Invalid Request: id ${JSON.stringify(req.id)} is already in use`, undefined, revision));
    }
    const validators = validatorsFor(revision);
    // The revision's validators load once (admission waits meanwhile); then everything below runs synchronously.
    if (validators instanceof Promise) return validators.then(() => this.dispatch(revision, req, sink, clientCapabilities, clientInfo, meta, admit));
    // Validate, run the handler and answer. Written without async frames: a suspended async function keeps all of its
    // locals alive, and this is the path every request takes (allocation per request drives peak RSS under load).
    const validate = validators.clientRequestValidators[method];
    // inputResponses entries are validated when a handler uses them; unknown ones are ignored (spec/2026-07-28/basic/patterns/mrtr.mdx#error-handling).
    const checked = isObject(req.params?.inputResponses) ? { ...req, params: { ...req.params, inputResponses: {} } } : req;
    if (validate && !validate(checked)) {
      return sink.send(this.errorResponse(req.id, errorCode(revision, "INVALID_PARAMS")!, `Invalid params: ${describeErrors(validate)}`, undefined, revision));
    }
    const flight = new InFlight();
    this.inFlight.set(req.id, flight);
    const params = req.params ?? {};
    const mrtr = !serverMaySendRequests(revision) && mayAnswerInputRequired(revision, method);
    if (mrtr && (params.requestState !== undefined || params.inputResponses !== undefined)) {
      try {
        flight.round = this.inputRound(revision, method, params, validators);
      } catch (err) {
        this.inFlight.delete(req.id);
        return sink.send(this.errorFor(revision, req.id, err));
      }
    }
    const ctx = this.context(revision, req, sink, clientCapabilities, clientInfo, meta, flight, mrtr ? validators : undefined);
    let run: Record<string, unknown> | Promise<Record<string, unknown>>;
    try {
      // The handler starts before the next message is admitted, so handlers start in arrival order (a listen is
      // subscribed before a pipelined request that triggers an event runs), also when admission had to wait.
      run = this.invoke(revision, method, params, ctx, sink);
    } catch (err) {
      admit();
      return this.settle(revision, req.id, method, params, flight, sink, undefined, true, err);
    }
    // Admitted: the next message may be routed while this handler runs.
    admit();
    if (run instanceof Promise) {
      return run.then(
        (result) => this.settle(revision, req.id, method, params, flight, sink, result, false, undefined),
        (err) => this.settle(revision, req.id, method, params, flight, sink, undefined, true, err),
      );
    }
    return this.settle(revision, req.id, method, params, flight, sink, run, false, undefined);
  }

  /** Encode a handler's outcome for `revision` and answer (nothing after a cancellation). */
  private settle(
    revision: Revision,
    id: RequestId,
    method: string,
    params: Record<string, unknown>,
    flight: InFlight,
    sink: Sink,
    result: Record<string, unknown> | undefined,
    failed: boolean,
    failure: unknown,
  ): Promise<void> | void {
    try {
      // A run that asked for input the client has not given answers input_required, unless it failed for a reason of
      // its own (a missing client capability is -32021: the request cannot proceed whatever the answers).
      const ownFailure = failed && (failure instanceof MissingCapabilityError || failure instanceof McpError);
      if (flight.round?.asked.size && !ownFailure) result = this.inputRequired(method, params, flight.round);
      else if (failed) throw failure;
      const encoded = this.server.encodeResult(revision, method, result!);
      if (this.server.validateResults) {
        return this.checkResult(revision, method, encoded).then(
          () => this.answer(id, flight, sink, { jsonrpc: "2.0", id, result: encoded }),
          (err) => this.answer(id, flight, sink, this.errorFor(revision, id, err)),
        );
      }
      return this.answer(id, flight, sink, { jsonrpc: "2.0", id, result: encoded });
    } catch (err) {
      return this.answer(id, flight, sink, this.errorFor(revision, id, err));
    }
  }

  private answer(id: RequestId, flight: InFlight, sink: Sink, response: JsonRpcResponse): void {
    this.inFlight.delete(id);
    // After a cancellation, no response. spec/2025-11-25/basic/utilities/cancellation.mdx
    if (flight.cancelled) return;
    sink.send(response);
  }

  private stateCodec?: RequestStateCodec;
  private get codec(): RequestStateCodec {
    return (this.stateCodec ??= this.server.requestStateCodec);
  }

  /** Verify requestState (attacker-controlled: tampered, expired or foreign state is -32602) and gather the answers. */
  private inputRound(revision: Revision, method: string, params: Record<string, unknown>, validators: DispatchValidators): InputRound {
    let answers: Record<string, unknown> = {};
    if (params.requestState !== undefined) {
      const payload = this.codec.open(params.requestState as string);
      if (!payload || payload.m !== method || payload.d !== paramsDigest(params)) {
        throw new McpError(errorCode(revision, "INVALID_PARAMS")!, "Invalid params: requestState failed verification (tampered, expired, or from another request)");
      }
      answers = payload.a;
    }
    const responses = isObject(params.inputResponses) ? (params.inputResponses as Record<string, unknown>) : {};
    return { answers, responses, used: {}, asked: new Map(), counters: {}, validators, invalidParams: errorCode(revision, "INVALID_PARAMS")! };
  }

  private inputRequired(method: string, params: Record<string, unknown>, round: InputRound): Record<string, unknown> {
    const requestState = this.codec.seal({
      m: method,
      d: paramsDigest(params),
      e: Date.now() + this.server.options.requestStateTtlMs,
      a: round.used,
      q: [...round.asked.keys()],
    });
    return { resultType: "input_required", inputRequests: Object.fromEntries(round.asked), requestState };
  }

  /** An ask in a modern MRTR run: the answer if the client gave a valid one, else a pending ask that blocks the run. */
  private askModern(round: InputRound, method: string, capability: string, params: Record<string, unknown> | undefined, options: AskOptions | undefined): Promise<Record<string, unknown>> {
    const n = (round.counters[capability] = (round.counters[capability] ?? 0) + 1);
    const key = options?.key ?? `${capability}-${n}`;
    const validate: Validator | undefined = round.validators.answerValidators[method];
    if (Object.prototype.hasOwnProperty.call(round.responses, key)) {
      const answer = round.responses[key];
      // An answer that is not a valid result of the asked method is a protocol error (spec/2026-07-28/basic/patterns/mrtr.mdx#error-handling).
      const why = !isObject(answer) ? "not an object" : validate !== undefined && !validate(answer) ? describeErrors(validate) : undefined;
      if (why !== undefined) {
        return Promise.reject(new McpError(round.invalidParams, `Invalid params: inputResponses["${key}"] is not a valid ${method} result: ${why}`));
      }
      round.used[key] = answer;
      return Promise.resolve(answer as Record<string, unknown>);
    }
    if (Object.prototype.hasOwnProperty.call(round.answers, key)) {
      round.used[key] = round.answers[key];
      return Promise.resolve(round.answers[key] as Record<string, unknown>);
    }
    // Missing: ask (again).
    round.asked.set(key, { method, params: params ?? {} });
    // The run cannot go on without the answer: it ends here, and dispatch answers input_required with every ask made
    // (asks started together, e.g. under Promise.all, are all registered before this rejection is seen).
    return Promise.reject(new InputRequiredSignal());
  }

  /** Whether the server serves `method` on `revision`: the capability it needs is declared. */
  private served(revision: Revision, method: string): boolean {
    const cap = CAPABILITY_FOR_METHOD[method];
    if (!cap) return true;
    const [top, sub] = cap.split(".");
    const caps = this.server.capabilities(revision) as Record<string, Record<string, unknown> | undefined>;
    if (top === "completions") {
      // completion/complete predates the completions capability (2024-11-05): there, gate on registered completers.
      return hasCapability(revision, "server", "completions") ? "completions" in caps : this.server.hasCompletions();
    }
    if (!caps[top]) return false;
    return sub ? caps[top]![sub] === true : true;
  }

  private invoke(revision: Revision, method: string, params: Record<string, unknown>, ctx: RequestContext, sink: Sink): Record<string, unknown> | Promise<Record<string, unknown>> {
    const s = this.server;
    switch (method) {
      case "ping":
        return {};
      case "server/discover":
        return s.discover(revision);
      case "tools/list":
        return s.listTools(revision, params);
      case "tools/call":
        return s.callTool(revision, params, ctx);
      case "resources/list":
        return s.listResources(revision, params);
      case "resources/templates/list":
        return s.listResourceTemplates(revision, params);
      case "resources/read":
        return s.readResource(revision, params, ctx);
      case "resources/subscribe":
        this.session!.subscriptions.add(params.uri as string);
        return {};
      case "resources/unsubscribe":
        this.session!.subscriptions.delete(params.uri as string);
        return {};
      case "prompts/list":
        return s.listPrompts(revision, params);
      case "prompts/get":
        return s.getPrompt(revision, params, ctx);
      case "completion/complete":
        return s.complete(revision, params);
      case "subscriptions/listen":
        return this.listen(params, ctx, sink);
      case "logging/setLevel":
        this.session!.logLevel = params.level as LoggingLevel;
        return {};
      default:
        throw new McpError(errorCode(revision, "METHOD_NOT_FOUND")!, `Method not found: ${method}`);
    }
  }

  /** Map a thrown value to a JSON-RPC error that the peer's revision defines. */
  private errorFor(revision: Revision, id: RequestId, err: unknown): JsonRpcResponse {
    if (err instanceof MissingCapabilityError) {
      const code = errorCode(revision, "MISSING_REQUIRED_CLIENT_CAPABILITY");
      if (code !== undefined) return this.errorResponse(id, code, err.message, { requiredCapabilities: err.requiredCapabilities }, revision);
      return this.errorResponse(id, errorCode(revision, "INVALID_REQUEST")!, err.message, undefined, revision);
    }
    if (err instanceof McpError) {
      let code = err.code;
      // A code in the JSON-RPC reserved range that this revision does not define is not sent to its peer.
      if (code >= -32768 && code <= -32000 && !definesErrorCode(revision, code)) code = errorCode(revision, "INTERNAL_ERROR")!;
      return this.errorResponse(id, code, err.message, err.data, revision);
    }
    const message = err instanceof Error ? err.message : String(err);
    return this.errorResponse(id, errorCode(revision, "INTERNAL_ERROR")!, `Internal error: ${message}`, undefined, revision);
  }

  private async checkResult(revision: Revision, method: string, result: Record<string, unknown>): Promise<void> {
    const all = await allValidatorsFor(revision);
    const v = result.resultType === "input_required" ? (all.validateInputRequiredResult as RevisionValidators["resultValidators"][string]) : all.resultValidators[method];
    if (v && !v(result)) throw new McpError(errorCode(revision, "INTERNAL_ERROR")!, `server bug: ${method} result does not match the ${revision} schema: ${describeErrors(v)}`);
  }

  // ---- the handler's context ----

  private context(
    revision: Revision,
    req: JsonRpcRequest,
    sink: Sink,
    clientCapabilities: Record<string, unknown>,
    clientInfo: Record<string, unknown> | undefined,
    meta: Record<string, unknown> | undefined,
    flight: InFlight,
    mrtrValidators?: DispatchValidators,
  ): RequestContext {
    return new HandlerContext(this, revision, req, sink, clientCapabilities, clientInfo, meta, flight, mrtrValidators);
  }

  /** `ctx.elicit/sample/listRoots`: a legacy server→client request, or a modern MRTR ask. */
  ask(ctx: HandlerContext, method: string, capability: string, params: Record<string, unknown> | undefined, options?: AskOptions): Promise<Record<string, unknown>> {
    const { revision, req, flight } = ctx;
    if (!hasMethod(revision, method) || !isObject(ctx.clientCapabilities[capability])) return Promise.reject(new MissingCapabilityError({ [capability]: {} }));
    const mode = method === ELICIT ? unsupportedElicitationMode(revision, ctx.clientCapabilities[capability] as Record<string, unknown>, params) : undefined;
    if (mode) return Promise.reject(new MissingCapabilityError({ [capability]: { [mode]: {} } }));
    if (serverMaySendRequests(revision)) return this.askClient(revision, method, params, ctx.sink, flight.signal);
    const validators = ctx.mrtrValidators;
    if (!validators) return Promise.reject(new McpError(errorCode(revision, "INTERNAL_ERROR")!, `${method}: ${req.method} cannot ask the client for input in ${revision}`));
    const round = (flight.round ??= this.inputRound(revision, req.method, req.params ?? {}, validators));
    return this.askModern(round, method, capability, params, options);
  }

  /** A notification on behalf of a request: nothing more once it was cancelled. */
  notifyFor(ctx: HandlerContext, method: string, params: Record<string, unknown>): void {
    if (ctx.flight.aborted) return;
    this.notify(ctx.revision, method, params, ctx.sink, ctx.req.id);
  }

  /** The level at or above which `ctx.log` sends: the session's (legacy) or this request's `_meta` (modern); undefined: none. */
  logThreshold(ctx: HandlerContext): string | undefined {
    if (isModern(ctx.revision)) return ctx.meta?.[META_LOG_LEVEL] as string | undefined;
    return this.server.options.logging ? (this.session?.logLevel ?? this.server.options.defaultLogLevel) : undefined;
  }

  /** Send a server notification for `revision`, holding non-logging ones until a legacy session is initialized. */
  private notify(revision: Revision, method: string, params: Record<string, unknown>, sink: Sink, requestId: RequestId): void {
    if (!methodFlows(revision, method, "server→client")) return;
    const message: JsonRpcMessage = { jsonrpc: "2.0", method, params };
    const session = this.session;
    if (isLegacy(revision) && session && !session.initialized && method !== "notifications/message") {
      session.held.push({ message, requestId, sink });
      return;
    }
    sink.send(message);
  }

  /**
   * A server→client request (legacy) for a capability the client declared.
   * spec/2025-11-25/client/elicitation.mdx, sampling.mdx, roots.mdx
   */
  private async askClient(revision: Revision, method: string, params: Record<string, unknown> | undefined, sink: Sink, signal: AbortSignal): Promise<Record<string, unknown>> {
    if (this.noMoreAnswers) throw this.noMoreAnswers;
    // No requests before notifications/initialized. spec/2025-11-25/basic/lifecycle.mdx#initialization
    const session = this.session;
    if (session && !session.initialized) {
      // Waiting ends when the session is ready, the request is cancelled, or the client can no longer answer (EOF).
      await new Promise<void>((resolve, reject) => {
        session.ready.then(resolve);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        this.answerWaiters.add(reject);
      });
    }
    if (this.noMoreAnswers) throw this.noMoreAnswers;
    const id = `s-${++this.nextServerRequestId}`;
    const request = { jsonrpc: "2.0", id, method, params: params ?? {} } as JsonRpcRequest;
    // With validateResults (the generated projects' tests), what the handler asks is checked as results are: a request
    // the revision's schema rejects (e.g. a nested property in an elicitation form) fails the handler, not the client.
    // (Modern asks travel in the input_required result, which checkResult validates.)
    if (this.server.validateResults) {
      const validate = ((await allValidatorsFor(revision)).serverRequestValidators as Record<string, Validator>)[method];
      if (validate && !validate(request)) throw new Error(`server bug: the ${method} request does not match the ${revision} schema: ${describeErrors(validate)}`);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pendingClient.delete(id);
        reject(new Error(`${method}: the client did not answer within ${this.server.options.clientRequestTimeoutMs} ms`));
      }, this.server.options.clientRequestTimeoutMs);
      const loaded = validatorsFor(revision);
      const validate = loaded instanceof Promise ? undefined : loaded.answerValidators[method];
      this.pendingClient.set(id, { resolve, reject, timer, method, validate });
      signal.addEventListener("abort", () => {
        if (!this.pendingClient.delete(id)) return;
        clearTimeout(timer);
        this.out.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "the request that asked was cancelled" } });
        reject(new Error("cancelled"));
      });
      sink.send(request);
    });
  }

  private settleClientRequest(res: JsonRpcResponse): void {
    const pending = this.pendingClient.get(res.id as RequestId);
    if (!pending) return; // unknown or late: ignore
    this.pendingClient.delete(res.id as RequestId);
    clearTimeout(pending.timer);
    // The client's error is the handler's failure, not a code to forward to the client as the server's own.
    if ("error" in res) pending.reject(new Error(`the client answered with error ${res.error.code}: ${res.error.message}`));
    // A result that is not a valid result of the asked method is the handler's failure too (as an invalid MRTR answer is).
    else if (pending.validate && !pending.validate(res.result)) pending.reject(new Error(`the client's ${pending.method} result is invalid: ${describeErrors(pending.validate)}`));
    else pending.resolve(res.result);
  }

  /** Set once the client can no longer answer (stdin EOF, connection closed): asks then fail at once. */
  private noMoreAnswers?: Error;
  /** Asks waiting for the session to be ready, failed when the client can no longer answer. */
  private readonly answerWaiters = new Set<(err: Error) => void>();

  /** Reject every server→client request still waiting: the client can no longer answer (EOF, transport closed). */
  rejectClientRequests(reason: string): void {
    this.noMoreAnswers ??= new Error(reason);
    for (const fail of this.answerWaiters) fail(this.noMoreAnswers);
    this.answerWaiters.clear();
    for (const p of this.pendingClient.values()) {
      clearTimeout(p.timer);
      p.reject(new Error(reason));
    }
    this.pendingClient.clear();
  }

  /**
   * Serialize an outbound message. A response that cannot be serialized (a BigInt, a cycle, too deep) becomes a
   * -32603 error for the same id, so no request goes unanswered.
   */
  serialize(message: JsonRpcMessage | JsonRpcMessage[]): string {
    try {
      return JSON.stringify(message);
    } catch (err) {
      const id = !Array.isArray(message) && "id" in message ? (message.id as RequestId) : undefined;
      if (id === undefined || !("result" in message || "error" in message)) return "";
      const revision = this.fallbackRevision;
      return JSON.stringify(this.errorResponse(id, errorCode(revision, "INTERNAL_ERROR")!, `Internal error: the result cannot be serialized (${(err as Error).message})`, undefined, revision));
    }
  }

  // ---- notifications from the client ----

  private notification(method: string, params: Record<string, unknown> | undefined): void {
    switch (method) {
      case "notifications/initialized": {
        const s = this.session;
        if (!s || s.initialized) return;
        s.initialized = true;
        // Progress and the like are only meaningful while their request runs: drop those of finished requests.
        for (const h of s.held.splice(0)) if (this.inFlight.has(h.requestId)) h.sink.send(h.message);
        s.markReady();
        return;
      }
      case "notifications/cancelled": {
        // Unknown or late cancellations are ignored; initialize is never cancelled (it is answered before anything else runs).
        const id = params?.requestId as RequestId | undefined;
        const flight = id === undefined ? undefined : this.inFlight.get(id);
        if (!flight) return;
        flight.cancelled = true;
        flight.abort(new Error(typeof params?.reason === "string" ? params.reason : "cancelled by the client"));
        return;
      }
      default:
        // Notifications never get a response, even unknown ones.
        return;
    }
  }
}

/**
 * The context a handler receives (RequestContext). A class rather than an object of closures: one is made for every
 * request. Call its methods on the context (`ctx.log(...)`), as they use `this`.
 */
class HandlerContext implements RequestContext {
  readonly server: McpServer;
  readonly era: "legacy" | "modern";
  readonly requestId: RequestId;
  private lastProgress = -Infinity;

  constructor(
    private readonly connection: Connection,
    readonly revision: Revision,
    readonly req: JsonRpcRequest,
    readonly sink: Sink,
    readonly clientCapabilities: Record<string, unknown>,
    clientInfo: Record<string, unknown> | undefined,
    readonly meta: Record<string, unknown> | undefined,
    readonly flight: InFlight,
    readonly mrtrValidators: DispatchValidators | undefined,
  ) {
    this.server = connection.server;
    this.era = isModern(revision) ? "modern" : "legacy";
    this.requestId = req.id;
    if (clientInfo) this.clientInfo = clientInfo as unknown as RequestContext["clientInfo"];
  }

  clientInfo?: RequestContext["clientInfo"];

  get signal(): AbortSignal {
    return this.flight.signal;
  }

  progress(progress: number, total?: number, message?: string): void {
    const token = isObject(this.req.params?._meta) ? (this.req.params!._meta as Record<string, unknown>).progressToken : undefined;
    if (token === undefined || !(progress > this.lastProgress)) return;
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    const r = this.revision;
    if (message !== undefined && (hasField(r, "ProgressNotificationParams", "message") || hasField(r, "ProgressNotification", "params.message"))) params.message = message;
    this.connection.notifyFor(this, "notifications/progress", params);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    const threshold = this.connection.logThreshold(this);
    // Modern: no log notification unless this request set a level. spec/2026-07-28/server/utilities/logging.mdx
    if (threshold === undefined || levelRank(threshold) < 0 || levelRank(level) < levelRank(threshold)) return;
    this.connection.notifyFor(this, "notifications/message", logger === undefined ? { level, data } : { level, logger, data });
  }

  elicit(params: ElicitRequestParams, options?: AskOptions): Promise<ElicitResult> {
    return this.connection.ask(this, "elicitation/create", "elicitation", params as unknown as Record<string, unknown>, options) as unknown as Promise<ElicitResult>;
  }

  sample(params: CreateMessageRequestParams, options?: AskOptions): Promise<CreateMessageResult> {
    return this.connection.ask(this, "sampling/createMessage", "sampling", params as unknown as Record<string, unknown>, options) as unknown as Promise<CreateMessageResult>;
  }

  listRoots(options?: AskOptions): Promise<ListRootsResult> {
    return this.connection.ask(this, "roots/list", "roots", undefined, options) as unknown as Promise<ListRootsResult>;
  }

  closeStream(): boolean {
    return this.sink.closeStream?.() ?? false;
  }
}
