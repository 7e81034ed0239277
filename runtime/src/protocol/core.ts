/**
 * What the transports hold of a server: the protocol core's entry points, never the registration API. A transport
 * opens a Connection per link that keeps state (a stdio pipe, a legacy HTTP session), behind which a message goes
 * classify → admit → validate → dispatch → encode; a modern HTTP request keeps none, so the endpoint classifies it
 * and hands it to `serveModern` (dispatched statelessly, no Connection).
 */
import type { McpServer } from "../server/server.js";
import { headerParams, type HeaderParam } from "../wire/headers.js";
import type { ServedRevisions } from "./classify.js";
import { Connection, type ConnectionOptions } from "./connection.js";
import { dispatcherFor, type ModernExchange } from "./dispatch.js";
import type { Sink } from "./request.js";
import { declaredScopes, scopesFor } from "../server/authorization.js";
import type { Classification } from "./classify.js";
import type { Revision } from "../rules.js";
import type { MessageBus } from "../state/bus.js";
import type { EventLog, SessionStore } from "../state/sessions.js";

export interface ProtocolCore {
  /** Revisions served, in declaration order. */
  readonly revisions: readonly Revision[];
  /** The served revisions by era, each in declaration order. */
  readonly eras: ServedRevisions;
  /** A new peer link whose answers go to `sink`. */
  connect(sink: Sink, options?: ConnectionOptions): Connection;
  /** A modern request classified by an HTTP endpoint: dispatched statelessly, no link. Resolves when answered. */
  serveModern(value: unknown, route: Classification & { kind: "modern" }, exchange: ModernExchange): Promise<void> | void;
  /** HTTP with authorization: the scopes the feature a request names declares (tools/call, prompts/get, resources/read). */
  requiredScopes(method: string, params: Record<string, unknown> | undefined): readonly string[] | undefined;
  /** Every scope the server's tools, prompts and resources declare. */
  declaredScopes(): readonly string[];
  /** The message bus the server's processes share (server events; shared legacy sessions' traffic). */
  readonly bus: MessageBus;
  /** The shared legacy session store and event log, when configured (ServerOptions.sessions, env MCP_REDIS_URL). */
  sharedSessions(): (SessionStore & EventLog) | undefined;
  /** HTTP: the Mcp-Param headers tool `toolName` declares (spec/2026-07-28/basic/transports/streamable-http.mdx#custom-headers-from-tool-parameters). */
  paramHeaders(toolName: string): readonly HeaderParam[] | undefined;
}

export type { ModernExchange };

const cores = new WeakMap<McpServer, ProtocolCore>();

/** The protocol core of `server` (one per server). */
export function protocolCore(server: McpServer): ProtocolCore {
  let core = cores.get(server);
  if (!core) {
    const declared = new WeakMap<object, HeaderParam[]>();
    core = {
      get revisions() {
        return server.revisions;
      },
      get eras() {
        return server.eras;
      },
      get bus() {
        return server.bus;
      },
      sharedSessions: () => server.sharedSessions(),
      connect: (sink, options) => new Connection(server, sink, options),
      serveModern: (value, route, exchange) => dispatcherFor(server).serveModern(value, route, exchange),
      requiredScopes: (method, params) => scopesFor(server, method, params),
      declaredScopes: () => declaredScopes(server),
      paramHeaders(toolName) {
        const tool = server.tools.get(toolName);
        if (!tool) return undefined;
        let params = declared.get(tool);
        if (!params) declared.set(tool, (params = headerParams(tool.inputSchema)));
        return params;
      },
    };
    cores.set(server, core);
  }
  return core;
}
