/**
 * Dispatch: a routed, admitted request of one revision in force is checked against that revision (method known and
 * served, params valid), run through the method table, and its outcome encoded for the revision. Stateless: one
 * Dispatcher per server serves every link; what a link keeps (requests in flight, the legacy session) comes with the
 * request's scope. A modern HTTP request comes here straight from the endpoint, with no link at all.
 *
 * spec/2025-11-25/basic/lifecycle.mdx, spec/2026-07-28/basic/versioning.mdx, spec/2026-07-28/basic/index.mdx#statelessness
 */
import type { LoggingLevel } from "../../../out/latest.js";
import {
  type AnswerValidators,
  type Revision,
  type RevisionValidators,
  allValidatorsFor,
  describeErrors,
  errorCode,
  hasCapability,
  mayAnswerInputRequired,
  methodFlows,
  methodKind,
  requestValidatorFor,
  serverMaySendRequests,
  taskWireForm,
  validatorsFor,
} from "../rules.js";
import { type McpServer, MissingCapabilityError } from "../server/server.js";
import { complete } from "../server/completion.js";
import { getPrompt, listPrompts } from "../server/prompts.js";
import { listResources, listResourceTemplates, readResource } from "../server/resources.js";
import { listTools } from "../server/tools.js";
import { requireScopes, scopesFor } from "../server/authorization.js";
import { type FailureSite, RefusedResult, handlerFailure, isForClient } from "../server/failures.js";
import { encodeResult } from "../wire/encode.js";
import { errorResponse } from "../wire/errors.js";
import { inspect, McpError, type JsonRpcResponse } from "../wire/jsonrpc.js";
import type { Classification } from "./classify.js";
import { HandlerContext } from "./context.js";
import { errorResponseOf, isRefusal } from "./errors.js";
import { HandlerHost } from "./handler-host.js";
import { principalIdentity } from "../state/request-state.js";
import { inputRequired, openRound } from "./input-rounds.js";
import { listen } from "./listen.js";
import { InFlight, type Principal, type RequestScope, type Sink } from "./request.js";
import { declaresTasksExtension, missingTasksExtension } from "./task-decision.js";
import { tasksFor } from "./tasks.js";
import { isTaskMethod, taskMethodsFor } from "./task-methods.js";
import { isObject } from "../wire/jsonrpc.js";
import { beginRequest } from "./telemetry.js";

type Result = Record<string, unknown>;
type MethodHandler = (server: McpServer, params: Result, ctx: HandlerContext) => Result | Promise<Result>;

/**
 * The method table: what answers each client→server request. Whether a method exists in the revision in force is the
 * rules module's (methodKind, methodFlows); a method the table lacks is -32601 too.
 */
