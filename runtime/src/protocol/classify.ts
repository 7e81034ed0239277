/**
 * The inbound classifier: the one place that decides a message's era, the revision in force and, for a modern
 * request, its `_meta` fields. Pure: no I/O, never throws, plain values in and out. stdio and every HTTP entry call
 * it once per message, at admission; every later step receives its decision instead of re-deriving it.
 *
 * The ladder, in the spec's order (each rung cites its page):
 *  1. Legacy HTTP session facts: an `Mcp-Session-Id` that names no session is 404; a known session is legacy, unless
 *     the body claims the modern era (body-primary: a modern request ignores the session id).
 *  2. `initialize` (without a modern claim) selects the legacy era; a server with no legacy revision rejects it with
 *     a code a legacy peer knows, naming the versions it supports.
 *  3. A modern claim (`_meta` protocol version), or on HTTP the modern headers, selects the modern era:
 *     MCP-Protocol-Version header missing (-32020), `_meta` fields missing (-32602), headers ≠ body (-32020),
 *     unsupported version (-32022).
 *  4. Anything else: legacy where the server serves it (stdio: before `initialize` only `ping`; HTTP: a session is
 *     required), else modern (which then fails its `_meta` rung).
 *
 * spec/2026-07-28/basic/versioning.mdx#backward-compatibility-with-initialization-based-versions
 * spec/2026-07-28/basic/transports/streamable-http.mdx#server-validation
 * spec/2025-11-25/basic/transports.mdx#session-management
 */
import { decodeHeaderValue, headerMatches, primitiveHeaderText, valueAt, type HeaderParam } from "../wire/headers.js";
import type { JsonRpcErrorObject } from "../wire/jsonrpc.js";
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION } from "../wire/meta.js";
import { fixedHttpStatus } from "../wire/http-status.js";
import { type Revision, LATEST_LEGACY, errorCode, hasHeader, isLegacy, isModern, isRevision, nameHeaderSources } from "../rules.js";
import { isObject } from "../wire/jsonrpc.js";
import { noBatchesHere } from "./batch.js";

/** The revisions a server serves, by era, each in declaration order (McpServer.eras). */
export interface ServedRevisions {
  readonly legacy: readonly Revision[];
  readonly modern: readonly Revision[];
}

/** An inbound message as the classifier sees it: its kind (from the JSON-RPC shape check), method and params. */
export interface InboundMessage {
  kind: "request" | "notification" | "response";
  method?: string;
  params?: Record<string, unknown>;
}

/** What the transport knows of a message besides its body. */
export interface InboundFacts {
  transport: "stdio" | "http";
  /** HTTP: the request's headers by lower-case name. */
  header?: (name: string) => string | undefined;
  /**
   * The legacy session in force: on stdio, the pipe's once `initialize` was answered; on HTTP, the session that
   * `Mcp-Session-Id` names, or "unknown" when it names none. Undefined: no session.
   */
  session?: { revision: Revision } | "unknown";
  served: ServedRevisions;
  /** HTTP: the Mcp-Param headers a tool declares (spec/2026-07-28/basic/transports/streamable-http.mdx#custom-headers-from-tool-parameters). */
  paramHeaders?: (toolName: string) => readonly HeaderParam[] | undefined;
}

/** The modern per-request metadata, read once. spec/2026-07-28/basic/index.mdx#_meta */
export interface RequestMeta {
  protocolVersion: Revision;
  clientCapabilities: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
  /** The whole `_meta` object (log level, progress token, …). */
  raw: Record<string, unknown>;
}

export type Classification =
  /** Serve in the legacy session; `revision` is the negotiated one, undefined before `initialize`. */
  | { kind: "legacy"; revision?: Revision }
  /** Serve statelessly under `revision`; `meta` is set for requests. */
  | { kind: "modern"; revision: Revision; meta?: RequestMeta }
  /** Answer with this error (its code chosen for what the peer understands) and, on HTTP, this status. */
  | Rejection;

export interface Rejection {
  kind: "reject";
  /** The revision whose rules shape the error response (e.g. how an unknown id is written). */
  revision: Revision;
  status: number;
  error: JsonRpcErrorObject;
}

