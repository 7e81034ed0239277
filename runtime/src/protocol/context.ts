/**
 * The context a handler receives (RequestContext). A class rather than an object of closures: one is made for every
 * request. Call its methods on the context (`ctx.log(...)`), as they use `this`.
 */
import type { CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ListRootsResult, LoggingLevel } from "../../../out/latest.js";
import { type DispatchValidators, type Revision, hasField, isModern } from "../rules.js";
import { type AskOptions, LOGGING_LEVELS, type McpServer, type RequestContext } from "../server/server.js";
import type { JsonRpcRequest, RequestId } from "../wire/jsonrpc.js";
import type { Dispatcher } from "./dispatch.js";
import type { InFlight, RequestScope, Sink } from "./request.js";
import { isObject } from "../wire/jsonrpc.js";

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
  private lastProgress = -Infinity;

  constructor(
    private readonly dispatcher: Dispatcher,
    readonly scope: RequestScope,
    readonly flight: InFlight,
    /** Modern requests that may answer input_required: the validators of the answers. */
    readonly mrtrValidators: DispatchValidators | undefined,
  ) {
    this.server = dispatcher.server;
    this.revision = scope.revision;
    this.era = isModern(scope.revision) ? "modern" : "legacy";
    this.req = scope.req;
    this.requestId = scope.req.id;
    this.sink = scope.sink;
    this.clientCapabilities = scope.clientCapabilities;
    this.principal = scope.principal;
    if (scope.clientInfo) this.clientInfo = scope.clientInfo as unknown as RequestContext["clientInfo"];
  }

  /** When the handler runs as a task: its id and status messages. */
  get task(): RequestContext["task"] {
    const t = this.flight.task;
    return t && { id: t.id, status: (message: string) => t.status(message) };
  }

  /** The same handler's context for another scope and run (a task's, which outlives the request). */
  fork(scope: RequestScope, flight: InFlight): HandlerContext {
    return new HandlerContext(this.dispatcher, scope, flight, this.mrtrValidators);
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
    this.dispatcher.notify(this, "notifications/progress", params);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    const threshold = this.dispatcher.logThreshold(this);
    // Modern: no log notification unless this request set a level. spec/2026-07-28/server/utilities/logging.mdx
    if (threshold === undefined || levelRank(threshold) < 0 || levelRank(level) < levelRank(threshold)) return;
    this.dispatcher.notify(this, "notifications/message", logger === undefined ? { level, data } : { level, logger, data });
  }

  elicit(params: ElicitRequestParams, options?: AskOptions): Promise<ElicitResult> {
    return this.dispatcher.ask(this, "elicitation/create", "elicitation", params as unknown as Record<string, unknown>, options) as unknown as Promise<ElicitResult>;
  }

  sample(params: CreateMessageRequestParams, options?: AskOptions): Promise<CreateMessageResult> {
    return this.dispatcher.ask(this, "sampling/createMessage", "sampling", params as unknown as Record<string, unknown>, options) as unknown as Promise<CreateMessageResult>;
  }

  listRoots(options?: AskOptions): Promise<ListRootsResult> {
    return this.dispatcher.ask(this, "roots/list", "roots", undefined, options) as unknown as Promise<ListRootsResult>;
  }

  closeStream(): boolean {
    return this.sink.closeStream?.() ?? false;
  }
}
