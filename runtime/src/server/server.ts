/**
 * The dual-era server core: registrations, capabilities, and the per-method
 * handlers that every transport shares. Era routing lives in `connection.ts`;
 * this file answers one validated request for one revision in force and
 * encodes the result for that revision.
 *
 * Every per-revision decision calls the generated rules module (`../rules.js`):
 * nothing here names a revision.
 */
import type {
  CallToolResult,
  ClientCapabilities,
  CompleteResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  GetPromptResult,
  Implementation,
  ListRootsResult,
  LoggingLevel,
  Prompt,
  PromptArgument,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
  ToolAnnotations,
} from "../../../out/latest.js";
import { McpError, type RequestId } from "../wire/jsonrpc.js";
import {
  type Era,
  type Revision,
  ERA,
  REVISIONS,
  errorCode,
  hasCapability,
  hasField,
  isCacheable,
  isModern,
  reservesMetaPrefix,
  resourceNotFoundCode,
  structuredContentMustBeObject,
  toolInputErrorsAsResult,
} from "../rules.js";
import { RequestStateCodec } from "../protocol/mrtr.js";
import { compileSchema, type SchemaValidator } from "./schema.js";
import { readEnv } from "./env.js";
import { UriTemplate } from "./uri-template.js";

export type { Revision, Era } from "../rules.js";

/** A result as a handler returns it: the runtime adds `resultType`, caching fields and `_meta` serverInfo per revision. */
type HandlerResult<T> = Omit<T, "resultType" | "ttlMs" | "cacheScope"> & { resultType?: string };

export type ToolResult = HandlerResult<CallToolResult>;
export type PromptResult = HandlerResult<GetPromptResult>;
export type ResourceResult = HandlerResult<ReadResourceResult>;

/** A change that connections turn into notifications, each by its own era's rules. */
export interface ServerEvent {
  method: string;
  /** The subscriptions/listen filter field that selects it ("end" closes every listen stream). */
  filter: "toolsListChanged" | "promptsListChanged" | "resourcesListChanged" | "resourceSubscriptions" | "end";
  uri?: string;
}

/** Options of an ask for client input. */
export interface AskOptions {
  /**
   * Modern era: the key of this ask in `inputRequests` / `inputResponses` (unique within the request).
   * Default `<capability>-<n>`, n counting the handler's asks of that kind from 1.
   */
  key?: string;
}

/** Levels in increasing severity (RFC 5424), as `LoggingLevel` lists them. */
/** What a tool name SHOULD look like. spec/2025-11-25/server/tools.mdx#tool-names */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export const LOGGING_LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/**
 * What every handler receives. Written once, a handler serves both eras:
 * the runtime maps `elicit`, `sample` and `listRoots` to server→client
 * requests for a legacy peer, and to the modern form for a 2026-07-28 peer.
 * Call the methods on the context (`ctx.log(...)`): they are methods of one
 * object per request, not free-standing functions.
 */
export interface RequestContext {
  /** The server handling the request (e.g. to announce changes with `server.notifyToolsListChanged()`). */
  server: McpServer;
  /** The revision in force for this request (negotiated at `initialize`, or named in the request's `_meta`). */
  revision: Revision;
  era: Era;
  /** The client's capabilities for this request: the session's (legacy) or this request's `_meta` (modern), never earlier requests'. */
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  requestId: RequestId;
  /** Fires when the request is cancelled (notifications/cancelled, or a modern HTTP client disconnecting). */
  signal: AbortSignal;
  /**
   * Report progress; sent only when the client supplied a progressToken, and only
   * when `progress` is greater than the last value sent (progress MUST increase).
   * spec/2025-11-25/basic/utilities/progress.mdx
   */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * Log to the client (`notifications/message`). Legacy: sent when the server declares `logging` and
   * `level` is at or above the session's level (set by logging/setLevel, default "info"). Modern: sent
   * only when this request's `_meta["io.modelcontextprotocol/logLevel"]` is set and `level` is at or above it.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /**
   * Ask the user for input through the client (elicitation). Legacy: an `elicitation/create` request to the client.
   * Modern (2026-07-28): an entry of an `input_required` result's `inputRequests`; the handler runs again on the
   * client's retry and this call then returns its answer (spec/2026-07-28/basic/patterns/mrtr.mdx). Handlers must
   * therefore be safe to re-run up to their asks. Throws MissingCapabilityError when the client did not declare
   * `elicitation` for this request.
   */
  elicit(params: ElicitRequestParams, options?: AskOptions): Promise<ElicitResult>;
  /** Ask the client's model (sampling), as `elicit` does. Throws MissingCapabilityError without a declared `sampling`. */
  sample(params: CreateMessageRequestParams, options?: AskOptions): Promise<CreateMessageResult>;
  /** The client's roots, as `elicit` does. Throws MissingCapabilityError without a declared `roots`. */
  listRoots(options?: AskOptions): Promise<ListRootsResult>;
  /**
   * SSE polling: close the HTTP connection carrying this request's SSE stream without ending the stream, so a
   * long-running handler does not hold a connection. The handler runs on; what it sends next (its response too) is
   * kept, and the client gets it by reconnecting with GET and `Last-Event-ID` after the `retry` delay. Returns true
   * when the connection was closed; false where streams are not resumable (stdio, modern HTTP, 2024-11-05, a client
   * that does not accept SSE, or a stream already closed). spec/2025-11-25/basic/transports.mdx#sending-messages-to-the-server
   */
  closeStream(): boolean;
}

