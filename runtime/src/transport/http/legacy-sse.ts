/**
 * The deprecated HTTP+SSE transport of 2024-11-05 (off unless `legacySse`): a GET opens the session's event stream,
 * whose first event names the POST endpoint; every server message is a `message` event on that stream.
 * spec/2024-11-05/basic/transports.mdx#http-with-sse
 */
import type { Connection, Sink } from "../../protocol/connection.js";
import type { ProtocolCore } from "../../protocol/core.js";
import type { JsonRpcMessage } from "../../wire/jsonrpc.js";
import type { Reply } from "./io.js";
import { PacedOutput } from "../paced.js";
import { sseEvent } from "./sse.js";

const LEGACY: { transport: "http"; era: "legacy" } = { transport: "http", era: "legacy" };

/**
 * A 2024-11-05 HTTP+SSE session: every server message is an SSE `message` event on the GET stream. The SDK clients
 * dispatch all events of one network read synchronously (the `eventsource` parser), as on stdio, so a response right
 * after a progress notification waits a moment (PacedOutput). Streamable HTTP needs no such pacing: the
 * SDKs read its SSE events one `await reader.read()` at a time, which lets the progress handler run in between.
 */
export class SseSession implements Sink {
  readonly connection: Connection;
  private readonly out: PacedOutput;
  constructor(
    core: ProtocolCore,
    readonly res: Reply,
  ) {
    this.connection = core.connect(this, LEGACY);
    this.out = new PacedOutput((chunk) => void (res.destroyed || res.write(chunk)), false);
    res.once("close", () => this.out.close());
  }
  send(message: JsonRpcMessage): void {
    if (!this.res.destroyed) this.out.push(sseEvent(message), message);
  }
}
