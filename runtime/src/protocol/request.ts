/**
 * One request on its way through admission, validation, dispatch and encoding: the request scope every step
 * receives, instead of long parameter lists.
 */
import type { Revision } from "../rules.js";
import type { Principal } from "../server/types.js";
import type { SessionChange } from "../state/sessions.js";
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from "../wire/jsonrpc.js";
import type { InputRound } from "./input-rounds.js";
import type { LegacySession } from "./legacy-session.js";
import type { ClientAsk, Sink } from "./outbound.js";

type Result = Record<string, unknown>;

/** What a request's run knows of the task it runs as (protocol/task-run.ts). */
export interface RunTask {
  readonly id: string;
  status(message: string): void;
  /** The task's own way to ask the client, once the run is a task; undefined before (the request's own asks apply). */
  readonly ask: ((ask: ClientAsk) => Promise<Result>) | undefined;
}

/** A request's telemetry while it is handled (protocol/telemetry.ts: its span, its duration), when an SDK is registered. */
export interface RequestTelemetry {
  /** Run `fn` with the request's span active (the handler's own spans and calls nest under it). */
  run<T>(fn: () => T): T;
  /** The trace id of the request's span (32 hex digits), when it is traced; for log records. */
  readonly traceId: string | undefined;
  /** The request was answered with `response`, or (undefined) cancelled: end its span, record its duration. */
  end(response: JsonRpcMessage | undefined): void;
}

/** A request being handled. Its AbortController is made only when a handler looks at `ctx.signal` (most never do). */
export class InFlight {
  /** Set when the client cancelled (or the transport closed): no response may follow. */
  cancelled = false;
  /**
   * Set once the request is answered (or its task ended): nothing more goes out on its behalf, as progress MUST stop
   * after completion. spec/2025-11-25/basic/utilities/progress.mdx, spec/2026-07-28/basic/patterns/progress.mdx
   */
  answered = false;
  /** Modern MRTR state of this run, made on the first ask (or up front when the request carries answers). */
  round?: InputRound;
  /** Set when this run is a task's (protocol/tasks.ts): its asks and notifications follow the task's rules. */
  task?: RunTask;
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

  /** The client cancelled, or the transport closed: abort the handler, and send no response. spec/2025-11-25/basic/utilities/cancellation.mdx */
  cancel(reason: unknown): void {
    this.cancelled = true;
    this.abort(reason);
  }
}

/**
 * What dispatch needs of the link a request came on, when it keeps state between messages: a stdio pipe (either era)
 * or a legacy HTTP session. A modern HTTP request has none.
 */
export interface Link {
  readonly transport: "stdio" | "http";
  /** This link's id (random): what a request's tasks are bound to when there is no principal. */
  readonly id: string;
  /** The link's own output (stdio, or the session's GET stream): for messages of work that outlives its request (tasks). */
  readonly out: Sink;
  /** Requests in flight on this link, by id: duplicate ids are refused, notifications/cancelled finds them. */
  readonly inFlight: Map<RequestId, InFlight>;
  /** The legacy session, once `initialize` was answered. */
  session?: LegacySession;
  /** Ends of this link's subscriptions/listen streams (the link's end ends them). */
  readonly listens: Set<() => void>;
  /** The session's state changed (log level, subscriptions): where sessions are shared, the change is stored. */
  sessionChanged?(change: SessionChange): void;
  /** A server→client request (legacy only). */
  askClient(scope: RequestScope, method: string, params: Result | undefined): Promise<Result>;
}

/** A request routed by the classifier and admitted: everything dispatch needs. */
export interface RequestScope {
  readonly revision: Revision;
  readonly req: JsonRpcRequest;
  readonly sink: Sink;
  /** The session's (legacy) or this request's `_meta` (modern) client capabilities. */
  readonly clientCapabilities: Record<string, unknown>;
  readonly clientInfo?: Record<string, unknown>;
  /** Modern: the request's `_meta`. */
  readonly meta?: Record<string, unknown>;
  /**
   * The link the request came on, when it keeps per-link state: requests in flight (duplicate ids, cancellation) and,
   * legacy, the session. Undefined for a modern HTTP request, which has none.
   */
  readonly link?: Link;
  /** The verified principal (HTTP with authorization); undefined otherwise. */
  readonly principal?: Principal;
  /** Set by dispatch once the request is admitted. */
  flight?: InFlight;
  /** Modern HTTP: where a subscriptions/listen registers its end, so that the endpoint can end it gracefully. */
  readonly listens?: Set<() => void>;
  /** Set by dispatch when tracing or metrics are on: the request's span and duration (protocol/telemetry.ts). */
  telemetry?: RequestTelemetry;
}

export type { RequestId, Principal, Sink, ClientAsk };
