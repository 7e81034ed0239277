/**
 * One request on its way through admission, validation, dispatch and encoding: the request scope every step
 * receives, instead of long parameter lists.
 */
import type { Revision } from "../rules.js";
import type { Principal } from "../server/types.js";
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from "../wire/jsonrpc.js";
import type { InputRound } from "./input-rounds.js";
import type { LegacyPeer } from "./legacy-session.js";

/** Where messages for one request go: the link's output, or (HTTP) that request's own stream. */
export interface Sink {
  send(message: JsonRpcMessage): void;
  /** Close the connection carrying this request's stream, keeping the stream resumable (HTTP only; see RequestContext.closeStream). */
  closeStream?(): boolean;
}

/** A request being handled. Its AbortController is made only when a handler looks at `ctx.signal` (most never do). */
export class InFlight {
  /** Set when the client cancelled (or the transport closed): no response may follow. */
  cancelled = false;
  /** Modern MRTR state of this run, made on the first ask (or up front when the request carries answers). */
  round?: InputRound;
  /** Set when this run is a task's (protocol/tasks.ts): its asks and notifications follow the task's rules. */
  task?: { readonly id: string; readonly created: boolean; readonly creating?: Promise<void>; status(message: string): void };
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
  readonly peer?: LegacyPeer;
  /** The verified principal (HTTP with authorization); undefined otherwise. */
  readonly principal?: Principal;
  /** Set by dispatch once the request is admitted. */
  flight?: InFlight;
  /** Modern HTTP: where a subscriptions/listen registers its end, so that the endpoint can end it gracefully. */
  readonly listens?: Set<() => void>;
}

export type { RequestId };