export interface ToolDefinition<Args = Record<string, unknown>> {
  /** Revisions in which it exists (listed and callable); default every revision the server serves. */
  revisions?: readonly Revision[];
  name: string;
  title?: string;
  description?: string;
  /** JSON Schema of the arguments (a 2020-12 schema unless `$schema` names draft-07). */
  inputSchema: Tool["inputSchema"];
  /** JSON Schema of `structuredContent`; with it, results are validated and also sent as text. */
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  icons?: Tool["icons"];
  _meta?: Record<string, unknown>;
  /** A precompiled validator of the arguments (e.g. ajv standalone); default: compiled from inputSchema on first use. */
  validateInput?: SchemaValidator;
  /** A precompiled validator of structuredContent; default: compiled from outputSchema on first use. */
  validateOutput?: SchemaValidator;
  handler: (args: Args, ctx: RequestContext) => ToolResult | Promise<ToolResult>;
}

export interface ResourceDefinition {
  /** Revisions in which it exists (listed and callable); default every revision the server serves. */
  revisions?: readonly Revision[];
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Resource["annotations"];
  icons?: Resource["icons"];
  _meta?: Record<string, unknown>;
  read: (uri: string, ctx: RequestContext) => ResourceResult | Promise<ResourceResult>;
}

export interface ResourceTemplateDefinition {
  /** Revisions in which it exists (listed and callable); default every revision the server serves. */
  revisions?: readonly Revision[];
  /** RFC 6570 URI template, e.g. `test://template/{id}/data`. */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: ResourceTemplate["annotations"];
  icons?: ResourceTemplate["icons"];
  _meta?: Record<string, unknown>;
  read: (uri: string, variables: Record<string, string>, ctx: RequestContext) => ResourceResult | Promise<ResourceResult>;
  /** Completions per template variable. */
  complete?: Record<string, Completer>;
}

export interface PromptDefinition<Args = Record<string, string>> {
  /** Revisions in which it exists (listed and callable); default every revision the server serves. */
  revisions?: readonly Revision[];
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Prompt["icons"];
  _meta?: Record<string, unknown>;
  get: (args: Args, ctx: RequestContext) => PromptResult | Promise<PromptResult>;
  /** Completions per argument. */
  complete?: Record<string, Completer>;
}

/** Candidate values for an argument; the runtime ranks them by relevance to `value` and returns at most 100. */
export type Completer = (value: string, context: { arguments: Record<string, string> }) => string[] | Promise<string[]>;

export interface ServerOptions {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  instructions?: string;
  /** Revisions served; default every revision of the rules module. */
  revisions?: readonly Revision[];
  /** Defaults for cacheable 2026-07-28 results. Default `{ ttlMs: 0, cacheScope: "private" }`, the most conservative hints. */
  cache?: { ttlMs?: number; cacheScope?: "public" | "private" };
  /** Items per page of tools/list, resources/list, resources/templates/list and prompts/list. Default 100. */
  pageSize?: number;
  /** Declare the `logging` capability (legacy). Default true. */
  logging?: boolean;
  /** Legacy sessions' log level before any logging/setLevel. Default "info". */
  defaultLogLevel?: LoggingLevel;
  /** Validate every outgoing result against the revision's schema (slower; for tests). Default: env MCP_RUNTIME_VALIDATE_RESULTS=1. */
  validateResults?: boolean;
  /** How long to wait for a legacy client's answer to a server→client request, in ms. Default 60 000. */
  clientRequestTimeoutMs?: number;
  /**
   * Secret for the HMAC of MRTR `requestState`. Share it across every process that may receive a retry.
   * Default: env MCP_REQUEST_STATE_SECRET, else a random per-process key (a retry on another process then fails safely).
   */
  requestStateSecret?: string;
  /** How long a `requestState` stays valid, in ms. Default 600 000. */
  requestStateTtlMs?: number;
}

