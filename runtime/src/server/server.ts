/**
 * The registration API: a server's tools, resources, resource templates and prompts, and its change notifications.
 * What it declares per revision is capabilities.ts, its options options.ts, its events events.ts, its stores
 * ../state/from-env.ts. The requests are answered by the feature modules (tools.ts, resources.ts, prompts.ts,
 * completion.ts), which dispatch (../protocol/dispatch.ts) calls with this server; results are encoded by ../wire/encode.ts.
 *
 * Every per-revision decision calls the generated rules module (`../rules.js`):
 * nothing here names a revision.
 */
import type { ResultEncoding } from "../wire/encode.js";
import type { Revision } from "../rules.js";
import type { TaskStore } from "../state/task-store.js";
import type { MessageBus } from "../state/bus.js";
import type { EventLog, SessionStore } from "../state/sessions.js";
import { RequestStateCodec } from "../state/request-state.js";
import { checkRedisBus, makeSharedSessions, makeTaskStore, redisUrl, requestStateCodec, sessionFile, taskStoreChoice } from "../state/from-env.js";
import { readEnv } from "../state/env.js";
import type { CompiledTool, Registry, TemplateEntry } from "./registry.js";
import type { PromptDefinition, ResourceDefinition, ResourceTemplateDefinition, ServerEvent, ServerHandle, ServerOptions, ToolDefinition } from "./types.js";
import { type ResolvedOptions, type ResolvedTaskOptions, resolveOptions, resolveTaskOptions } from "./options.js";
import { Declarations, hasCompletions, honourFilter, supportsTasks } from "./capabilities.js";
import { ServerEvents } from "./events.js";
import { UriTemplate } from "./uri-template.js";

export type { Revision, Era } from "../rules.js";
export type {
  AskOptions,
  Completer,
  PromptDefinition,
  PromptResult,
  Principal,
  RequestContext,
  ResourceDefinition,
  ResourceResult,
  ResourceTemplateDefinition,
  ServerEvent,
  ServerHandle,
  ServerOptions,
  TaskContext,
  TaskOptions,
  TaskSupport,
  ToolDefinition,
  ToolResult,
} from "./types.js";
export type { TaskChange, TaskPage, TaskRecord, TaskStatus, TaskStore } from "../state/task-store.js";
export { MemoryTaskStore } from "../state/task-store.js";
export { LocalBus, type MessageBus, type BusMessage } from "../state/bus.js";
export { MemorySessions, type SessionRecord, type SessionStore, type EventLog, type LoggedEvent } from "../state/sessions.js";
export { RedisSessions } from "../state/sessions-redis.js";
export { FileSessions } from "../state/sessions-file.js";
export { RedisBus, type RedisBusOptions } from "../state/bus-redis.js";
export { SqliteTaskStore } from "../state/task-store-sqlite.js";
export { PostgresTaskStore } from "../state/task-store-postgres.js";
export { RedisTaskStore, type RedisTaskStoreOptions } from "../state/task-store-redis.js";
export { LOGGING_LEVELS } from "./types.js";
export { MissingCapabilityError, ResourceNotFoundError } from "./errors.js";
export { stderrLogger, type Logger, type LogLevel, type LogRecord } from "./failures.js";
export { conform } from "../wire/encode.js";
export { rankCompletions } from "./completion.js";

/**
 * What a tool name SHOULD look like. spec/2025-11-25/server/tools.mdx#tool-names
 * Exported so that mcp.json's checks (@create-mcp-server/codegen) apply this rule, not a copy of it.
 */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * A dual-era MCP server. Register tools, resources, resource templates and
 * prompts, then serve with `serveStdio()` or `serveHttp()`.
 */
export class McpServer implements Registry, ServerHandle {
  readonly options: ResolvedOptions;
  /** Revisions served, in declaration order. */
  readonly revisions: readonly Revision[];
  readonly tools = new Map<string, CompiledTool>();
  readonly resources = new Map<string, ResourceDefinition>();
  readonly templates: TemplateEntry[] = [];
  readonly prompts = new Map<string, PromptDefinition>();
  readonly validateResults: boolean;
  /** Task options with their defaults. */
  readonly taskOptions: ResolvedTaskOptions;
  private readonly declared: Declarations;
  private readonly events: ServerEvents;
  /** This process's subscribers to change events (its links and listen streams). */
  private readonly listeners = new Set<(event: ServerEvent) => void>();
  /**
   * Seals and opens MRTR requestState (spec/2026-07-28/basic/patterns/mrtr.mdx), one per server, shared by all its
   * connections; made at construction when a secret is configured, else on first use (a random key).
   */
  get requestStateCodec(): RequestStateCodec {
    return (this.stateCodec ??= new RequestStateCodec());
  }
  private stateCodec?: RequestStateCodec;
  private sessionsCache?: { value: (SessionStore & EventLog) | undefined };