const METHODS: Readonly<Record<string, MethodHandler>> = {
  ping: () => ({}),
  "server/discover": (s, _p, ctx) => s.discover(ctx.revision),
  "tools/list": (s, p, ctx) => listTools(s, ctx.revision, p, ctx.principal),
  "tools/call": (s, p, ctx) => tasksFor(s).callTool(p, ctx),
  "resources/list": (s, p, ctx) => listResources(s, ctx.revision, p, ctx.principal),
  "resources/templates/list": (s, p, ctx) => listResourceTemplates(s, ctx.revision, p, ctx.principal),
  "resources/read": (s, p, ctx) => readResource(s, ctx.revision, p, ctx),
  // Legacy-only methods: the revision in force has a session (the rules module removes them from the modern era).
  // Subscribing reveals what reading does: the resource's scopes (also inside a 2025-03-26 batch, which the HTTP
  // endpoint's pre-dispatch scope check does not see into).
  "resources/subscribe": (s, p, ctx) => (
    requireScopes({ scopes: scopesFor(s, "resources/subscribe", p) }, ctx.principal, ctx.revision, `resource ${String(p.uri)}`),
    ctx.scope.link!.session!.subscriptions.add(p.uri as string),
    ctx.scope.link!.sessionChanged?.({ subscribe: p.uri as string }),
    {}
  ),
  "resources/unsubscribe": (_s, p, ctx) => (ctx.scope.link!.session!.subscriptions.delete(p.uri as string), ctx.scope.link!.sessionChanged?.({ unsubscribe: p.uri as string }), {}),
  "logging/setLevel": (_s, p, ctx) => ((ctx.scope.link!.session!.logLevel = p.level as LoggingLevel), ctx.scope.link!.sessionChanged?.({ logLevel: p.level as string }), {}),
  "prompts/list": (s, p, ctx) => listPrompts(s, ctx.revision, p, ctx.principal),
  "prompts/get": (s, p, ctx) => getPrompt(s, ctx.revision, p, ctx),
  "completion/complete": (s, p, ctx) => complete(s, ctx.revision, p, ctx),
  // Task methods: which exist in the revision in force is the rules module's (taskMethods).
  "tasks/get": (s, p, ctx) => taskMethodsFor(s).get(ctx.revision, p, ctx.scope),
  "tasks/result": (s, p, ctx) => taskMethodsFor(s).result(ctx.revision, p, ctx.scope),
  "tasks/list": (s, p, ctx) => taskMethodsFor(s).list(ctx.revision, p, ctx.scope),
  "tasks/cancel": (s, p, ctx) => taskMethodsFor(s).cancel(ctx.revision, p, ctx.scope),
  "tasks/update": (s, p, ctx) => taskMethodsFor(s).update(ctx.revision, p, ctx.scope),
  "subscriptions/listen": (s, p, ctx) => listen(s, p, ctx, { ends: ctx.scope.link?.listens ?? ctx.scope.listens, stdio: ctx.scope.link?.transport === "stdio" }),
};

/**
 * Required server capability (dotted path) for an inbound method, where the spec gates one. The same in every
 * revision (each feature page's "Capabilities" section, e.g. spec/2025-11-25/server/tools.mdx#capabilities); whether a
 * revision defines the capability at all comes from the rules module (`hasCapability`).
 */