/** Thrown by `ctx.elicit/sample/listRoots` when the client did not declare the capability the request needs. */
export class MissingCapabilityError extends Error {
  constructor(readonly requiredCapabilities: Record<string, unknown>) {
    super(`the client did not declare the ${Object.keys(requiredCapabilities).join(", ")} capability`);
    this.name = "MissingCapabilityError";
  }
}

/** Throw from a resource handler for an unknown URI: answered with the revision's resource-not-found code and `data.uri`. */
export class ResourceNotFoundError extends Error {
  constructor(readonly uri: string) {
    super(`Resource not found: ${uri}`);
    this.name = "ResourceNotFoundError";
  }
}

interface CompiledTool extends ToolDefinition {
  input?: SchemaValidator;
  output?: SchemaValidator;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A shallow copy that fields may be added to. Object.assign rather than `{ ...value }`: on Node 20's V8, adding
 * properties to an object made by spread makes those objects survive young-generation collections (measured with
 * --trace-gc-nvp on the modern HTTP path, which adds `resultType` and `_meta` to every result: ~100 KB promoted per
 * scavenge instead of ~5 KB, peak RSS 1.6x the bare loop instead of 1.07x, and a third fewer calls/s).
 */
const copyOf = <T extends object>(value: T): T => Object.assign({}, value);

/** Keep only the fields that `definition` has in `revision`: a peer is sent only fields its revision defines. */
export function conform<T extends Record<string, unknown>>(revision: Revision, definition: string, value: T): T {
  let out: Record<string, unknown> | undefined;
  for (const key in value) {
    if (value[key] === undefined || !hasField(revision, definition, key)) {
      out ??= copyOf(value);
      delete out[key];
    }
  }
  return (out ?? value) as T;
}

/** Whether a registration exists in `revision` (its `revisions`, default all). */
function inRevision(def: { revisions?: readonly Revision[] }, revision: Revision): boolean {
  return !def.revisions || def.revisions.includes(revision);
}

const RESERVED_META_PREFIX = "io.modelcontextprotocol/";

/**
 * Where a revision does not reserve the `io.modelcontextprotocol/` prefix, its peers may use those keys for their own
 * data, so none of ours is sent there. spec/2025-11-25/basic/index.mdx#_meta
 */
function withoutReservedMeta(revision: Revision, result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (!meta || reservesMetaPrefix(revision) || !Object.keys(meta).some((k) => k.startsWith(RESERVED_META_PREFIX))) return result;
  const kept = Object.fromEntries(Object.entries(meta).filter(([k]) => !k.startsWith(RESERVED_META_PREFIX)));
  const out = copyOf(result);
  if (Object.keys(kept).length) out._meta = kept;
  else delete out._meta;
  return out;
}

/** Opaque pagination cursors: base64url of {list, offset}. spec/2025-11-25/server/utilities/pagination.mdx */
function encodeCursor(list: string, offset: number): string {
  return Buffer.from(JSON.stringify({ l: list, o: offset })).toString("base64url");
}
function decodeCursor(list: string, cursor: unknown, revision: Revision, length: number): number {
  if (cursor === undefined) return 0;
  try {
    const parsed = JSON.parse(Buffer.from(String(cursor), "base64url").toString("utf8")) as { l?: unknown; o?: unknown };
    if (parsed.l === list && Number.isSafeInteger(parsed.o) && (parsed.o as number) >= 0 && (parsed.o as number) <= length) return parsed.o as number;
  } catch {
    /* fall through */
  }
  throw new McpError(errorCode(revision, "INVALID_PARAMS")!, `Invalid cursor: ${JSON.stringify(cursor)}`);
}

/** Rank completion candidates by relevance to `value`: prefix matches, then substring matches, in the completer's order. */
export function rankCompletions(candidates: string[], value: string): string[] {
  const v = value.toLowerCase();
  const prefix: string[] = [];
  const inner: string[] = [];
  for (const c of candidates) {
    const l = c.toLowerCase();
    if (l.startsWith(v)) prefix.push(c);
    else if (l.includes(v)) inner.push(c);
  }
  return [...prefix, ...inner];
}

/**
 * A dual-era MCP server. Register tools, resources, resource templates and
 * prompts, then serve with `serveStdio()` or `serveHttp()`.
 */
export class McpServer {
  readonly options: Required<Pick<ServerOptions, "name" | "version" | "pageSize" | "logging" | "defaultLogLevel" | "clientRequestTimeoutMs" | "requestStateTtlMs">> & ServerOptions;
  /** Revisions served, in declaration order. */
  readonly revisions: readonly Revision[];
  readonly tools = new Map<string, CompiledTool>();
  readonly resources = new Map<string, ResourceDefinition>();
  readonly templates: { def: ResourceTemplateDefinition; template: UriTemplate }[] = [];
  readonly prompts = new Map<string, PromptDefinition>();
  readonly validateResults: boolean;
  /** Seals and opens MRTR requestState; one per server, shared by all its connections. */
  /** Seals and opens MRTR requestState (spec/2026-07-28/basic/patterns/mrtr.mdx); made on first use. */
  get requestStateCodec(): RequestStateCodec {
    return (this.stateCodec ??= new RequestStateCodec(this.options.requestStateSecret ?? readEnv("MCP_REQUEST_STATE_SECRET")));
  }
  private stateCodec?: RequestStateCodec;
  private readonly capabilityCache = new Map<Revision, Record<string, unknown>>();