  constructor(options: ServerOptions) {
    ({ options: this.options, revisions: this.revisions } = resolveOptions(options));
    // A configured secret is checked now, so that a short one stops the start instead of the first multi round-trip call.
    this.stateCodec = requestStateCodec(this.options.requestStateSecret);
    this.validateResults = options.validateResults ?? readEnv("MCP_RUNTIME_VALIDATE_RESULTS") === "1";
    checkRedisBus(options.bus);
    sessionFile(options.sessions);
    this.taskOptions = resolveTaskOptions(options.tasks);
    // A task store that cannot be made is said at start (the store itself is made, and connects, on first use).
    const tasksIn = taskStoreChoice(this.taskOptions).kind;
    this.declared = new Declarations(this, this.options, this.revisions);
    this.events = new ServerEvents(options.bus, this.listeners);
    // Shared stores mean other processes serve this server too; without a shared secret each process seals MRTR
    // requestState with a random key of its own, and a retry that reaches another process is refused (-32602).
    const shared =
      options.bus?.shared ||
      options.sessions?.shared ||
      redisUrl() ||
      tasksIn === "postgres" ||
      tasksIn === "redis" ||
      (tasksIn === "custom" && this.taskOptions.store && typeof this.taskOptions.store === "object" && this.taskOptions.store.shared);
    if (shared && !this.stateCodec && this.eras.modern.length)
      console.warn(
        "mcp runtime: warning: this server shares its stores with other processes, but MCP_REQUEST_STATE_SECRET is not set: each process seals requestState with a random key of its own, so a multi round-trip retry that reaches another process is refused (-32602); give every process the same secret (at least 32 bytes)",
      );
  }

  /** Make the task store the options name (see makeTaskStore: `tasks.store`, else env MCP_TASK_STORE, else memory). */
  taskStore(): TaskStore {
    return makeTaskStore(this.taskOptions);
  }

  /**
   * The legacy session store and event log shared by this server's processes: `options.sessions`, else (env
   * MCP_REDIS_URL) Redis, else none (each process keeps its own sessions in memory). Made on first use.
   */
  sharedSessions(): (SessionStore & EventLog) | undefined {
    return (this.sessionsCache ??= { value: makeSharedSessions(this.options.sessions) }).value;
  }

  /**
   * The message bus this server's processes share: `options.bus`, else a RedisBus when env MCP_REDIS_URL is set (key
   * prefix MCP_REDIS_PREFIX, default `mcp:`), else this process only. Server events go through it, so a
   * resources/updated published on one process reaches the sessions and listen streams of every process.
   */
  get bus(): MessageBus {
    return this.events.bus;
  }

  /** Register a tool. Tool names are unique; `tools/list` lists them in registration order. */
  tool<Args = Record<string, unknown>>(def: ToolDefinition<Args>): this {
    if (this.tools.has(def.name)) throw new TypeError(`tool ${def.name} is already registered`);
    needsFunction(def, "handler", `tool ${def.name}`);
    // A SHOULD, so a warning on stderr, not a refusal. spec/2025-11-25/server/tools.mdx#tool-names
    if (!TOOL_NAME.test(def.name)) {
      process.stderr.write(`mcp runtime: warning: tool name ${JSON.stringify(def.name)} should be 1-128 characters of A-Z, a-z, 0-9, _, - and . (spec/2025-11-25/server/tools.mdx#tool-names)\n`);
    }
    this.tools.set(def.name, { ...(def as unknown as ToolDefinition), input: def.validateInput, output: def.validateOutput });
    this.registered("tools");
    return this;
  }

  /** Remove a tool; clients are told the list changed (once the last is gone, no `tools` or `tasks` is declared). Returns whether it existed. */
  removeTool(name: string): boolean {
    const had = this.tools.delete(name);
    if (had) this.registered("tools");
    return had;
  }
  resource(def: ResourceDefinition): this {
    if (this.resources.has(def.uri)) throw new TypeError(`resource ${def.uri} is already registered`);
    needsFunction(def, "read", `resource ${def.uri}`);
    this.resources.set(def.uri, def);
    this.registered("resources");
    return this;
  }
  /** Register a resource template; clients are told the resource list changed, as for resource(). */
  resourceTemplate(def: ResourceTemplateDefinition): this {
    needsFunction(def, "read", `resource template ${def.uriTemplate}`);
    this.templates.push({ def, template: new UriTemplate(def.uriTemplate) });
    // Templates are listed by resources/templates/list, a part of the resource list. spec/2025-11-25/server/resources.mdx#list-changed-notification
    this.registered("resources");
    return this;
  }
  prompt<Args = Record<string, string>>(def: PromptDefinition<Args>): this {
    if (this.prompts.has(def.name)) throw new TypeError(`prompt ${def.name} is already registered`);
    needsFunction(def, "get", `prompt ${def.name}`);
    this.prompts.set(def.name, def as unknown as PromptDefinition);
    this.registered("prompts");
    return this;
  }

