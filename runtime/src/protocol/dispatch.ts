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
  type Revision,
  type RevisionValidators,
  allValidatorsFor,
  definesErrorCode,
  describeErrors,
  errorCode,
  hasCapability,
  hasMethod,
  isLegacy,
  isModern,
  mayAnswerInputRequired,
  methodFlows,
  methodKind,
  serverMaySendRequests,
  taskWireForm,
  validatorsFor,
} from "../rules.js";
import { type AskOptions, type McpServer, MissingCapabilityError } from "../server/server.js";
import { complete } from "../server/completion.js";
import { getPrompt, listPrompts } from "../server/prompts.js";
import { listResources, listResourceTemplates, readResource } from "../server/resources.js";
import { listTools } from "../server/tools.js";
import { requireScopes, scopesFor } from "../server/authorization.js";
import { encodeResult } from "../wire/encode.js";
import { errorResponse } from "../wire/errors.js";
import { inspect, McpError, type JsonRpcMessage, type JsonRpcResponse, type RequestId } from "../wire/jsonrpc.js";
import { META_LOG_LEVEL, META_RELATED_TASK } from "../wire/meta.js";
import type { Classification } from "./classify.js";
import { HandlerContext } from "./context.js";
import { askInRound, inputRequired, openRound } from "./input-rounds.js";
import { listen } from "./listen.js";
import { InFlight, type Principal, type RequestScope, type Sink } from "./request.js";
import { declaresTasksExtension, missingTasksExtension, tasksFor } from "./tasks.js";
import { isTaskMethod, taskMethodsFor } from "./task-methods.js";
import { isObject } from "../wire/jsonrpc.js";

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
    ctx.scope.peer!.session!.subscriptions.add(p.uri as string),
    ctx.scope.peer!.sessionChanged?.({ subscribe: p.uri as string }),
    {}
  ),
  "resources/unsubscribe": (_s, p, ctx) => (ctx.scope.peer!.session!.subscriptions.delete(p.uri as string), ctx.scope.peer!.sessionChanged?.({ unsubscribe: p.uri as string }), {}),
  "logging/setLevel": (_s, p, ctx) => ((ctx.scope.peer!.session!.logLevel = p.level as LoggingLevel), ctx.scope.peer!.sessionChanged?.({ logLevel: p.level as string }), {}),
  "prompts/list": (s, p, ctx) => listPrompts(s, ctx.revision, p, ctx.principal),
  "prompts/get": (s, p, ctx) => getPrompt(s, ctx.revision, p, ctx),
  "completion/complete": (s, p, ctx) => complete(s, ctx.revision, p, ctx.principal),
  // Task methods: which exist in the revision in force is the rules module's (taskMethods).
  "tasks/get": (s, p, ctx) => taskMethodsFor(s).get(ctx.revision, p, ctx.scope),
  "tasks/result": (s, p, ctx) => taskMethodsFor(s).result(ctx.revision, p, ctx.scope),
  "tasks/list": (s, p, ctx) => taskMethodsFor(s).list(ctx.revision, p, ctx.scope),
  "tasks/cancel": (s, p, ctx) => taskMethodsFor(s).cancel(ctx.revision, p, ctx.scope),
  "tasks/update": (s, p, ctx) => taskMethodsFor(s).update(ctx.revision, p, ctx.scope),
  "subscriptions/listen": (s, p, ctx) => listen(s, p, ctx, ctx.sink, ctx.scope.peer?.listens ?? ctx.scope.listens, ctx.scope.peer?.transport === "stdio"),
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

const dispatchers = new WeakMap<McpServer, Dispatcher>();

/** The dispatcher of `server` (one per server). */
export function dispatcherFor(server: McpServer): Dispatcher {
  let d = dispatchers.get(server);
  if (!d) dispatchers.set(server, (d = new Dispatcher(server)));
  return d;
}

export class Dispatcher {
  constructor(readonly server: McpServer) {}

