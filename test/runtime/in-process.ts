/**
 * A link to a server in process, as a stdio pipe is (the protocol core's Connection, a capturing sink): what the
 * server sent, a way to send it a message (`jsonrpc: "2.0"` added), and optionally a client that answers the server's
 * own requests (elicitation/create, sampling/createMessage, roots/list) with `answer(request)`.
 */
import { Connection, type McpServer } from "../../runtime/dist/index.js";

export interface InProcessLink {
  /** Every message the server sent, but the requests `answer` answered. */
  out: any[];
  /** The server's requests `answer` answered, in order. */
  asked: any[];
  send(message: Record<string, unknown>): Promise<void>;
  /** Send the legacy handshake (initialize, then notifications/initialized) for `revision` with `capabilities`. */
  initialize(revision: string, capabilities?: Record<string, unknown>): Promise<void>;
  idle(): Promise<void>;
  close(): void;
}

export function inProcessLink(server: McpServer, answer?: (request: any) => unknown): InProcessLink {
  const out: any[] = [];
  const asked: any[] = [];
  const c: Connection = new Connection(
    server,
    {
      send: (m: any) => {
        if (!answer || m.method === undefined || m.id === undefined) return void out.push(m);
        asked.push(m);
        void c.receive({ jsonrpc: "2.0", id: m.id, result: answer(m) });
      },
    },
    { transport: "stdio" },
  );
  const send = (m: Record<string, unknown>) => c.receive({ jsonrpc: "2.0", ...m });
  return {
    out,
    asked,
    send,
    initialize: async (revision, capabilities = {}) => {
      await send({ id: 0, method: "initialize", params: { protocolVersion: revision, capabilities, clientInfo: { name: "t", version: "1" } } });
      await send({ method: "notifications/initialized" });
    },
    idle: () => c.idle(),
    close: () => c.close(),
  };
}