  constructor(options: ServerOptions) {
    if (!options?.name || !options.version) throw new TypeError("createServer: name and version are required");
    const revisions = options.revisions ?? REVISIONS;
    for (const r of revisions) if (!REVISIONS.includes(r)) throw new TypeError(`createServer: unknown revision ${r}; known: ${REVISIONS.join(", ")}`);
    if (revisions.length === 0) throw new TypeError("createServer: serve at least one revision");
    this.revisions = REVISIONS.filter((r) => revisions.includes(r));
    const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as ServerOptions;
    this.options = { pageSize: 100, logging: true, defaultLogLevel: "info", clientRequestTimeoutMs: 60_000, requestStateTtlMs: 600_000, ...given };
    if (!Number.isSafeInteger(this.options.pageSize) || this.options.pageSize < 1) throw new TypeError(`createServer: pageSize must be a positive integer`);
    this.validateResults = options.validateResults ?? readEnv("MCP_RUNTIME_VALIDATE_RESULTS") === "1";
  }

  /** Register a tool. Tool names are unique; `tools/list` lists them in registration order. */
  tool<Args = Record<string, unknown>>(def: ToolDefinition<Args>): this {
    if (this.tools.has(def.name)) throw new TypeError(`tool ${def.name} is already registered`);
    // A SHOULD, so a warning on stderr, not a refusal. spec/2025-11-25/server/tools.mdx#tool-names
    if (!TOOL_NAME.test(def.name)) {
      process.stderr.write(`mcp runtime: warning: tool name ${JSON.stringify(def.name)} should be 1-128 characters of A-Z, a-z, 0-9, _, - and . (spec/2025-11-25/server/tools.mdx#tool-names)\n`);
    }
    this.tools.set(def.name, { ...(def as unknown as ToolDefinition), input: def.validateInput, output: def.validateOutput });
    this.capabilityCache.clear();
    this.notifyToolsListChanged();
    return this;
  }

  /** Remove a tool; clients are told the list changed. Returns whether it existed. */
  removeTool(name: string): boolean {
    const had = this.tools.delete(name);
    if (had) this.notifyToolsListChanged();
    return had;
  }
  resource(def: ResourceDefinition): this {
    if (this.resources.has(def.uri)) throw new TypeError(`resource ${def.uri} is already registered`);
    this.resources.set(def.uri, def);
    this.capabilityCache.clear();
    this.notifyResourcesListChanged();
    return this;
  }
  resourceTemplate(def: ResourceTemplateDefinition): this {
    this.templates.push({ def, template: new UriTemplate(def.uriTemplate) });
    this.capabilityCache.clear();
    return this;
  }
  prompt<Args = Record<string, string>>(def: PromptDefinition<Args>): this {
    if (this.prompts.has(def.name)) throw new TypeError(`prompt ${def.name} is already registered`);
    this.prompts.set(def.name, def as unknown as PromptDefinition);
    this.capabilityCache.clear();
    this.notifyPromptsListChanged();
    return this;
  }