  /**
   * A modern request over HTTP, classified by the endpoint: no link, no session, nothing kept after it is answered.
   * `flight` is the exchange's, so that a disconnect cancels it. Resolves when answered (or cancelled).
   */
  serveModern(value: unknown, route: Classification & { kind: "modern" }, sink: Sink, flight: InFlight, listens?: Set<() => void>, principal?: Principal): Promise<void> | void {
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
    const { revision, req, sink, peer } = scope;
    const method = req.method;
    // Unknown to this revision, or removed from it (initialize, ping, logging/setLevel, resources/subscribe … to a modern peer): -32601.
    // The tasks extension's methods are not in the 2026-07-28 core schema; the rules module lists them (taskMethods).
    const taskMethod = isTaskMethod(revision, method);
    if (!METHODS[method] || (!taskMethod && (methodKind(revision, method) !== "request" || !methodFlows(revision, method, "client→server"))) || !this.served(revision, method, taskMethod)) {
      return sink.send(errorResponse(revision, req.id, errorCode(revision, "METHOD_NOT_FOUND")!, `Method not found: ${method}`));
    }
    // Extension methods from a request that did not declare the extension: -32021, before the task is looked up.
    // spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#protocol-errors
    if (taskMethod && taskWireForm(revision) === "extension" && !declaresTasksExtension(scope.clientCapabilities)) {
      return sink.send(this.errorFor(revision, req.id, missingTasksExtension()));
    }
    if (peer?.inFlight.has(req.id)) {
      return sink.send(errorResponse(revision, req.id, errorCode(revision, "INVALID_REQUEST")!, `Invalid Request: id ${JSON.stringify(req.id)} is already in use`));
    }
    const validators = validatorsFor(revision);
    // The revision's validators load once (admission waits meanwhile); a load that fails is answered, never dropped.
    if (validators instanceof Promise) {
      return validators.then(
        () => this.dispatch(scope, admit),
        (err) =>
          sink.send(errorResponse(revision, req.id, errorCode(revision, "INTERNAL_ERROR")!, `Internal error: the ${revision} validators could not be loaded (${(err as Error)?.message ?? err})`)),
      );
    }
    const validate = validators.clientRequestValidators[method];
    // inputResponses entries are validated when a handler uses them; unknown ones are ignored (spec/2026-07-28/basic/patterns/mrtr.mdx#error-handling).
    const checked = isObject(req.params?.inputResponses) ? { ...req, params: { ...req.params, inputResponses: {} } } : req;
    if (validate && !validate(checked)) {
      return sink.send(errorResponse(revision, req.id, errorCode(revision, "INVALID_PARAMS")!, `Invalid params: ${describeErrors(validate)}`));
    }
    const flight = (scope.flight ??= new InFlight());
    peer?.inFlight.set(req.id, flight);
    const params = req.params ?? {};
    const mrtr = !serverMaySendRequests(revision) && mayAnswerInputRequired(revision, method);
    if (mrtr && (params.requestState !== undefined || params.inputResponses !== undefined)) {
      try {
        flight.round = openRound(this.server.requestStateCodec, revision, method, params, validators, scope.principal?.subject);
      } catch (err) {
        peer?.inFlight.delete(req.id);
        return sink.send(this.errorFor(revision, req.id, err));
      }
    }
    const ctx = new HandlerContext(this, scope, flight, mrtr ? validators : undefined);
    let run: Result | Promise<Result>;
    try {
      // The handler starts before the next message is admitted, so handlers start in arrival order (a listen is
      // subscribed before a pipelined request that triggers an event runs), also when admission had to wait.
      run = METHODS[method](this.server, params, ctx);
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
        result = inputRequired(this.server.requestStateCodec, this.server.options.requestStateTtlMs, req.method, req.params ?? {}, flight.round, scope.principal?.subject);
      else if (failed) throw failure;
      const encoded = encodeResult(revision, req.method, result!, this.server);
      if (this.server.validateResults) {
        return this.checkResult(revision, req.method, encoded).then(
          () => this.answer(scope, flight, { jsonrpc: "2.0", id, result: encoded }),
          (err) => this.answer(scope, flight, this.errorFor(revision, id, err)),
        );
      }
      return this.answer(scope, flight, { jsonrpc: "2.0", id, result: encoded });
    } catch (err) {
      return this.answer(scope, flight, this.errorFor(revision, id, err));
    }
  }

  private answer(scope: RequestScope, flight: InFlight, response: JsonRpcResponse): void {
    scope.peer?.inFlight.delete(scope.req.id);
    // After a cancellation, no response. spec/2025-11-25/basic/utilities/cancellation.mdx
    if (flight.cancelled) return;
    scope.sink.send(response);
  }

