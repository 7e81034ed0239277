/**
 * What a handler's context asks of its host: the server, the questions it asks the client (`ctx.elicit/sample/
 * listRoots`) and the notifications it sends on behalf of its request (`ctx.progress/log`). One per server; the
 * request's scope and run come with each call.
 */
import { type Revision, errorCode, hasCapability, hasMethod, isLegacy, isModern, methodFlows, serverMaySendRequests, taskWireForm } from "../rules.js";
import { MissingCapabilityError, type McpServer } from "../server/server.js";
import { SchemaCompileUnavailableError, compileTransientSchema, type SchemaValidator } from "../server/schema.js";
import { principalIdentity } from "../state/request-state.js";
import { McpError, isObject, type JsonRpcMessage } from "../wire/jsonrpc.js";
import { META_LOG_LEVEL, META_RELATED_TASK } from "../wire/meta.js";
import type { ContextHost, HandlerContext } from "./context.js";
import { askInRound, openRound } from "./input-rounds.js";
import type { ClientAsk } from "./outbound.js";
import { InputRequiredSignal } from "./mrtr.js";
import { traceAsk } from "./telemetry.js";

type Result = Record<string, unknown>;

const ELICIT = "elicitation/create";

/** An MRTR ask ends its run here: the answer comes in the client's next request (not a failure of the ask). */
const inputRequired = (err: unknown): boolean => err instanceof InputRequiredSignal;

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

/**
 * requestedSchema validators by the schema's JSON (a handler asks with a fresh object each run), most recently used
 * last, within REQUESTED_SCHEMA_CHARS of schema text: compiled by an ajv that keeps nothing itself
 * (compileTransientSchema), so these are all that is held. A schema larger than a tenth of it is not kept.
 */
const requestedSchemas = new Map<string, SchemaValidator | null>();
const REQUESTED_SCHEMA_CHARS = 4 * 1024 * 1024;
let requestedSchemaChars = 0;

/** The validator of a requestedSchema, or null where this host cannot compile schemas at run time. Throws as formValidator. */
function requestedSchemaValidator(schema: Result): SchemaValidator | null {
  const key = JSON.stringify(schema);
  const kept = requestedSchemas.get(key);
  if (kept !== undefined) {
    requestedSchemas.delete(key);
    requestedSchemas.set(key, kept);
    return kept;
  }
  let v: SchemaValidator | null;
  try {
    v = compileTransientSchema(schema);
  } catch (err) {
    if (!(err instanceof SchemaCompileUnavailableError)) throw new Error(`server bug: the elicitation's requestedSchema does not compile: ${(err as Error).message}`, { cause: err });
    v = null;
  }
  if (key.length > REQUESTED_SCHEMA_CHARS / 10) return v;
  for (const [oldest] of requestedSchemas) {
    if (requestedSchemaChars + key.length <= REQUESTED_SCHEMA_CHARS) break;
    requestedSchemas.delete(oldest);
    requestedSchemaChars -= oldest.length;
  }
  requestedSchemas.set(key, v);
  requestedSchemaChars += key.length;
  return v;
}

/**
 * The validator of a form elicitation's requestedSchema, or null: the ask is no form elicitation, or this host cannot
 * compile schemas at run time (workerd: the content goes unchecked). Throws Error (a server bug) for a schema that
 * does not compile (an unknown `$schema` dialect, an external `$ref`).
 */
function formValidator({ method, params }: ClientAsk): SchemaValidator | null {
  if (method !== ELICIT || params?.mode === "url" || !isObject(params?.requestedSchema)) return null;
  return requestedSchemaValidator(params.requestedSchema as Result);
}

/**
 * `answer`, when an accepted form's content matches the requestedSchema sent: "Servers SHOULD validate received data
 * matches the requested schema" (spec/2025-11-25/client/elicitation.mdx#security-considerations,
 * spec/2026-07-28/client/elicitation.mdx#security-considerations). Else throws: McpError with `code` (an answer that
 * came as a request's parameter: an MRTR round, tasks/update), else Error (the handler's ask fails).
 */
function matching(ask: ClientAsk, form: SchemaValidator | null, answer: Result, code?: number): Result {
  if (!form || answer?.action !== "accept" || form(answer.content ?? {})) return answer;
  const message = `the client's ${ask.method} content does not match the requestedSchema: ${form.describe()}`;
  throw code === undefined ? new Error(message) : new McpError(code, `Invalid params: ${message}`);
}

export class HandlerHost implements ContextHost {
  constructor(readonly server: McpServer) {}

