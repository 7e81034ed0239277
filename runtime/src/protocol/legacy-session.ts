/**
 * The legacy era's session: the `initialize` handshake that opens it, what it keeps (negotiated revision, client
 * capabilities and info, log level, subscriptions), the notifications held until `notifications/initialized`, and the
 * change notifications it is sent. Nothing here is visible to modern requests.
 * spec/2025-11-25/basic/lifecycle.mdx
 */
import type { LoggingLevel } from "../../../out/latest.js";
import { type Revision, type Validator, errorCode, hasField, methodFlows, requestValidatorFor, describeErrors } from "../rules.js";
import type { McpServer, ServerEvent } from "../server/server.js";
import { errorResponse } from "../wire/errors.js";
import type { JsonRpcMessage, JsonRpcRequest, JsonRpcResponse, RequestId } from "../wire/jsonrpc.js";
import type { Sink } from "./outbound.js";
import type { SessionState } from "../state/sessions.js";
import { isObject } from "../wire/jsonrpc.js";

/** Legacy per-session state. */
export interface LegacySession {
  revision: Revision;
  clientCapabilities: Record<string, unknown>;
  /**
   * The capabilities the server declared in its initialize result: negotiated for the session's lifetime
   * (spec/2025-11-25/basic/lifecycle.mdx#capability-negotiation), so the session keeps their methods and change
   * notifications when a later removal takes them out of what a new session is told.
   */
  serverCapabilities: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
  /** notifications/initialized received. */
  initialized: boolean;
  /** Set by logging/setLevel. */
  logLevel?: LoggingLevel;
  subscriptions: Set<string>;
  /** Server notifications held until notifications/initialized (only pings and logging may precede it), with their request. */
  held: { message: JsonRpcMessage; requestId: RequestId; sink: Sink }[];
  /** Resolves at notifications/initialized: server→client requests wait for it. */
  ready: Promise<void>;
  markReady: () => void;
}

/**
 * Answer `initialize`: echo a served legacy version, else counter-offer the newest served (also for a modern version:
 * the modern era has no handshake). A missing or non-string version is -32602; a second initialize is -32600.
 * Returns the response and, when the handshake succeeded, the new session.
 * spec/2025-11-25/basic/lifecycle.mdx#version-negotiation
 */
export async function handshake(server: McpServer, current: LegacySession | undefined, req: JsonRpcRequest): Promise<{ response: JsonRpcResponse; session?: LegacySession }> {
  const params = req.params ?? {};
  const legacy = server.eras.legacy;
  const requested = params.protocolVersion;
  const newest = legacy[legacy.length - 1];
  if (current) return { response: errorResponse(current.revision, req.id, errorCode(current.revision, "INVALID_REQUEST")!, "Invalid Request: already initialized") };
  if (typeof requested !== "string") return { response: errorResponse(newest, req.id, errorCode(newest, "INVALID_PARAMS")!, "Invalid params: protocolVersion must be a string") };
  const revision = (legacy as string[]).includes(requested) ? (requested as Revision) : newest;
  let v: Validator | undefined;
  try {
    v = await requestValidatorFor(revision, "initialize");
  } catch (err) {
    // A load that fails is answered, never dropped (the next initialize tries again).
    return { response: errorResponse(revision, req.id, errorCode(revision, "INTERNAL_ERROR")!, `Internal error: the ${revision} validators could not be loaded (${(err as Error)?.message ?? err})`) };
  }
  if (v && !v(req)) return { response: errorResponse(revision, req.id, errorCode(revision, "INVALID_PARAMS")!, `Invalid params: ${describeErrors(v)}`) };
  let markReady!: () => void;
  const ready = new Promise<void>((r) => (markReady = r));
  const capabilities = server.capabilities(revision);
  const session: LegacySession = {
    revision,
    clientCapabilities: isObject(params.capabilities) ? params.capabilities : {},
    serverCapabilities: capabilities,
    clientInfo: isObject(params.clientInfo) ? params.clientInfo : undefined,
    initialized: false,
    subscriptions: new Set(),
    held: [],
    ready,
    markReady,
  };
  const result: Record<string, unknown> = { protocolVersion: revision, capabilities, serverInfo: server.serverInfo(revision) };
  if (server.options.instructions && hasField(revision, "InitializeResult", "instructions")) result.instructions = server.options.instructions;
  return { response: { jsonrpc: "2.0", id: req.id, result }, session };
}

/**
 * A session restored from its stored state (shared sessions): the same fields, with nothing held. A record without
 * the server's capabilities (stored by an older runtime) takes what `server` declares now.
 */
export function restoredSession(server: McpServer, state: SessionState): LegacySession {
  let markReady!: () => void;
  const ready = new Promise<void>((r) => (markReady = r));
  if (state.initialized) markReady();
  return {
    revision: state.revision as Revision,
    clientCapabilities: state.clientCapabilities,
    serverCapabilities: state.serverCapabilities ?? server.capabilities(state.revision as Revision),
    clientInfo: state.clientInfo,
    initialized: state.initialized,
    logLevel: state.logLevel as LoggingLevel | undefined,
    subscriptions: new Set(state.subscriptions),
    held: [],
    ready,
    markReady,
  };
}

/**
 * notifications/initialized: the session is ready. Held notifications of requests still running go out (progress and
 * the like mean nothing once their request has finished); server→client requests may now be sent.
 */
export function markInitialized(session: LegacySession, running: (id: RequestId) => boolean): void {
  if (session.initialized) return;
  session.initialized = true;
  for (const h of session.held.splice(0)) if (running(h.requestId)) h.sink.send(h.message);
  session.markReady();
}

/**
 * The change notification a session is sent for `event`, if any: gated on the capability the server declared to the
 * session at initialize (a removal since does not silence it: the last tool's removal is a list change too) and, for
 * resources/updated, on the session's subscription to the resource.
 * spec/2025-11-25/server/tools.mdx#list-changed-notification, spec/2025-11-25/server/resources.mdx#subscriptions
 */
export function changeNotification(session: LegacySession | undefined, event: ServerEvent): JsonRpcMessage | undefined {
  if (!session || !session.initialized || event.filter === "end") return undefined;
  const caps = session.serverCapabilities as Record<string, Record<string, unknown> | undefined>;
  const gate: Record<string, boolean> = {
    toolsListChanged: caps.tools?.listChanged === true,
    promptsListChanged: caps.prompts?.listChanged === true,
    resourcesListChanged: caps.resources?.listChanged === true,
    resourceSubscriptions: caps.resources?.subscribe === true && session.subscriptions.has(event.uri ?? ""),
  };
  if (!gate[event.filter] || !methodFlows(session.revision, event.method, "server→client")) return undefined;
  return { jsonrpc: "2.0", method: event.method, params: event.uri === undefined ? {} : { uri: event.uri } };
}