  // ---- change events (legacy list_changed / resources/updated; modern subscriptions/listen) ----

  private readonly listeners = new Set<(event: ServerEvent) => void>();

  /** Subscribe to change events; returns the unsubscribe function. Used by connections. */
  onEvent(listener: (event: ServerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: ServerEvent): void {
    for (const l of [...this.listeners]) l(event);
  }

  /** Tell clients the tool list changed (legacy sessions that declared interest; modern listen streams whose filter asks). */
  notifyToolsListChanged(): void {
    this.emit({ method: "notifications/tools/list_changed", filter: "toolsListChanged" });
  }
  notifyPromptsListChanged(): void {
    this.emit({ method: "notifications/prompts/list_changed", filter: "promptsListChanged" });
  }
  notifyResourcesListChanged(): void {
    this.emit({ method: "notifications/resources/list_changed", filter: "resourcesListChanged" });
  }
  /** Tell subscribers of `uri` that the resource changed (legacy resources/subscribe; modern listen `resourceSubscriptions`). */
  notifyResourceUpdated(uri: string): void {
    this.emit({ method: "notifications/resources/updated", filter: "resourceSubscriptions", uri });
  }

  /** End every open subscriptions/listen stream gracefully (e.g. at shutdown). */
  endSubscriptions(): void {
    this.emit({ method: "", filter: "end" });
  }

  /** The part of a subscriptions/listen filter this server honours: only notification types it can send. */
  honourFilter(requested: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (requested.toolsListChanged === true && this.tools.size) out.toolsListChanged = true;
    if (requested.promptsListChanged === true && this.prompts.size) out.promptsListChanged = true;
    const hasResources = this.resources.size > 0 || this.templates.length > 0;
    if (requested.resourcesListChanged === true && hasResources) out.resourcesListChanged = true;
    if (Array.isArray(requested.resourceSubscriptions) && hasResources) out.resourceSubscriptions = requested.resourceSubscriptions.filter((u) => typeof u === "string");
    return out;
  }

  /** Whether any prompt or template registered a completer. */
  hasCompletions(): boolean {
    return [...this.prompts.values()].some((p) => p.complete) || this.templates.some((t) => t.def.complete);
  }

  /** The server capabilities declared to a peer on `revision`: only what is registered, only what the revision defines. */
  capabilities(revision: Revision): Record<string, unknown> {
    const cached = this.capabilityCache.get(revision);
    if (cached) return cached;
    const caps: Record<string, Record<string, unknown>> = {};
    // listChanged/subscribe promise notifications: through the session (legacy) or subscriptions/listen (modern).
    if (this.tools.size) caps.tools = { listChanged: true };
    if (this.resources.size || this.templates.length) caps.resources = { subscribe: true, listChanged: true };
    if (this.prompts.size) caps.prompts = { listChanged: true };
    if (this.hasCompletions()) caps.completions = {};
    if (this.options.logging) caps.logging = {};
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(caps)) {
      if (!hasCapability(revision, "server", name)) continue;
      out[name] = Object.fromEntries(Object.entries(value).filter(([k]) => hasCapability(revision, "server", `${name}.${k}`)));
    }
    this.capabilityCache.set(revision, out);
    return out;
  }

  /** serverInfo for `revision` (Implementation, with only the fields the revision defines). */
  serverInfo(revision: Revision): Record<string, unknown> {
    let info = this.serverInfoCache.get(revision);
    if (!info) {
      const o = this.options;
      info = Object.freeze(conform(revision, "Implementation", { name: o.name, version: o.version, title: o.title, description: o.description, websiteUrl: o.websiteUrl }));
      this.serverInfoCache.set(revision, info);
    }
    return info;
  }
  private readonly serverInfoCache = new Map<Revision, Record<string, unknown>>();
  private readonly resultMetaCache = new Map<Revision, Record<string, unknown>>();

  // ---- listing ----

  private page<T>(list: string, items: T[], params: Record<string, unknown> | undefined, revision: Revision): { items: T[]; nextCursor?: string } {
    const offset = decodeCursor(list, params?.cursor, revision, items.length);
    const end = offset + this.options.pageSize;
    return { items: items.slice(offset, end), nextCursor: end < items.length ? encodeCursor(list, end) : undefined };
  }

