/**
 * Handler failures, seen by the developer and told safely to the client. Whatever a handler throws (or rejects with),
 * and a result it returns that the runtime must refuse (a tool's content that is not an array, structuredContent
 * that fails its outputSchema, a prompt without messages), is ONE log record through the server's `logger`, with an
 * error id. The client still gets what the spec says (a tool's `isError` result, spec/2025-11-25/server/tools.mdx#error-handling,
 * or the JSON-RPC error); with `exposeErrors: false` its message is generic and carries only that id.
 *
 * Errors a handler throws on purpose for the client (McpError, ResourceNotFoundError, MissingCapabilityError) keep
 * their message and are logged at `info`; one thrown after the request was cancelled at `debug` (nobody waits for it).
 */
import type { RequestId } from "../wire/jsonrpc.js";
import { McpError } from "../wire/jsonrpc.js";
import { cacheHintProblem } from "../wire/encode.js";
import { nodeCrypto } from "../state/request-state.js";
import { readEnv } from "../state/env.js";
import { MissingCapabilityError, ResourceNotFoundError } from "./errors.js";
import type { LogLevel, LogRecord, Logger, RequestContext } from "./types.js";

export type { LogLevel, LogRecord, Logger };

const SEVERITY: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

/**
 * The default logger: records at `warn` and above as one JSON line on stderr (`{"time":…,"level":…,"msg":…,…}`).
 * Never stdout: on stdio it carries the protocol and nothing else.
 */
export const stderrLogger: Logger = (record) => {
  if (SEVERITY[record.level] < SEVERITY.warn) return;
  toStderr(JSON.stringify({ time: new Date().toISOString(), ...record }));
};

/** One line on stderr; console.error where a host has no process.stderr (a Worker without nodejs_compat). */
function toStderr(line: string): void {
  const stderr = (globalThis as { process?: { stderr?: { write?: (s: string) => void } } }).process?.stderr;
  if (stderr?.write) stderr.write(line + "\n");
  else console.error(line);
}

/** `exposeErrors` when not given: false when NODE_ENV is `production`, else true. */
export function defaultExposeErrors(): boolean {
  return readEnv("NODE_ENV") !== "production";
}

/** Where a failure happened: the request, and what it named. */
export interface FailureSite {
  readonly method: string;
  readonly requestId: RequestId;
  readonly tool?: string;
  readonly prompt?: string;
  readonly uri?: string;
  /** The legacy HTTP session's id (logged as its first 8 characters). */
  readonly sessionId?: string;
  /** The principal's subject. */
  readonly subject?: string;
  /** The trace id of the request's span, when an OpenTelemetry SDK traces it. */
  readonly traceId?: string;
  /** The task the run is, when it is one. */
  readonly task?: string;
  /** The request was cancelled (or its task aborted) before the handler failed. */
  readonly aborted?: boolean;
}

/**
 * The site of a handler's failure from its context: `method` and what the request named (`tool`, `prompt` or `uri`).
 * Read only once a handler failed (reading `ctx.signal` makes its AbortController).
 */
export function siteOf(ctx: RequestContext, method: string, named: { tool?: string; prompt?: string; uri?: string }): FailureSite {
  return { method, requestId: ctx.requestId, ...named, sessionId: ctx.sessionId, traceId: ctx.traceId, subject: ctx.principal?.subject, task: ctx.task?.id, aborted: ctx.signal.aborted };
}

/** What failure reports need of a server: its logger and whether clients see exception text. */
export interface FailureOptions {
  readonly logger?: Logger;
  readonly exposeErrors?: boolean;
}

/**
 * A handler failure as the client is told it: `clientMessage` is the exception text (exposeErrors) or
 * "Internal error (id …)". Answered as the revision's internal error (-32603), or as a tool's `isError` text.
 */
export class HandlerFailure extends Error {
  constructor(
    readonly clientMessage: string,
    readonly errorId: string,
    /** What the handler threw. */
    readonly thrown: unknown,
  ) {
    super(clientMessage);
    this.name = "HandlerFailure";
  }
}

/** A handler's result the runtime cannot send (a handler's bug): given to handlerFailure, answered -32603. */
export class RefusedResult extends Error {
  override name = "RefusedResult";
}