const CAPABILITY_FOR_METHOD: Readonly<Record<string, string>> = {
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

/** The answer validators of a request without inputResponses: its round has no answer of the client's to validate. */
const NO_INPUT_RESPONSES: AnswerValidators = Object.freeze({});

const dispatchers = new WeakMap<McpServer, Dispatcher>();

/** The dispatcher of `server` (one per server). */
export function dispatcherFor(server: McpServer): Dispatcher {
  let d = dispatchers.get(server);
  if (!d) dispatchers.set(server, (d = new Dispatcher(server)));
  return d;
}

/** A modern HTTP request's exchange, as the endpoint hands it over. */
export interface ModernExchange {
  /** Where the answer and the request's messages go (the POST's JSON body or SSE stream). */
  readonly sink: Sink;
  /** The exchange's run: a disconnect cancels it. */
  readonly flight: InFlight;
  /** Where a subscriptions/listen registers its end, so that the endpoint can end it gracefully. */
  readonly listens?: Set<() => void>;
  /** The verified principal (authorization), if any. */
  readonly principal?: Principal;
}

export class Dispatcher {
  /** What handlers' contexts ask of (asks, notifications). */
  private readonly host: HandlerHost;

  constructor(readonly server: McpServer) {
    this.host = new HandlerHost(server);
  }

  /**
   * A modern request over HTTP, classified by the endpoint: no link, no session, nothing kept after it is answered.
   * Resolves when answered (or cancelled).
   */
  serveModern(value: unknown, route: Classification & { kind: "modern" }, { sink, flight, listens, principal }: ModernExchange): Promise<void> | void {
    const inbound = inspect(value);
    if (inbound.type !== "request") {
      const id = inbound.type === "invalid" ? inbound.id : undefined;
      const reason = inbound.type === "invalid" ? inbound.reason : "a client sends only requests and notifications";
      return sink.send(errorResponse(route.revision, id, errorCode(route.revision, "INVALID_REQUEST")!, `Invalid Request: ${reason}`));
    }
    const meta = route.meta!;
    const scope: RequestScope = {
      revision: route.revision,
      req: inbound.message,
      sink,
      clientCapabilities: meta.clientCapabilities,
      clientInfo: meta.clientInfo,
      meta: meta.raw,
      flight,
      listens,
      principal,
    };
    return this.dispatch(scope, noop);
  }

  /**
   * Check the request against its revision, validate it, run its handler and answer. `admit` lets the link admit its
   * next message: called once the handler has started (handlers start in arrival order). Resolves when answered.
   * Written without async frames: a suspended async function keeps all of its locals alive, and this is the path every
   * request takes (allocation per request drives peak RSS under load).
   */
  dispatch(scope: RequestScope, admit: () => void): Promise<void> | void {
    // Tracing or metrics on (an OpenTelemetry SDK registered): the request's span, the handler run inside it.
    if (!scope.telemetry) {
      const telemetry = beginRequest(scope, this.known);
      if (telemetry) {
        scope.telemetry = telemetry;
        return telemetry.run(() => this.check(scope, admit));
      }
    }
    return this.check(scope, admit);
  }

  /** Whether a tool or prompt name is registered (only those name a metric's series). */
  private readonly known = (kind: "tool" | "prompt", name: string): boolean => (kind === "tool" ? this.server.tools : this.server.prompts).has(name);

  /** dispatch's work: refusals, the validators, the params, then the run. */
  private check(scope: RequestScope, admit: () => void): Promise<void> | void {
    const { revision, req } = scope;
    const refused = this.refusal(scope);
    if (refused) return this.reply(scope, refused);
    // The method's validator loads when the method is first called, and the revision's answer validators when a
    // request first carries inputResponses (admission waits meanwhile); a load that fails is answered, never dropped.
    const validate = requestValidatorFor(revision, req.method);
    const carriesAnswers = isObject(req.params?.inputResponses);
    const answers = carriesAnswers ? validatorsFor(revision) : undefined;
    if (validate instanceof Promise || answers instanceof Promise) {
      return Promise.all([validate, answers]).then(
        () => this.check(scope, admit),
        (err) =>
          this.reply(
            scope,
            errorResponse(revision, req.id, errorCode(revision, "INTERNAL_ERROR")!, `Internal error: the ${revision} validators could not be loaded (${(err as Error)?.message ?? err})`),
          ),
      );
    }
    // inputResponses entries are validated when a handler uses them; unknown ones are ignored (spec/2026-07-28/basic/patterns/mrtr.mdx#error-handling).
    const checked = carriesAnswers ? { ...req, params: { ...req.params, inputResponses: {} } } : req;
    if (validate && !validate(checked)) {
      return this.reply(scope, errorResponse(revision, req.id, errorCode(revision, "INVALID_PARAMS")!, `Invalid params: ${describeErrors(validate)}`));
    }
    return this.run(scope, answers?.answerValidators ?? NO_INPUT_RESPONSES, admit);
  }

  /** Why the request is refused before validation (method unknown or not served, extension not declared, id in use), or undefined. */
  private refusal(scope: RequestScope): JsonRpcResponse | undefined {
    const { revision, req, link } = scope;
    const method = req.method;
    // Unknown to this revision, or removed from it (initialize, ping, logging/setLevel, resources/subscribe … to a modern peer): -32601.
    // The tasks extension's methods are not in the 2026-07-28 core schema; the rules module lists them (taskMethods).
    const taskMethod = isTaskMethod(revision, method);
    if (
      !METHODS[method] ||
      (!taskMethod && (methodKind(revision, method) !== "request" || !methodFlows(revision, method, "client→server"))) ||
      !this.served(revision, method, taskMethod, link?.session?.serverCapabilities)
    ) {
      return errorResponse(revision, req.id, errorCode(revision, "METHOD_NOT_FOUND")!, `Method not found: ${method}`);
    }
    // Extension methods from a request that did not declare the extension: -32021, before the task is looked up.
    // spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#protocol-errors
    if (taskMethod && taskWireForm(revision) === "extension" && !declaresTasksExtension(scope.clientCapabilities)) {
      return errorResponseOf(revision, req.id, missingTasksExtension());
    }
    if (link?.inFlight.has(req.id)) {
      return errorResponse(revision, req.id, errorCode(revision, "INVALID_REQUEST")!, `Invalid Request: id ${JSON.stringify(req.id)} is already in use`);
    }
    return undefined;
  }

  /** Run a valid request's handler (its MRTR round opened first when it carries answers) and settle its outcome. */
  private run(scope: RequestScope, answers: AnswerValidators, admit: () => void): Promise<void> | void {
    const { revision, req, link } = scope;
    // Cancelled while it waited (its validator loading, its admission; spec/2026-07-28/basic/transports/streamable-http.mdx#cancellation):
    // not started, no response. Started, it would meet an aborted signal whose abort event never fires (a listen never ends).
    if (scope.flight?.cancelled) return (admit(), scope.telemetry?.end(undefined));
    const flight = (scope.flight ??= new InFlight());
    link?.inFlight.set(req.id, flight);
    const params = req.params ?? {};
    const mrtr = !serverMaySendRequests(revision) && mayAnswerInputRequired(revision, req.method);
    if (mrtr && (params.requestState !== undefined || params.inputResponses !== undefined)) {
      try {
        flight.round = openRound(this.server.requestStateCodec, revision, { method: req.method, params, principal: principalIdentity(scope.principal) }, answers);
      } catch (err) {
        link?.inFlight.delete(req.id);
        return this.reply(scope, errorResponseOf(revision, req.id, err));
      }
    }
    const ctx = new HandlerContext(this.host, scope, flight, mrtr ? answers : undefined);
    let run: Result | Promise<Result>;
    try {
      // The handler starts before the next message is admitted, so handlers start in arrival order (a listen is
      // subscribed before a pipelined request that triggers an event runs), also when admission had to wait.
      run = METHODS[req.method](this.server, params, ctx);
    } catch (err) {
      admit();
      return this.settle(scope, flight, undefined, true, err);
    }
    admit();
    if (run instanceof Promise) {
      return run.then(
        (result) => this.settle(scope, flight, result, false, undefined),
        (err) => this.settle(scope, flight, undefined, true, err),
      );
    }
    return this.settle(scope, flight, run, false, undefined);
  }

  /** Encode a handler's outcome for the revision in force and answer (nothing after a cancellation). */
  private settle(scope: RequestScope, flight: InFlight, result: Result | undefined, failed: boolean, failure: unknown): Promise<void> | void {
    const { revision, req } = scope;
    const id = req.id;
    try {
      // A run that asked for input the client has not given answers input_required, unless it failed for a reason of
      // its own (a missing client capability is -32021: the request cannot proceed whatever the answers).
      const ownFailure = failed && (failure instanceof MissingCapabilityError || failure instanceof McpError);
      if (flight.round?.asked.size && !ownFailure)
        result = inputRequired(
          this.server.requestStateCodec,
          this.server.options.requestStateTtlMs,
          { method: req.method, params: req.params ?? {}, principal: principalIdentity(scope.principal) },
          flight.round,
        );
      else if (failed) throw failure;
      const encoded = encodeResult(revision, req.method, result!, this.server);
      if (this.server.validateResults) {
        return this.checkResult(revision, req.method, encoded).then(
          () => this.answer(scope, flight, { jsonrpc: "2.0", id, result: encoded }),
          (err) => this.answer(scope, flight, errorResponseOf(revision, id, this.unexpected(scope, err))),
        );
      }
      return this.answer(scope, flight, { jsonrpc: "2.0", id, result: encoded });
    } catch (err) {
      return this.answer(scope, flight, errorResponseOf(revision, id, this.unexpected(scope, err)));
    }
  }

  /**
   * A failure no handler reported (server/failures.ts): a protocol error passes; anything else (a bug, a store that
   * failed) is logged like a handler's and answered as one, so that exposeErrors also governs it. A quota's refusal
   * or a store outage is the runtime's own answer: it passes, so HTTP still gets its 429/503 and Retry-After.
   */
  private unexpected(scope: RequestScope, err: unknown): unknown {
    if (isForClient(err) || isRefusal(err)) return err;
    const { req, link, principal } = scope;
    const named = scope.req.params ?? {};
    const site: FailureSite = {
      method: req.method,
      requestId: req.id,
      ...(typeof named.name === "string" ? { [req.method === "prompts/get" ? "prompt" : "tool"]: named.name } : {}),
      ...(typeof named.uri === "string" ? { uri: named.uri } : {}),
      sessionId: link?.transport === "http" ? link.id : undefined,
      traceId: scope.telemetry?.traceId,
      subject: principal?.subject,
      aborted: scope.flight?.aborted,
    };
    // A result the revision's schema refuses (validateResults) keeps the message it had (exposeErrors on).
    return handlerFailure(this.server.options, site, err, err instanceof RefusedResult ? err.message : undefined);
  }

  private answer(scope: RequestScope, flight: InFlight, response: JsonRpcResponse): void {
    scope.link?.inFlight.delete(scope.req.id);
    flight.answered = true;
    // After a cancellation, no response. spec/2025-11-25/basic/utilities/cancellation.mdx
    if (flight.cancelled) return scope.telemetry?.end(undefined);
    this.reply(scope, response);
  }

  /** Send the request's response (its span ends first: the response is its end). */
  private reply(scope: RequestScope, response: JsonRpcResponse): void {
    scope.telemetry?.end(response);
    scope.sink.send(response);
  }

  private async checkResult(revision: Revision, method: string, result: Result): Promise<void> {
    // A modern CreateTaskResult is the extension's (no core schema has it): checked as a generic result only.
    if (result.resultType === "task") return;
    const all = await allValidatorsFor(revision);
    type V = RevisionValidators["resultValidators"][string];
    const v =
      result.resultType === "input_required"
        ? (all.validateInputRequiredResult as V)
        : method === "tools/call" && taskWireForm(revision) === "core" && "task" in result
          ? (all.validateCreateTaskResult as V)
          : all.resultValidators[method];
    if (v && !v(result)) throw new RefusedResult(`server bug: ${method} result does not match the ${revision} schema: ${describeErrors(v)}`);
  }

  /**
   * Whether the server serves `method` on `revision`: the capability it needs is declared now, or was declared to the
   * legacy session at initialize (`told`: negotiated for the session's lifetime, so removing the last tool leaves its
   * tools/list answering an empty list, not -32601). spec/2025-11-25/basic/lifecycle.mdx#capability-negotiation
   */
  private served(revision: Revision, method: string, taskMethod: boolean, told?: Record<string, unknown>): boolean {
    if (taskMethod) return this.server.supportsTasks() || (told !== undefined && "tasks" in told);
    const cap = CAPABILITY_FOR_METHOD[method];
    if (!cap) return true;
    if (told && this.declares(told, revision, cap)) return true;
    return this.declares(this.server.capabilities(revision), revision, cap);
  }

  private declares(capabilities: Record<string, unknown>, revision: Revision, cap: string): boolean {
    const [top, sub] = cap.split(".");
    const caps = capabilities as Record<string, Record<string, unknown> | undefined>;
    if (top === "completions") {
      // completion/complete predates the completions capability (2024-11-05): there, gate on registered completers.
      return hasCapability(revision, "server", "completions") ? "completions" in caps : this.server.hasCompletions();
    }
    if (!caps[top]) return false;
    return sub ? caps[top]![sub] === true : true;
  }
}

function noop(): void {}