  /**
   * `ctx.elicit/sample/listRoots`: the task's own ask when the run is a task's, else a legacy server→client request,
   * else a modern MRTR ask. Rejects with MissingCapabilityError when the revision in force has no such request, or
   * the client did not declare what the ask needs.
   */
  ask(ctx: HandlerContext, ask: ClientAsk): Promise<Result> {
    const { revision, scope, flight } = ctx;
    const { method, capability, params } = ask;
    // A revision without the method (elicitation before 2025-06-18) has no such ask, whatever the client declared.
    if (!hasMethod(revision, method))
      return Promise.reject(new MissingCapabilityError({ [capability]: {} }, `the negotiated revision ${revision} has no ${capability} (it defines no ${method} request)`));
    if (!isObject(ctx.clientCapabilities[capability])) return Promise.reject(new MissingCapabilityError({ [capability]: {} }));
    const mode = method === ELICIT ? unsupportedElicitationMode(revision, ctx.clientCapabilities[capability] as Result, params) : undefined;
    if (mode) return Promise.reject(new MissingCapabilityError({ [capability]: { [mode]: {} } }));
    // The form's schema compiles before anyone is asked: one that cannot fails the ask now, not after the user answered.
    let form: SchemaValidator | null;
    try {
      form = formValidator(ask);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    const taskAsk = flight.task?.ask;
    // Each ask is a CLIENT span under the handler's (protocol/telemetry.ts); a legacy request carries its trace context.
    // A task's answers come in tasks/update where the extension is the wire form: a mismatch is -32602 there, as in a round.
    if (taskAsk) {
      const code = taskWireForm(revision) === "extension" ? errorCode(revision, "INVALID_PARAMS") : undefined;
      return traceAsk(method, params, () => taskAsk(ask), inputRequired).then((answer) => matching(ask, form, answer, code));
    }
    if (serverMaySendRequests(revision)) {
      const link = scope.link;
      if (!link) return Promise.reject(new McpError(errorCode(revision, "INTERNAL_ERROR")!, `${method}: no link to ask the client on`));
      return traceAsk(method, params, (traced) => link.askClient(scope, method, traced), inputRequired).then((answer) => matching(ask, form, answer));
    }
    const answerValidators = ctx.mrtrAnswers;
    if (!answerValidators) return Promise.reject(new McpError(errorCode(revision, "INTERNAL_ERROR")!, `${method}: ${scope.req.method} cannot ask the client for input in ${revision}`));
    const round = (flight.round ??= openRound(
      this.server.requestStateCodec,
      revision,
      { method: scope.req.method, params: scope.req.params ?? {}, principal: principalIdentity(scope.principal) },
      answerValidators,
    ));
    // In a round the answer is the client's request parameter: a mismatch is -32602, as an invalid answer is.
    return traceAsk(method, params, () => askInRound(round, ask), inputRequired).then((answer) => matching(ask, form, answer, errorCode(revision, "INVALID_PARAMS")));
  }

  /**
   * A notification on behalf of a request: nothing once it was cancelled or answered (progress and logging for a
   * request come before its response: spec/2026-07-28/basic/patterns/progress.mdx, spec/2026-07-28/server/utilities/logging.mdx),
   * nothing the revision does not define, and in a legacy session not yet initialized only logging (the rest is held).
   * spec/2025-11-25/basic/lifecycle.mdx#initialization
   */
  notify(ctx: HandlerContext, method: string, params: Result): void {
    if (ctx.flight.aborted || ctx.flight.answered) return;
    const { revision, scope } = ctx;
    if (!methodFlows(revision, method, "server→client")) return;
    // A task's notifications carry its id (2025-11-25). spec/2025-11-25/basic/utilities/tasks.mdx#associating-task-related-messages
    if (ctx.flight.task && taskWireForm(revision) === "core") params = { ...params, _meta: { ...((params._meta as Result) ?? {}), [META_RELATED_TASK]: { taskId: ctx.flight.task.id } } };
    const message: JsonRpcMessage = { jsonrpc: "2.0", method, params };
    const session = scope.link?.session;
    if (isLegacy(revision) && session && !session.initialized && method !== "notifications/message") {
      session.held.push({ message, requestId: scope.req.id, sink: scope.sink });
      return;
    }
    scope.sink.send(message);
  }

  /** The level at or above which `ctx.log` sends: the session's (legacy) or this request's `_meta` (modern); undefined: none. */
  logThreshold(ctx: HandlerContext): string | undefined {
    if (isModern(ctx.revision)) return ctx.scope.meta?.[META_LOG_LEVEL] as string | undefined;
    return this.server.options.logging ? (ctx.scope.link?.session?.logLevel ?? this.server.options.defaultLogLevel) : undefined;
  }
}