  listTools(revision: Revision, params?: Record<string, unknown>): Record<string, unknown> {
    const all = [...this.tools.values()]
      .filter((t) => inRevision(t, revision))
      .map((t) => {
        let outputSchema = t.outputSchema;
        // An outputSchema whose values are not objects cannot be honoured where structuredContent must be an object.
        if (outputSchema && structuredContentMustBeObject(revision) && outputSchema.type !== "object") outputSchema = undefined;
        return conform(revision, "Tool", {
          name: t.name,
          title: t.title,
          description: t.description,
          inputSchema: t.inputSchema,
          outputSchema,
          annotations: t.annotations,
          icons: t.icons,
          _meta: t._meta,
        });
      });
    const { items, nextCursor } = this.page("tools", all, params, revision);
    return { tools: items, ...(nextCursor ? { nextCursor } : {}) };
  }

  listResources(revision: Revision, params?: Record<string, unknown>): Record<string, unknown> {
    const all = [...this.resources.values()]
      .filter((r) => inRevision(r, revision))
      .map((r) =>
        conform(revision, "Resource", {
          uri: r.uri,
          name: r.name,
          title: r.title,
          description: r.description,
          mimeType: r.mimeType,
          size: r.size,
          annotations: r.annotations,
          icons: r.icons,
          _meta: r._meta,
        }),
      );
    const { items, nextCursor } = this.page("resources", all, params, revision);
    return { resources: items, ...(nextCursor ? { nextCursor } : {}) };
  }

  listResourceTemplates(revision: Revision, params?: Record<string, unknown>): Record<string, unknown> {
    const all = this.templates
      .filter(({ def: t }) => inRevision(t, revision))
      .map(({ def: t }) =>
        conform(revision, "ResourceTemplate", {
          uriTemplate: t.uriTemplate,
          name: t.name,
          title: t.title,
          description: t.description,
          mimeType: t.mimeType,
          annotations: t.annotations,
          icons: t.icons,
          _meta: t._meta,
        }),
      );
    const { items, nextCursor } = this.page("templates", all, params, revision);
    return { resourceTemplates: items, ...(nextCursor ? { nextCursor } : {}) };
  }

  listPrompts(revision: Revision, params?: Record<string, unknown>): Record<string, unknown> {
    const all = [...this.prompts.values()]
      .filter((p) => inRevision(p, revision))
      .map((p) =>
        conform(revision, "Prompt", {
          name: p.name,
          title: p.title,
          description: p.description,
          arguments: p.arguments?.map((a) => conform(revision, "PromptArgument", { ...a })),
          icons: p.icons,
          _meta: p._meta,
        }),
      );
    const { items, nextCursor } = this.page("prompts", all, params, revision);
    return { prompts: items, ...(nextCursor ? { nextCursor } : {}) };
  }

  // ---- tools/call ----

  callTool(revision: Revision, params: Record<string, unknown>, ctx: RequestContext): Record<string, unknown> | Promise<Record<string, unknown>> {
    const name = params.name as string;
    const found = this.tools.get(name);
    const tool = found && inRevision(found, revision) ? found : undefined;
    // Unknown tool: a protocol error in every revision. spec/2025-11-25/server/tools.mdx#error-handling
    if (!tool) throw new McpError(errorCode(revision, "INVALID_PARAMS")!, `Unknown tool: ${name}`);
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    tool.input ??= compileSchema(tool.inputSchema as Record<string, unknown>);
    if (!tool.input(args)) {
      const message = `Invalid arguments for tool ${name}: ${tool.input.describe()}`;
      // Up to 2025-06-18 a protocol error; from 2025-11-25 a tool result the model can correct itself from.
      if (toolInputErrorsAsResult(revision)) return { content: [{ type: "text", text: message }], isError: true };
      throw new McpError(errorCode(revision, "INVALID_PARAMS")!, message);
    }
    // No async frame here: this runs for every tools/call (see Connection.dispatch).
    let out: ToolResult | Promise<ToolResult>;
    try {
      out = tool.handler(args, ctx);
    } catch (err) {
      return this.toolFailure(revision, err);
    }
    if (out instanceof Promise)
      return out.then(
        (r) => this.toolSuccess(revision, tool, r),
        (err) => this.toolFailure(revision, err),
      );
    return this.toolSuccess(revision, tool, out);
  }

