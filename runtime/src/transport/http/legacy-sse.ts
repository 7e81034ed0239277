/**
 * The deprecated HTTP+SSE transport of 2024-11-05 (off unless `legacySse`): a GET opens the session's event stream,
 * whose first event names the POST endpoint; every server message is a `message` event on that stream.
 * spec/2024-11-05/basic/transports.mdx#http-with-sse
 */
import type { Connection, Sink } from "../../protocol/connection.js";
import type { ProtocolCore } from "../../protocol/core.js";
import type { JsonRpcMessage } from "../../wire/jsonrpc.js";
import type { Reply } from "./io.js";
import { sseEvent } from "./sse.js";

const LEGACY: { transport: "http"; era: "legacy" } = { transport: "http", era: "legacy" };

/** A 2024-11-05 HTTP+SSE session: every server message is an SSE `message` event on the GET stream. */
export class SseSession implements Sink {
  readonly connection: Connection;
  constructor(
    core: ProtocolCore,
    readonly res: Reply,
  ) {
    this.connection = core.connect(this, LEGACY);
  }
  send(message: JsonRpcMessage): void {
    if (!this.res.destroyed) this.res.write(sseEvent(message));
  }
}