/** Classify one message (not a batch). */
export function classify(message: InboundMessage, facts: InboundFacts): Classification {
  const { served, session } = facts;
  const meta = isObject(message.params?._meta) ? (message.params!._meta as Record<string, unknown>) : undefined;
  const claimed = meta?.[META_PROTOCOL_VERSION];
  // A `_meta` protocol version claims the modern era, except a legacy version inside a legacy session: that is the
  // session's own revision echoed, not a stateless request.
  const inSession = session !== undefined && session !== "unknown";
  const claimsModern = meta !== undefined && META_PROTOCOL_VERSION in meta && served.modern.length > 0 && !(inSession && isRevision(claimed) && isLegacy(claimed));
  const http = facts.transport === "http";
  const isInitialize = message.kind === "request" && message.method === "initialize";

  // 1. The stdio pipe is legacy for its lifetime once initialized. spec/2026-07-28/basic/versioning.mdx#backward-compatibility-with-initialization-based-versions
  if (!http && session !== undefined && session !== "unknown") return { kind: "legacy", revision: session.revision };
  if (http && session !== undefined && !claimsModern && served.legacy.length > 0) {
    // A session id of no live session: 404, so the client starts a new one. spec/2025-11-25/basic/transports.mdx#session-management
    if (session === "unknown") return reject(newestLegacy(served), 404, "INVALID_REQUEST", "Not Found: unknown or terminated session; send initialize to start a new one");
    return legacyHeaderCheck(facts) ?? { kind: "legacy", revision: session.revision };
  }

  // 2. initialize selects the legacy era. A modern-only server names its versions with a code legacy peers know.
  if (isInitialize && !claimsModern) {
    if (served.legacy.length > 0) return { kind: "legacy" };
    const requested = message.params?.protocolVersion;
    return reject(newestLegacy(served), 400, "INVALID_PARAMS", "Unsupported protocol version: this server serves only the stateless era", {
      supported: [...served.modern].reverse(),
      ...(requested === undefined ? {} : { requested }),
    });
  }

  // 3. The modern era, by the body's claim (or on HTTP by its headers when the body makes none).
  if (claimsModern) return modern(message, meta, facts);
  if (served.legacy.length === 0) return modern(message, meta, facts);
  if (http) {
    // A legacy-only server answers modern headers as it answers any request without a session: never a modern error.
    if (served.modern.length > 0 && modernHeaders(facts)) return modern(message, meta, facts);
    // 4. Legacy Streamable HTTP needs the session initialize minted. spec/2025-11-25/basic/transports.mdx#session-management
    return reject(newestLegacy(served), 400, "INVALID_REQUEST", "Bad Request: the Mcp-Session-Id header is required (send initialize first)");
  }
  // 4. stdio before initialize: ping and the client's notifications are legacy; other requests are modern when served.
  if (message.kind !== "request" || message.method === "ping" || served.modern.length === 0) return { kind: "legacy" };
  return modern(message, meta, facts);
}

/** A batch (a JSON array): JSON-RPC batches exist only in a legacy revision (2025-03-26), so only in a legacy session. */
export function classifyBatch(facts: InboundFacts): Classification {
  const { served, session } = facts;
  if (session === "unknown" && served.legacy.length) return reject(newestLegacy(served), 404, "INVALID_REQUEST", "Not Found: unknown or terminated session; send initialize to start a new one");
  if (session !== undefined && session !== "unknown") return legacyHeaderCheck(facts) ?? { kind: "legacy", revision: session.revision };
  // No session: the legacy handshake has not happened, so no revision that allows batches is in force.
  // spec/2025-03-26/basic/index.mdx#batching
  return reject(served.legacy.length ? newestLegacy(served) : served.modern.at(-1)!, 400, "INVALID_REQUEST", noBatchesHere([...served.legacy, ...served.modern]));
}

/**
 * The rungs of a modern request, in the order of spec/2026-07-28/basic/transports/streamable-http.mdx#server-validation
 * (stdio has no headers: only the `_meta` and version rungs apply). Notifications carry no required `_meta`.
 */