  /** A tool that fails reports it in its result, so the model can see it (spec/2025-11-25/server/tools.mdx#error-handling); protocol errors pass. */
  private toolFailure(revision: Revision, err: unknown): Record<string, unknown> {
    if (err instanceof McpError || (err as Error)?.name === "InputRequiredSignal") throw err;
    // Modern: a missing client capability is -32021 with data.requiredCapabilities. Legacy has no such code: the result says it.
    if (err instanceof MissingCapabilityError && isModern(revision)) throw err;
    return { content: [{ type: "text", text: err instanceof Error ? err.message : String(err) }], isError: true };
  }

  private toolSuccess(revision: Revision, tool: CompiledTool, result: ToolResult): Record<string, unknown> {
    if (!isPlainObject(result) || !Array.isArray(result.content)) {
      throw new McpError(errorCode(revision, "INTERNAL_ERROR")!, `tool ${tool.name} returned no content array`);
    }
    return this.encodeToolResult(revision, tool, result);
  }

  private encodeToolResult(revision: Revision, tool: CompiledTool, result: ToolResult): Record<string, unknown> {
    let out: Record<string, unknown> = copyOf(result);
    const structured = result.structuredContent as unknown;
    if (tool.outputSchema && !result.isError) {
      tool.output ??= compileSchema(tool.outputSchema);
      if (structured === undefined) throw new McpError(errorCode(revision, "INTERNAL_ERROR")!, `tool ${tool.name} declares an outputSchema but returned no structuredContent`);
      if (!tool.output(structured))
        throw new McpError(errorCode(revision, "INTERNAL_ERROR")!, `tool ${tool.name} returned structuredContent that does not match its outputSchema: ${tool.output.describe()}`);
    }
    if (structured !== undefined) {
      // Structured content SHOULD also be sent as text. spec/2025-06-18/server/tools.mdx#structured-content
      if ((result.content as unknown[]).length === 0) out.content = [{ type: "text", text: JSON.stringify(structured) }];
      const sendable = hasField(revision, "CallToolResult", "structuredContent") && (!structuredContentMustBeObject(revision) || isPlainObject(structured));
      if (!sendable) {
        if ((result.content as unknown[]).length === 0) out.content = [{ type: "text", text: JSON.stringify(structured) }];
        delete out.structuredContent;
      }
    }
    out = conform(revision, "CallToolResult", out);
    return out;
  }

  // ---- resources ----

  async readResource(revision: Revision, params: Record<string, unknown>, ctx: RequestContext): Promise<Record<string, unknown>> {
    const uri = params.uri as string;
    try {
      const found = this.resources.get(uri);
      const direct = found && inRevision(found, revision) ? found : undefined;
      if (direct) return this.checkContents(revision, uri, await direct.read(uri, ctx));
      for (const { def, template } of this.templates) {
        if (!inRevision(def, revision)) continue;
        const vars = template.match(uri);
        if (vars) return this.checkContents(revision, uri, await def.read(uri, vars, ctx));
      }
    } catch (err) {
      if (err instanceof ResourceNotFoundError) throw this.resourceNotFound(revision, err.uri);
      throw err;
    }
    throw this.resourceNotFound(revision, uri);
  }

  /** -32002 (legacy) or -32602 (2026-07-28), with data.uri. spec/<revision>/server/resources.mdx#error-handling */
  resourceNotFound(revision: Revision, uri: string): McpError {
    return new McpError(resourceNotFoundCode(revision), `Resource not found: ${uri}`, { uri });
  }

  private checkContents(revision: Revision, uri: string, result: ResourceResult): Record<string, unknown> {
    // An unknown URI never yields empty contents: a handler that found nothing answers not-found.
    if (!isPlainObject(result) || !Array.isArray(result.contents) || result.contents.length === 0) throw this.resourceNotFound(revision, uri);
    return result as Record<string, unknown>;
  }

  // ---- prompts ----

