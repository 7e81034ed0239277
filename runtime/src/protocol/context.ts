/**
 * The context a handler receives (RequestContext). A class rather than an object of closures: one is made for every
 * request. Call its methods on the context (`ctx.log(...)`), as they use `this`.
 */
import type { CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ListRootsResult, LoggingLevel } from "../../../out/latest.js";
import { type AnswerValidators, type Revision, hasField, isModern } from "../rules.js";
import { type AskOptions, LOGGING_LEVELS, type McpServer, type RequestContext } from "../server/server.js";
import type { JsonRpcRequest, RequestId } from "../wire/jsonrpc.js";
import type { ClientAsk, InFlight, RequestScope, Sink } from "./request.js";
import { isObject } from "../wire/jsonrpc.js";

type Result = Record<string, unknown>;

/** What a handler's context needs of its host (protocol/handler-host.ts): the server, and the messages it sends for the request. */
export interface ContextHost {
  readonly server: McpServer;
  /** `ctx.elicit/sample/listRoots`. Rejects with MissingCapabilityError, McpError, or the ask's own failure. */
  ask(ctx: HandlerContext, ask: ClientAsk): Promise<Result>;
  /** A notification on behalf of the request (progress, log), where the revision and the session allow it. */
  notify(ctx: HandlerContext, method: string, params: Result): void;
  /** The level at or above which `ctx.log` sends; undefined: none. */
  logThreshold(ctx: HandlerContext): string | undefined;
}

const levelRank = (l: string) => LOGGING_LEVELS.indexOf(l as LoggingLevel);

export class HandlerContext implements RequestContext {
  readonly server: McpServer;
  readonly revision: Revision;
  readonly era: "legacy" | "modern";
  readonly requestId: RequestId;
  readonly req: JsonRpcRequest;
  readonly sink: Sink;
  readonly clientCapabilities: Record<string, unknown>;
  clientInfo?: RequestContext["clientInfo"];
  readonly principal: RequestContext["principal"];
  readonly sessionId: string | undefined;
  readonly traceId: string | undefined;
  private lastProgress = -Infinity;

  constructor(
    private readonly host: ContextHost,
    readonly scope: RequestScope,
    readonly flight: InFlight,
    /** Modern requests that may answer input_required: the validators of the answers in its inputResponses. */
    readonly mrtrAnswers: AnswerValidators | undefined,
  ) {
    this.server = host.server;
    this.revision = scope.revision;
    this.era = isModern(scope.revision) ? "modern" : "legacy";
    this.req = scope.req;
    this.requestId = scope.req.id;
    this.sink = scope.sink;
    this.clientCapabilities = scope.clientCapabilities;
    this.principal = scope.principal;
    // A legacy HTTP link's id is its session's (Mcp-Session-Id); a stdio pipe's is its own, no session id.
    this.sessionId = scope.link?.transport === "http" ? scope.link.id : undefined;
    this.traceId = scope.telemetry?.traceId;
    if (scope.clientInfo) this.clientInfo = scope.clientInfo as unknown as RequestContext["clientInfo"];
  }

  /** When the handler runs as a task: its id and status messages. */
  get task(): RequestContext["task"] {
    const t = this.flight.task;
    return t && { id: t.id, status: (message: string) => t.status(message) };
  }

  /** The same handler's context for another scope and run (a task's, which outlives the request). */
  fork(scope: RequestScope, flight: InFlight): HandlerContext {
    return new HandlerContext(this.host, scope, flight, this.mrtrAnswers);
  }

  get signal(): AbortSignal {
    return this.flight.signal;
  }

  progress(progress: number, total?: number, message?: string): void {
    const token = isObject(this.req.params?._meta) ? (this.req.params!._meta as Record<string, unknown>).progressToken : undefined;
    // Progress MUST increase. spec/2025-11-25/basic/utilities/progress.mdx
    if (token === undefined || !(progress > this.lastProgress)) return;
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    const r = this.revision;
    if (message !== undefined && (hasField(r, "ProgressNotificationParams", "message") || hasField(r, "ProgressNotification", "params.message"))) params.message = message;
    this.host.notify(this, "notifications/progress", params);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    const threshold = this.host.logThreshold(this);
    // Modern: no log notification unless this request set a level. spec/2026-07-28/server/utilities/logging.mdx
    if (threshold === undefined || levelRank(threshold) < 0 || levelRank(level) < levelRank(threshold)) return;
    this.host.notify(this, "notifications/message", logger === undefined ? { level, data } : { level, logger, data });
  }

  elicit(params: ElicitRequestParams, options?: AskOptions): Promise<ElicitResult> {
    return this.host.ask(this, { method: "elicitation/create", capability: "elicitation", params: params as unknown as Result, key: options?.key }) as unknown as Promise<ElicitResult>;
  }

  sample(params: CreateMessageRequestParams, options?: AskOptions): Promise<CreateMessageResult> {
    return this.host.ask(this, { method: "sampling/createMessage", capability: "sampling", params: params as unknown as Result, key: options?.key }) as unknown as Promise<CreateMessageResult>;
  }

  listRoots(options?: AskOptions): Promise<ListRootsResult> {
    return this.host.ask(this, { method: "roots/list", capability: "roots", key: options?.key }) as unknown as Promise<ListRootsResult>;
  }

  closeStream(): boolean {
    return this.sink.closeStream?.() ?? false;
  }
}