function modern(message: InboundMessage, meta: Record<string, unknown> | undefined, facts: InboundFacts): Classification {
  const newest = facts.served.modern.at(-1) ?? newestLegacy(facts.served);
  const version = meta?.[META_PROTOCOL_VERSION];
  const header = facts.header;
  const versionHeader = header?.("mcp-protocol-version");
  // The rules of the version claimed (when it is a modern one this runtime knows), else of the newest served.
  const known = isRevision(version) && isModern(version) ? version : isRevision(versionHeader) && isModern(versionHeader) ? versionHeader : newest;
  if (message.kind !== "request") {
    if (message.kind === "response") return reject(known, 400, "INVALID_REQUEST", "Invalid Request: a client sends only requests and notifications");
    return { kind: "modern", revision: known };
  }
  if (header && headerRules(known).version && versionHeader === undefined) return reject(known, 400, "HEADER_MISMATCH", "Header mismatch: the MCP-Protocol-Version header is required");
  const capabilities = meta?.[META_CLIENT_CAPABILITIES];
  // Both _meta fields are REQUIRED; missing is -32602 (spec/2026-07-28/basic/index.mdx#_meta).
  if (typeof version !== "string" || !isObject(capabilities)) {
    const missing = typeof version !== "string" ? META_PROTOCOL_VERSION : META_CLIENT_CAPABILITIES;
    const present = typeof version !== "string" ? version !== undefined : capabilities !== undefined;
    // A stdio client with no claim at all may be a legacy one that forgot the handshake: say both ways in.
    const handshake = !header && version === undefined && facts.served.legacy.length ? ` (a ${known} request; or send initialize first, for a session of ${facts.served.legacy.join(", ")})` : "";
    const wrong = present ? `must be ${missing === META_PROTOCOL_VERSION ? "a string" : "an object"}` : "is required";
    return reject(known, 400, "INVALID_PARAMS", `Invalid params: _meta["${missing}"] ${wrong}${handshake}`);
  }
  if (header) {
    const wrong = headerMismatch(known, message, { header, paramHeaders: facts.paramHeaders }, { body: version, header: versionHeader });
    if (wrong !== undefined) return reject(known, 400, "HEADER_MISMATCH", `Header mismatch: ${wrong}`);
  }
  // A version this server does not serve. spec/2026-07-28/basic/versioning.mdx#protocol-version-negotiation
  if (!isRevision(version) || !isModern(version) || !facts.served.modern.includes(version)) {
    const supported = [...facts.served.modern].reverse().concat([...facts.served.legacy].reverse());
    // A legacy revision this server serves is had through the handshake, not per request: say so (it is in `supported`).
    const legacy = isRevision(version) && isLegacy(version) && facts.served.legacy.includes(version) ? ` (a legacy revision: send initialize to open a ${version} session)` : "";
    return reject(known, 400, "UNSUPPORTED_PROTOCOL_VERSION", `Unsupported protocol version: ${version}${legacy}`, { supported, requested: version });
  }
  const clientInfo = isObject(meta![META_CLIENT_INFO]) ? (meta![META_CLIENT_INFO] as Record<string, unknown>) : undefined;
  return { kind: "modern", revision: version, meta: { protocolVersion: version, clientCapabilities: capabilities, clientInfo, raw: meta! } };
}

/** HTTP, no body claim, no session: only a modern client sends MCP-Protocol-Version with a non-legacy value, or Mcp-Method. */
function modernHeaders(facts: InboundFacts): boolean {
  const version = facts.header?.("mcp-protocol-version");
  if (version !== undefined) return !(isRevision(version) && isLegacy(version));
  return facts.header?.("mcp-method") !== undefined;
}

/**
 * A legacy request's MCP-Protocol-Version, when sent, must name a served legacy revision: 400 otherwise.
 * spec/2025-11-25/basic/transports.mdx#protocol-version-header
 */
export function legacyHeaderCheck(facts: Pick<InboundFacts, "header" | "served">): Rejection | undefined {
  const v = facts.header?.("mcp-protocol-version");
  if (v === undefined || (isRevision(v) && isLegacy(v) && facts.served.legacy.includes(v))) return undefined;
  return reject(newestLegacy(facts.served), 400, "INVALID_REQUEST", `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(v)} (supported: ${facts.served.legacy.join(", ")})`);
}