  // ---- change events (legacy list_changed / resources/updated; modern subscriptions/listen) ----

  /** Subscribe to change events (of every process sharing the bus); returns the unsubscribe function. Used by connections. */
  onEvent(listener: (event: ServerEvent) => void): () => void {
    return this.events.on(listener);
  }

  /**
   * Every registration and removal (tool(), resource(), resourceTemplate(), prompt(), removeTool()) comes here: the
   * declared capabilities are made again (the last tool removed: no `tools`, no `tasks`, for sessions opened from now
   * on), and the list's change event goes out. A legacy session's gate reads what it was told at initialize
   * (protocol/legacy-session.ts), wherever and whenever the event reaches it: a session told `tools.listChanged` hears
   * the last tool go, and one told no `tools` is sent no list_changed for the first.
   * spec/2025-11-25/server/tools.mdx#list-changed-notification
   * Before this process has a link or listen stream it publishes nothing; an explicit notify*() call goes to every
   * process when the bus is shared, links here or not.
   */
  private registered(what: "tools" | "prompts" | "resources"): void {
    this.events.emit({ method: `notifications/${what}/list_changed`, filter: `${what}ListChanged` }, true);
    this.declared.registered();
  }

  /** Tell clients the tool list changed (legacy sessions that declared interest; modern listen streams whose filter asks). */
  notifyToolsListChanged(): void {
    this.events.emit({ method: "notifications/tools/list_changed", filter: "toolsListChanged" });
  }
  notifyPromptsListChanged(): void {
    this.events.emit({ method: "notifications/prompts/list_changed", filter: "promptsListChanged" });
  }
  notifyResourcesListChanged(): void {
    this.events.emit({ method: "notifications/resources/list_changed", filter: "resourcesListChanged" });
  }
  /** Tell subscribers of `uri` that the resource changed (legacy resources/subscribe; modern listen `resourceSubscriptions`). */
  notifyResourceUpdated(uri: string): void {
    this.events.emit({ method: "notifications/resources/updated", filter: "resourceSubscriptions", uri });
  }

  /** End every open subscriptions/listen stream of this process gracefully (e.g. at its shutdown; the other processes' streams go on). */
  endSubscriptions(): void {
    this.events.endHere();
  }

  // ---- what the server declares (capabilities.ts) ----

  /** Whether any tool can run as a task: then the server declares tasks (2025-11-25) or the tasks extension (2026-07-28). */
  supportsTasks(): boolean {
    return supportsTasks(this);
  }
  /** The part of a subscriptions/listen filter this server honours: only notification types it can send. */
  honourFilter(requested: Record<string, unknown>): Record<string, unknown> {
    return honourFilter(this, requested);
  }
  /** Whether any prompt or template registered a completer. */
  hasCompletions(): boolean {
    return hasCompletions(this);
  }
  /** The server capabilities declared to a peer on `revision`: only what is registered, only what the revision defines. */
  capabilities(revision: Revision): Record<string, unknown> {
    return this.declared.capabilities(revision);
  }
  /** serverInfo for `revision` (Implementation, with only the fields the revision defines). */
  serverInfo(revision: Revision): Record<string, unknown> {
    return this.declared.serverInfo(revision);
  }
  /** What encodeResult needs of this server for `revision`, made once so that encoding a result allocates only the result. */
  resultEncoding(revision: Revision): ResultEncoding {
    return this.declared.resultEncoding(revision);
  }
  /** `server/discover` result (before encodeResult adds resultType, caching fields and `_meta`). spec/2026-07-28/server/discover.mdx */
  discover(revision: Revision): Record<string, unknown> {
    return this.declared.discover(revision);
  }
  /** The era of each served revision, newest last. */
  get eras(): { legacy: readonly Revision[]; modern: readonly Revision[] } {
    return this.declared.eras;
  }
}

/**
 * A dual-era MCP server (see McpServer). Throws TypeError on a bad option or an environment setting it cannot honour
 * (a MCP_REQUEST_STATE_SECRET under 32 bytes, an unknown MCP_TASK_STORE, a missing store package, …), naming it.
 */
export function createServer(options: ServerOptions): McpServer {
  return new McpServer(options);
}

/** A registration's callback, checked when it is registered rather than at every call (a `handler` given to a prompt). Throws TypeError. */
function needsFunction(def: object, key: string, what: string): void {
  const value = (def as Record<string, unknown>)[key];
  if (typeof value !== "function") {
    const other = ["handler", "get", "read"].find((k) => k !== key && typeof (def as Record<string, unknown>)[k] === "function");
    throw new TypeError(`${what}: ${key} must be a function${other ? ` (it has ${other} instead)` : ""}`);
  }
}