  async getPrompt(revision: Revision, params: Record<string, unknown>, ctx: RequestContext): Promise<Record<string, unknown>> {
    const name = params.name as string;
    const found = this.prompts.get(name);
    const prompt = found && inRevision(found, revision) ? found : undefined;
    const invalid = errorCode(revision, "INVALID_PARAMS")!;
    if (!prompt) throw new McpError(invalid, `Unknown prompt: ${name}`);
    const args = (params.arguments ?? {}) as Record<string, string>;
    for (const a of prompt.arguments ?? []) {
      if (a.required && typeof args[a.name] !== "string") throw new McpError(invalid, `Missing required argument ${a.name} of prompt ${name}`);
    }
    const result = await prompt.get(args, ctx);
    if (!isPlainObject(result) || !Array.isArray(result.messages)) throw new McpError(errorCode(revision, "INTERNAL_ERROR")!, `prompt ${name} returned no messages array`);
    return result as Record<string, unknown>;
  }

  // ---- completion ----

  async complete(revision: Revision, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const ref = params.ref as { type: string; name?: string; uri?: string };
    const argument = params.argument as { name: string; value: string };
    const context = { arguments: ((params.context as { arguments?: Record<string, string> } | undefined)?.arguments ?? {}) as Record<string, string> };
    const invalid = errorCode(revision, "INVALID_PARAMS")!;
    let completer: Completer | undefined;
    if (ref.type === "ref/prompt") {
      const prompt = this.prompts.get(ref.name ?? "");
      if (!prompt) throw new McpError(invalid, `Unknown prompt: ${ref.name}`);
      completer = prompt.complete && Object.prototype.hasOwnProperty.call(prompt.complete, argument.name) ? prompt.complete[argument.name] : undefined;
    } else if (ref.type === "ref/resource") {
      const entry = this.templates.find((t) => t.def.uriTemplate === ref.uri);
      if (!entry && !this.resources.has(ref.uri ?? "")) throw new McpError(invalid, `Unknown resource template: ${ref.uri}`);
      const table = entry?.def.complete;
      completer = table && Object.prototype.hasOwnProperty.call(table, argument.name) ? table[argument.name] : undefined;
    } else {
      throw new McpError(invalid, `Unknown reference type: ${ref.type}`);
    }
    const ranked = completer ? rankCompletions(await completer(argument.value, context), argument.value) : [];
    // At most 100 values, sorted by relevance. spec/2025-11-25/server/utilities/completion.mdx
    const values = ranked.slice(0, 100);
    const completion: CompleteResult["completion"] = { values, total: ranked.length, hasMore: ranked.length > values.length };
    return { completion };
  }

  /** Encode a successful result for `revision`: modern results carry resultType, caching fields and serverInfo in `_meta`. */
  encodeResult(revision: Revision, method: string, result: Record<string, unknown>): Record<string, unknown> {
    if (!isModern(revision)) return withoutReservedMeta(revision, result);
    const out: Record<string, unknown> = copyOf(result);
    out.resultType ??= "complete";
    // serverInfo SHOULD be in every modern result's _meta. spec/2026-07-28/server/discover.mdx
    if (result._meta) out._meta = { ...(result._meta as Record<string, unknown>), "io.modelcontextprotocol/serverInfo": this.serverInfo(revision) };
    else {
      let meta = this.resultMetaCache.get(revision);
      if (!meta) this.resultMetaCache.set(revision, (meta = Object.freeze({ "io.modelcontextprotocol/serverInfo": this.serverInfo(revision) })));
      out._meta = meta;
    }
    if (isCacheable(revision, method) && out.resultType === "complete") {
      // Cacheable results MUST carry ttlMs and cacheScope. spec/2026-07-28/server/utilities/caching.mdx
      out.ttlMs ??= this.options.cache?.ttlMs ?? 0;
      out.cacheScope ??= this.options.cache?.cacheScope ?? "private";
    }
    return out;
  }

  /** `server/discover` result (before encodeResult adds resultType, caching fields and `_meta`). spec/2026-07-28/server/discover.mdx */
  discover(revision: Revision): Record<string, unknown> {
    const result: Record<string, unknown> = { supportedVersions: [...this.revisions].reverse(), capabilities: this.capabilities(revision) };
    if (this.options.instructions) result.instructions = this.options.instructions;
    return result;
  }

  /** The era of each served revision, newest last. */
  get eras(): { legacy: readonly Revision[]; modern: readonly Revision[] } {
    return (this.erasCache ??= Object.freeze({ legacy: this.revisions.filter((r) => ERA[r] === "legacy"), modern: this.revisions.filter((r) => ERA[r] === "modern") }));
  }
  private erasCache?: { legacy: readonly Revision[]; modern: readonly Revision[] };
}

export function createServer(options: ServerOptions): McpServer {
  return new McpServer(options);
}