  /** Map a thrown value to a JSON-RPC error that the peer's revision defines. */
  errorFor(revision: Revision, id: RequestId, err: unknown): JsonRpcResponse {
    if (err instanceof MissingCapabilityError) {
      const code = errorCode(revision, "MISSING_REQUIRED_CLIENT_CAPABILITY");
      if (code !== undefined) return errorResponse(revision, id, code, err.message, { requiredCapabilities: err.requiredCapabilities });
      return errorResponse(revision, id, errorCode(revision, "INVALID_REQUEST")!, err.message);
    }
    if (err instanceof McpError) {
      let code = err.code;
      // A code in the JSON-RPC reserved range that this revision does not define is not sent to its peer.
      if (code >= -32768 && code <= -32000 && !definesErrorCode(revision, code)) code = errorCode(revision, "INTERNAL_ERROR")!;
      return errorResponse(revision, id, code, err.message, err.data);
    }
    const message = err instanceof Error ? err.message : String(err);
    return errorResponse(revision, id, errorCode(revision, "INTERNAL_ERROR")!, `Internal error: ${message}`);
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
    if (v && !v(result)) throw new McpError(errorCode(revision, "INTERNAL_ERROR")!, `server bug: ${method} result does not match the ${revision} schema: ${describeErrors(v)}`);
  }

  /** Whether the server serves `method` on `revision`: the capability it needs is declared. */
  private served(revision: Revision, method: string, taskMethod: boolean): boolean {
    if (taskMethod) return this.server.supportsTasks();
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

  // ---- what a handler's context asks of dispatch ----

  /** `ctx.elicit/sample/listRoots`: a legacy server→client request, or a modern MRTR ask. */
  ask(ctx: HandlerContext, method: string, capability: string, params: Result | undefined, options?: AskOptions): Promise<Result> {
    const { revision, scope, flight } = ctx;
    if (!hasMethod(revision, method) || !isObject(ctx.clientCapabilities[capability])) return Promise.reject(new MissingCapabilityError({ [capability]: {} }));
    const mode = method === ELICIT ? unsupportedElicitationMode(revision, ctx.clientCapabilities[capability] as Result, params) : undefined;
    if (mode) return Promise.reject(new MissingCapabilityError({ [capability]: { [mode]: {} } }));
    const task = flight.task;
    if (task?.decided) {
      const peer = scope.peer;
      return tasksFor(this.server).ask(tasksFor(this.server).run(flight)!, ctx, method, capability, params, options?.key, (s, p) =>
        peer ? peer.askClient(s, method, p) : Promise.reject(new McpError(errorCode(revision, "INTERNAL_ERROR")!, `${method}: no link to ask the client on`)),
      );
    }
    if (serverMaySendRequests(revision)) {
      if (!scope.peer) return Promise.reject(new McpError(errorCode(revision, "INTERNAL_ERROR")!, `${method}: no link to ask the client on`));
      return scope.peer.askClient(scope, method, params);
    }
    const validators = ctx.mrtrValidators;
    if (!validators) return Promise.reject(new McpError(errorCode(revision, "INTERNAL_ERROR")!, `${method}: ${scope.req.method} cannot ask the client for input in ${revision}`));
    const round = (flight.round ??= openRound(this.server.requestStateCodec, revision, scope.req.method, scope.req.params ?? {}, validators, scope.principal?.subject));
    return askInRound(round, method, capability, params, options);
  }

  /**
   * A notification on behalf of a request: nothing once it was cancelled, nothing the revision does not define, and in
   * a legacy session not yet initialized only logging (the rest is held). spec/2025-11-25/basic/lifecycle.mdx#initialization
   */
  notify(ctx: HandlerContext, method: string, params: Result): void {
    if (ctx.flight.aborted) return;
    const { revision, scope } = ctx;
    if (!methodFlows(revision, method, "server→client")) return;
    // A task's notifications carry its id (2025-11-25). spec/2025-11-25/basic/utilities/tasks.mdx#associating-task-related-messages
    if (ctx.flight.task && taskWireForm(revision) === "core") params = { ...params, _meta: { ...((params._meta as Result) ?? {}), [META_RELATED_TASK]: { taskId: ctx.flight.task.id } } };
    const message: JsonRpcMessage = { jsonrpc: "2.0", method, params };
    const session = scope.peer?.session;
    if (isLegacy(revision) && session && !session.initialized && method !== "notifications/message") {
      session.held.push({ message, requestId: scope.req.id, sink: scope.sink });
      return;
    }
    scope.sink.send(message);
  }

  /** The level at or above which `ctx.log` sends: the session's (legacy) or this request's `_meta` (modern); undefined: none. */
  logThreshold(ctx: HandlerContext): string | undefined {
    if (isModern(ctx.revision)) return ctx.scope.meta?.[META_LOG_LEVEL] as string | undefined;
    return this.server.options.logging ? (ctx.scope.peer?.session?.logLevel ?? this.server.options.defaultLogLevel) : undefined;
  }
}

function noop(): void {}
