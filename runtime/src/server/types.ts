/**
 * The public types of the registration API: what a handler receives and returns, what a registration and the
 * server's options hold. Re-exported by `server.ts` (and so by the package index).
 */
import type {
  CallToolResult,
  ClientCapabilities,
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
import type { RequestId } from "../wire/jsonrpc.js";
import type { Era, Revision } from "../rules.js";
import type { SchemaValidator } from "./schema.js";

/** A result as a handler returns it: the runtime adds `resultType`, caching fields and `_meta` serverInfo per revision. */
type HandlerResult<T> = Omit<T, "resultType" | "ttlMs" | "cacheScope"> & { resultType?: "complete" };

export type ToolResult = HandlerResult<CallToolResult>;
export type PromptResult = HandlerResult<GetPromptResult>;
export type ResourceResult = HandlerResult<ReadResourceResult>;

/**
 * Who made a request, as verified by the HTTP transport's authorization (an OAuth 2.1 access token): the principal
 * every piece of kept state is bound to (legacy sessions, MRTR requestState, tasks). Undefined where no authorization
 * is configured, and on stdio. spec/2025-11-25/basic/authorization.mdx, spec/2026-07-28/basic/authorization/index.mdx
 */
export interface Principal {
  /** The token's subject (`sub`), or the client id for a client-credentials token without one. */
  subject: string;
  /** The OAuth client the token was issued to (`client_id` or `azp`), when the token says. */
  clientId?: string;
  /** Scopes granted to the token. */
  scopes: readonly string[];
  /** Every verified claim (JWT payload or introspection response). */
  claims: Readonly<Record<string, unknown>>;
  /**
   * The access token itself, as the request carried it: a non-enumerable property, so JSON, logs and stores never
   * hold it. Passing it to another service is token passthrough, which the authorization spec forbids unless that
   * service is the token's audience (spec/2025-11-25/basic/authorization.mdx#token-handling "MUST NOT accept or
   * transit any other tokens"; spec/2026-07-28/basic/authorization/security-considerations.mdx#access-token-privilege-restriction).
   */
  readonly token?: string;
}

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

/** A record's level, in increasing severity (the generated project's `--log-level` names). */
export type LogLevel = "debug" | "info" | "warn" | "error";

/**
 * One structured log record: `level`, `msg`, then its fields. A handler failure's record has `method`,
 * `tool`/`prompt`/`uri` (what the request named), `requestId`, `session` (a legacy HTTP session id's first 8
 * characters), `subject` (the principal's, never a token), `task` (a task run's id), `errorId`, and `error`
 * (`{ name?, message, stack? }`).
 */
export interface LogRecord {
  level: LogLevel;
  msg: string;
  [field: string]: unknown;
}

/** The server's logger (`createServer({ logger })`): called once per record; what it throws is ignored. */
export type Logger = (record: LogRecord) => void;

/** Levels in increasing severity (RFC 5424), as `LoggingLevel` lists them. */
export const LOGGING_LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/**
 * What a handler may do with its server (`ctx.server`): register and remove features, and tell clients of changes.
 * McpServer is one; its stores, caches and the requests in flight are not a handler's business.
 */
export interface ServerHandle {
  /** Register a tool (see McpServer.tool). */
  tool<Args = Record<string, unknown>>(def: ToolDefinition<Args>): this;
  /** Remove a tool; clients are told the list changed. Returns whether it existed. */
  removeTool(name: string): boolean;
  resource(def: ResourceDefinition): this;
  resourceTemplate(def: ResourceTemplateDefinition): this;
  prompt<Args = Record<string, string>>(def: PromptDefinition<Args>): this;
  notifyToolsListChanged(): void;
  notifyPromptsListChanged(): void;
  notifyResourcesListChanged(): void;
  /** Tell subscribers of `uri` that the resource changed. */
  notifyResourceUpdated(uri: string): void;
}

/**
 * What every handler receives. Written once, a handler serves both eras:
 * the runtime maps `elicit`, `sample` and `listRoots` to server→client
 * requests for a legacy peer, and to the modern form for a 2026-07-28 peer.
 * Call the methods on the context (`ctx.log(...)`): they are methods of one
 * object per request, not free-standing functions.
 */
export interface RequestContext {
  /** The server handling the request (e.g. to announce changes with `server.notifyToolsListChanged()`). */
  server: ServerHandle;
  /** The revision in force for this request (negotiated at `initialize`, or named in the request's `_meta`). */
  revision: Revision;
  era: Era;
  /** The client's capabilities for this request: the session's (legacy) or this request's `_meta` (modern), never earlier requests'. */
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  requestId: RequestId;
  /** The legacy Streamable HTTP (or HTTP+SSE) session's id; undefined on stdio and for 2026-07-28 requests, which have none. */
  sessionId?: string;
  /**
   * The W3C trace id (32 hex digits) of the request's span when an OpenTelemetry SDK is tracing it; undefined
   * otherwise. Handler failures are logged with it (docs/telemetry.md).
   */
  traceId?: string;
  /** The verified principal of an authorized HTTP request; undefined without authorization (and on stdio). */
  principal?: Principal;
  /** Set when the handler runs as a task (see ToolDefinition.taskSupport). */
  task?: TaskContext;
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
   * `elicitation` for this request, or when the revision in force has none (2024-11-05 and 2025-03-26).
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

/**
 * Whether a tool runs as a task: "forbidden" (default) never; "optional" when the client can take one (2025-11-25: it
 * sends `params.task`; 2026-07-28: the request declares the `io.modelcontextprotocol/tasks` extension); "required"
 * always (a call that cannot be a task is refused: -32601 in 2025-11-25, -32021 in 2026-07-28; the tool does not exist
 * in revisions without tasks). spec/2025-11-25/basic/utilities/tasks.mdx#tool-level-negotiation
 */
export type TaskSupport = "forbidden" | "optional" | "required";

/** What a handler's context offers when it runs as a task. */
export interface TaskContext {
  /** The task's id. */
  readonly id: string;
  /** Set the task's `statusMessage`, as tasks/get shows it. */
  status(message: string): void;
}

/** The task store and task limits (`createServer({ tasks })`). */
export interface TaskOptions {
  /**
   * Where tasks are kept: "memory" (default; lost with the process), "sqlite" (a file, `path`; needs `npm install
   * better-sqlite3@12`), "postgres" (`url`, needs `npm install pg`) or "redis" (`url`, needs `npm install ioredis`),
   * both shared by every process of the server, or a TaskStore of your own. Default: env MCP_TASK_STORE (`memory`,
   * `sqlite:<path>`, `postgres`, `redis`), else "redis" when env MCP_REDIS_URL is set, else "memory".
   */
  store?: "memory" | "sqlite" | "postgres" | "redis" | import("../state/task-store.js").TaskStore;
  /** The SQLite file for `store: "sqlite"`. */
  path?: string;
  /** Retention from creation when the client asks none, in ms. Default 3 600 000 (1 h). */
  defaultTtlMs?: number;
  /**
   * The longest retention granted, in ms: a 2025-11-25 client's `ttl` is capped to it (the server chooses the TTL it
   * grants). At least `defaultTtlMs`. Default 3 600 000 (1 h).
   */
  maxTtlMs?: number;
  /** The polling interval suggested to clients, in ms. Default 1000. */
  pollIntervalMs?: number;
  /** How often expired tasks are deleted, in ms. Default 60 000. */
  sweepIntervalMs?: number;
  /**
   * How many tasks one requestor (a principal, else a legacy session) may have running in this process at once; one
   * more is refused with -32603. Default 100. spec/2025-11-25/basic/utilities/tasks.mdx#resource-management
   */
  maxRunningPerOwner?: number;
  /** How many tasks may run in this process at once, whoever started them (the only bound of unauthenticated 2026-07-28 callers). Default 1000. */
  maxRunning?: number;
  /**
   * Shared stores: how long a process's claim on a running task lasts without renewal, in ms (renewed every third of
   * it). A task whose process died reads failed once its lease lapses. Default 30 000.
   */
  leaseMs?: number;
  /**
   * How many tasks one owner (a principal, else a legacy session; unauthenticated 2026-07-28 callers are one owner
   * together) may keep stored, finished or not, per process. A new task evicts the owner's oldest finished one; when
   * all are working it is refused (-32603 naming the limit). Default 1000.
   */
  maxStoredTasksPerOwner?: number;
  /** How many tasks this process may keep stored, all owners together (a new one evicts its own owner's oldest finished task, else is refused). Default 10 000. */
  maxStoredTasks?: number;
  /**
   * Bytes of stored outcomes (results and errors, as UTF-8 JSON) one owner may keep, per process. A new outcome evicts
   * the owner's oldest finished tasks; one that cannot fit fails its task (-32603 naming the limit). Default 16 777 216 (16 MiB).
   */
  maxStoredBytesPerOwner?: number;
  /** Bytes of stored outcomes this process may keep, all owners together. Default 134 217 728 (128 MiB). */
  maxStoredBytes?: number;
  /** The URL of `store: "postgres"` (default: env MCP_DATABASE_URL) or `store: "redis"` (`redis://host:port/db`; default: env MCP_REDIS_URL). */
  url?: string;
  /** `store: "redis"`: the prefix of its keys and channel, so several servers share one Redis. Default: env MCP_REDIS_PREFIX, else `mcp:`. */
  prefix?: string;
}

export interface ToolDefinition<Args = Record<string, unknown>> {
  /**
   * OAuth scopes a caller needs (HTTP with authorization): lists show it only to a principal holding them all, and a
   * call without them is refused with 403 insufficient_scope naming them. Ignored without authorization (and on stdio).
   */
  scopes?: readonly string[];
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
  /** Whether the tool runs as a task (long-running work the client polls). Default "forbidden". */
  taskSupport?: TaskSupport;
  /** A precompiled validator of the arguments (e.g. ajv standalone); default: compiled from inputSchema on first use. */
  validateInput?: SchemaValidator;
  /** A precompiled validator of structuredContent; default: compiled from outputSchema on first use. */
  validateOutput?: SchemaValidator;
  handler: (args: Args, ctx: RequestContext) => ToolResult | Promise<ToolResult>;
}

export interface ResourceDefinition {
  /**
   * OAuth scopes a caller needs (HTTP with authorization): lists show it only to a principal holding them all, and a
   * call without them is refused with 403 insufficient_scope naming them. Ignored without authorization (and on stdio).
   */
  scopes?: readonly string[];
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
  /**
   * OAuth scopes a caller needs (HTTP with authorization): lists show it only to a principal holding them all, and a
   * call without them is refused with 403 insufficient_scope naming them. Ignored without authorization (and on stdio).
   */
  scopes?: readonly string[];
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
  /**
   * OAuth scopes a caller needs (HTTP with authorization): lists show it only to a principal holding them all, and a
   * call without them is refused with 403 insufficient_scope naming them. Ignored without authorization (and on stdio).
   */
  scopes?: readonly string[];
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
   * Secret for the HMAC of MRTR `requestState`. Share it across every process that may receive a retry. A list
   * (an array, or a comma-separated string) rotates keys: the first seals, any opens. Each at least 32 bytes, else
   * createServer throws TypeError. Default: env MCP_REQUEST_STATE_SECRET (comma-separated), else a random
   * per-process key (a retry on another process then fails safely).
   */
  requestStateSecret?: string | readonly string[];
  /** How long a `requestState` stays valid, in ms. Default 600 000. */
  requestStateTtlMs?: number;
  /**
   * The message bus shared by this server's processes (server events: change notifications, resources/updated,
   * subscriptions/listen fan-out), e.g. `new RedisBus(url)`. Default: a RedisBus when env MCP_REDIS_URL is set (channels
   * under env MCP_REDIS_PREFIX, default `mcp:`; needs `npm install ioredis`), else this process only (LocalBus).
   * Shared, a `server.notifyResourceUpdated(uri)` on any process reaches the subscribers on every process.
   */
  bus?: import("../state/bus.js").MessageBus;
  /**
   * Legacy Streamable HTTP sessions shared by this server's processes, so that any process serves any session (no
   * sticky routing): the session store and event log (e.g. `new RedisSessions(url)`), used with a shared `bus`.
   * Default: env MCP_REDIS_URL (Redis for both), else each process keeps its own sessions.
   */
  sessions?: import("../state/sessions.js").SessionStore & import("../state/sessions.js").EventLog;
  /** Tasks: the store and limits. Used only when a tool has `taskSupport`. */
  tasks?: TaskOptions;
  /**
   * Where the runtime's log records go: one call per record (`{ level, msg, ...fields }`, see LogRecord). Every
   * handler failure is one record: at `error` what a handler threw or rejected with, or a result the runtime refused
   * (with its message and stack and an `errorId`), at `info` a protocol error it threw on purpose (McpError,
   * ResourceNotFoundError, MissingCapabilityError), at `debug` one after its request was cancelled. Default: records
   * at `warn` and above as one JSON line on stderr (never stdout, the stdio protocol channel).
   */
  logger?: Logger;
  /**
   * Whether a client is told a handler failure's exception text (a tool's `isError` text, a -32603 message). False:
   * "Internal error (id <errorId>)", the id of its log record. Protocol errors a handler throws on purpose keep their
   * message either way. Default: false when env NODE_ENV is `production`, else true.
   */
  exposeErrors?: boolean;
}