/** Why the mirrored headers disagree with the body, or undefined. spec/2026-07-28/basic/transports/streamable-http.mdx#standard-request-headers */
function headerMismatch(
  revision: Revision,
  message: InboundMessage,
  { header, paramHeaders }: { header: (name: string) => string | undefined; paramHeaders: InboundFacts["paramHeaders"] },
  { body: version, header: versionHeader }: { body: string; header: string | undefined },
): string | undefined {
  const method = message.method!;
  const params = message.params ?? {};
  const rules = headerRules(revision);
  if (rules.version && versionHeader !== version) return `MCP-Protocol-Version header value '${versionHeader}' does not match body value '${version}'`;
  if (rules.method) {
    const h = header("mcp-method");
    if (h === undefined) return "the Mcp-Method header is required";
    if (h !== method) return `Mcp-Method header value '${h}' does not match body value '${method}'`;
  }
  const field = rules.nameFields.get(method);
  if (field !== undefined) {
    const body = params[field];
    const raw = header("mcp-name");
    if (typeof body === "string") {
      if (raw === undefined) return "the Mcp-Name header is required";
      const decoded = decodeHeaderValue(raw);
      if (decoded === undefined) return "the Mcp-Name header value is malformed";
      if (decoded !== body) return `Mcp-Name header value '${raw}' does not match body value '${body}'`;
    }
  }
  if (rules.params && typeof params.name === "string" && paramHeaders) {
    for (const p of paramHeaders(params.name) ?? []) {
      const value = valueAt(params.arguments, p.path);
      const raw = header(p.header);
      // No value in the body: a header sent anyway matches nothing (an intermediary could route on a value the server never executes).
      if (value === undefined || value === null) {
        if (raw !== undefined) return `Mcp-Param-${p.name} header is present but the body has no value at ${p.path.join(".")}`;
        continue;
      }
      if (primitiveHeaderText(value) === undefined) continue;
      if (raw === undefined) return `the Mcp-Param-${p.name} header is required (the body carries ${p.path.join(".")})`;
      const decoded = decodeHeaderValue(raw);
      if (decoded === undefined) return `the Mcp-Param-${p.name} header value is malformed`;
      if (!headerMatches(decoded, value)) return `Mcp-Param-${p.name} header value '${raw}' does not match body value ${JSON.stringify(value)}`;
    }
  }
  return undefined;
}

/** A revision's Streamable HTTP header rules, from the rules module, computed once (this runs for every request). */
interface HeaderRules {
  version: boolean;
  method: boolean;
  params: boolean;
  /** method → the params field Mcp-Name mirrors. */
  nameFields: Map<string, string>;
}
const headerRuleCache = new Map<Revision, HeaderRules>();
function headerRules(revision: Revision): HeaderRules {
  let rules = headerRuleCache.get(revision);
  if (!rules) {
    const nameFields = new Map<string, string>();
    for (const pair of nameHeaderSources(revision)) {
      const i = pair.lastIndexOf(":");
      nameFields.set(pair.slice(0, i), pair.slice(i + 1));
    }
    rules = { version: hasHeader(revision, "MCP-Protocol-Version"), method: hasHeader(revision, "Mcp-Method"), params: hasHeader(revision, "Mcp-Param-X"), nameFields };
    headerRuleCache.set(revision, rules);
  }
  return rules;
}

/** The legacy revision whose codes shape errors to a peer that has not negotiated one: the newest served, else the newest known. */
function newestLegacy(served: ServedRevisions): Revision {
  return served.legacy.at(-1) ?? LATEST_LEGACY ?? served.modern.at(-1)!;
}

/** A rejection with the code named `name` in `revision`; its HTTP status from the rules where they fix one, else `status`. */
function reject(revision: Revision, status: number, name: string, message: string, data?: unknown): Rejection {
  const code = errorCode(revision, name) ?? errorCode(revision, "INVALID_REQUEST")!;
  const error: JsonRpcErrorObject = data === undefined ? { code, message } : { code, message, data };
  return { kind: "reject", revision, status: fixedHttpStatus(revision, code) ?? status, error };
}