/**
 * Refuse what a handler's result (a tool's, a prompt's, a resource's) sets of the fields that are the runtime's to
 * set. `resultType` other than "complete": the runtime answers `input_required` (with the inputRequests and
 * requestState the client needs: spec/2026-07-28/basic/patterns/mrtr.mdx#server-requirements-basic-workflow) and
 * `task` (only on a CreateTaskResult:
 * spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#polymorphic-results) itself. `ttlMs` that
 * is not an integer >= 0, and `cacheScope` neither "public" nor "private" (spec/2026-07-28/server/utilities/caching.mdx).
 * Throws RefusedResult naming `what` (e.g. "tool search") and the field.
 */
export function refuseRuntimeFields(what: string, result: Record<string, unknown>): void {
  const { resultType } = result;
  if (resultType !== undefined && resultType !== "complete")
    throw new RefusedResult(
      `${what} returned resultType ${JSON.stringify(String(resultType))}: the runtime sets resultType (ctx.elicit/sample/listRoots ask for input; a task is the tool's taskSupport)`,
    );
  const problem = cacheHintProblem(result);
  if (problem) throw new RefusedResult(`${what} returned caching hints it may not: ${problem}`);
}

/** Whether `err` is meant for the client as it is (a protocol error the handler threw on purpose, or an MRTR ask). */
export function isForClient(err: unknown): boolean {
  return err instanceof McpError || err instanceof MissingCapabilityError || err instanceof ResourceNotFoundError || err instanceof HandlerFailure || (err as Error)?.name === "InputRequiredSignal";
}

/** A short random id that names one failure in the log and in the client's message. */
function errorIdOf(): string {
  return nodeCrypto().randomBytes(8).toString("hex");
}

/** The `error` field of a record: what was thrown, a string or anything else as its String(). */
function errorField(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { name: err.name, message: err.message, ...(err.stack ? { stack: err.stack } : {}) };
  return { message: String(err) };
}

/**
 * THE place a failure's record is assembled (add request-wide fields, e.g. a trace id, here): the site's fields
 * that are set, the error id and the error.
 */
export function failureRecord(level: LogLevel, msg: string, site: FailureSite, errorId: string, err: unknown): LogRecord {
  const record: LogRecord = { level, msg, method: site.method, requestId: site.requestId };
  if (site.tool !== undefined) record.tool = site.tool;
  if (site.prompt !== undefined) record.prompt = site.prompt;
  if (site.uri !== undefined) record.uri = site.uri;
  // A session id authenticates an unauthenticated session: its first 8 characters follow it, as the request lines do.
  if (site.sessionId !== undefined) record.session = site.sessionId.slice(0, 8);
  if (site.subject !== undefined) record.subject = site.subject;
  if (site.traceId !== undefined) record.traceId = site.traceId;
  if (site.task !== undefined) record.task = site.task;
  record.errorId = errorId;
  record.error = errorField(err);
  return record;
}

/** Give `record` to the logger; a logger that throws is reported on stderr once per record, never to the request. */
export function emit(options: FailureOptions, record: LogRecord): void {
  try {
    (options.logger ?? stderrLogger)(record);
  } catch (err) {
    toStderr(`mcp runtime: the logger threw (${String((err as Error)?.message ?? err)}); the record was ${safeJson(record)}`);
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/**
 * A handler's failure at `site`: logged once, and returned as what to throw on. A protocol error meant for the client
 * is logged at `info` (`debug` after a cancellation) and returned as it is; anything else at `error` (`debug` after a
 * cancellation) and returned as a HandlerFailure whose message is `exposed` (exposeErrors) or "Internal error (id …)".
 * `exposed` defaults to "Internal error: <message>".
 */
export function handlerFailure(options: FailureOptions, site: FailureSite, err: unknown, exposed?: string): unknown {
  if ((err as Error)?.name === "InputRequiredSignal" || err instanceof HandlerFailure) return err;
  const errorId = errorIdOf();
  if (isForClient(err)) {
    emit(options, failureRecord(site.aborted ? "debug" : "info", "handler answered an error", site, errorId, err));
    return err;
  }
  emit(options, failureRecord(site.aborted ? "debug" : "error", site.aborted ? "handler failed after its request was cancelled" : "handler failed", site, errorId, err));
  const message = (options.exposeErrors ?? defaultExposeErrors()) ? (exposed ?? `Internal error: ${err instanceof Error ? err.message : String(err)}`) : `Internal error (id ${errorId})`;
  return new HandlerFailure(message, errorId, err);
}
