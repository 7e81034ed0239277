/**
 * What the server sends for a request: where its messages go (Sink) and the questions it asks the client (ClientAsk).
 * Below the request scope, the legacy session and the input rounds, which all hold them.
 */
import type { JsonRpcMessage } from "../wire/jsonrpc.js";

/** Where messages for one request go: the link's output, or (HTTP) that request's own stream. */
export interface Sink {
  send(message: JsonRpcMessage): void;
  /**
   * A change notification derived from a server event (legacy sessions): every process sharing the session hears the
   * event itself, so it is never forwarded to another process. Default: send.
   */
  sendEvent?(message: JsonRpcMessage): void;
  /** Close the connection carrying this request's stream, keeping the stream resumable (HTTP only; see RequestContext.closeStream). */
  closeStream?(): boolean;
  /**
   * `ms` of the event loop's time spent on this request after its synchronous start: a batch's members started or
   * answered later (protocol/batch.ts). HTTP charges it to the request's caller (transport/http/cpu-share.ts).
   */
  spent?(ms: number): void;
  /** HTTP: the W3C trace context of the request's headers (protocol/telemetry.ts), when it carried a traceparent. */
  readonly traceCarrier?: Partial<Record<"traceparent" | "tracestate" | "baggage", string>>;
}

/** A question a handler asks the client: elicitation/create, sampling/createMessage or roots/list. */
export interface ClientAsk {
  readonly method: string;
  /** The client capability the method needs (`elicitation`, `sampling`, `roots`). */
  readonly capability: string;
  readonly params?: Record<string, unknown>;
  /** The key its answer is found under (MRTR inputResponses, a task's inputRequests); default `<capability>-<n>`. */
  readonly key?: string;
}
