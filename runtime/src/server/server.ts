/**
 * The registration API: a server's tools, resources, resource templates and prompts, its capabilities and change
 * events. The requests are answered by the feature modules (tools.ts, resources.ts, prompts.ts, completion.ts),
 * which dispatch (../protocol/dispatch.ts) calls with this server; results are encoded by ../wire/encode.ts.
 *
 * Every per-revision decision calls the generated rules module (`../rules.js`):
 * nothing here names a revision.
 */
import { createRequire } from "node:module";
import { type ResultEncoding, conform, resultEncoding } from "../wire/encode.js";
import { type Revision, ERA, REVISIONS, hasCapability, taskWireForm } from "../rules.js";
import { TASKS_EXTENSION } from "../wire/meta.js";
import { MemoryTaskStore, type TaskStore } from "../state/task-store.js";
import { type BusMessage, LocalBus, type MessageBus } from "../state/bus.js";
import type { EventLog, SessionStore } from "../state/sessions.js";
import { RedisSessions } from "../state/sessions-redis.js";
import { RedisBus } from "../state/bus-redis.js";
import { loadRedis } from "../state/redis.js";
import { SqliteTaskStore } from "../state/task-store-sqlite.js";
import { PostgresTaskStore } from "../state/task-store-postgres.js";
import { RedisTaskStore } from "../state/task-store-redis.js";
import { RequestStateCodec } from "../protocol/mrtr.js";
import type { CompiledTool, TemplateEntry } from "./registry.js";
import type { PromptDefinition, ResourceDefinition, ResourceTemplateDefinition, ServerEvent, ServerOptions, TaskOptions, ToolDefinition } from "./types.js";
import { readEnv } from "./env.js";
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
export { RedisBus, type RedisBusOptions } from "../state/bus-redis.js";
export { SqliteTaskStore } from "../state/task-store-sqlite.js";
export { PostgresTaskStore } from "../state/task-store-postgres.js";
export { RedisTaskStore, type RedisTaskStoreOptions } from "../state/task-store-redis.js";
export { LOGGING_LEVELS } from "./types.js";
export { MissingCapabilityError, ResourceNotFoundError } from "./errors.js";
export { conform } from "../wire/encode.js";
export { rankCompletions } from "./completion.js";

/** The bus channel of server events. */
const EVENTS_CHANNEL = "server-events";

/**
 * What a tool name SHOULD look like. spec/2025-11-25/server/tools.mdx#tool-names
 * Exported so that mcp.json's checks (@create-mcp-server/codegen) apply this rule, not a copy of it.
 */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

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
  readonly templates: TemplateEntry[] = [];
  readonly prompts = new Map<string, PromptDefinition>();
  readonly validateResults: boolean;
  /**
   * Seals and opens MRTR requestState (spec/2026-07-28/basic/patterns/mrtr.mdx), one per server, shared by all its
   * connections; made at construction when a secret is configured, else on first use (a random key).
   */
  get requestStateCodec(): RequestStateCodec {
    return (this.stateCodec ??= new RequestStateCodec());
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
    // A configured secret is checked now, so that a short one stops the start instead of the first multi round-trip call.
    const secret = this.options.requestStateSecret ?? readEnv("MCP_REQUEST_STATE_SECRET");
    if (secret !== undefined && secret !== "") {
      try {
        this.stateCodec = new RequestStateCodec(secret);
      } catch (err) {
        throw new TypeError(`${this.options.requestStateSecret === undefined ? "MCP_REQUEST_STATE_SECRET" : "createServer: requestStateSecret"}: ${(err as Error).message}`, { cause: err });
      }
    }
    this.validateResults = options.validateResults ?? readEnv("MCP_RUNTIME_VALIDATE_RESULTS") === "1";
    // The bus MCP_REDIS_URL asks for is made on first use; a missing ioredis is said now, not at the first connection.
    if (!options.bus && readEnv("MCP_REDIS_URL")) {
      try {
        loadRedis("message bus and session store");
      } catch (err) {
        throw new TypeError(`MCP_REDIS_URL: ${(err as Error).message}`, { cause: err });
      }
    }
    const t = options.tasks ?? {};
    this.taskOptions = {
      defaultTtlMs: 3_600_000,
      maxTtlMs: 86_400_000,
      pollIntervalMs: 1000,
      sweepIntervalMs: 60_000,
      maxRunningPerOwner: 100,
      maxRunning: 1000,
      leaseMs: 30_000,
      ...Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined)),
    };
    for (const k of ["defaultTtlMs", "maxTtlMs", "pollIntervalMs", "sweepIntervalMs", "maxRunningPerOwner", "maxRunning", "leaseMs"] as const) {
      if (!(Number.isSafeInteger(this.taskOptions[k]) && this.taskOptions[k] > 0)) throw new TypeError(`createServer: tasks.${k} must be a positive integer (ms)`);
    }
    // A task store that cannot be made is said at start (the store itself is made, and connects, on first use).
    const tasksIn = this.taskStoreChoice().kind;
    // Shared stores mean other processes serve this server too; without a shared secret each process seals MRTR
    // requestState with a random key of its own, and a retry that reaches another process is refused (-32602).
    const shared =
      options.bus?.shared ||
      options.sessions?.shared ||
      readEnv("MCP_REDIS_URL") ||
      tasksIn === "postgres" ||
      tasksIn === "redis" ||
      (tasksIn === "custom" && this.taskOptions.store && typeof this.taskOptions.store === "object" && this.taskOptions.store.shared);
    if (shared && !this.stateCodec && this.eras.modern.length)
      console.warn(
        "mcp runtime: warning: this server shares its stores with other processes, but MCP_REQUEST_STATE_SECRET is not set: each process seals requestState with a random key of its own, so a multi round-trip retry that reaches another process is refused (-32602); give every process the same secret (at least 32 bytes)",
      );
  }

  /**
   * Which task store the options (else env MCP_TASK_STORE) name, checked: its path or URL given, its client package
   * installed. Throws TypeError naming the setting ("MCP_TASK_STORE: …" or "createServer: tasks…").
   */
  private taskStoreChoice(): { kind: "custom" | "memory" | "sqlite" | "postgres" | "redis"; location?: string } {
    const { store, path, url } = this.taskOptions;
    if (store && typeof store === "object") return { kind: "custom" };
    const env = store === undefined ? readEnv("MCP_TASK_STORE") : undefined;
    const setting = store === undefined ? "MCP_TASK_STORE" : "createServer: tasks.store";
    const kind = store ?? (env === undefined || env === "" ? "memory" : env.startsWith("sqlite:") ? "sqlite" : env);
    if (kind !== "memory" && kind !== "sqlite" && kind !== "postgres" && kind !== "redis") throw new TypeError(`${setting}=${kind}: expected memory, sqlite:<path>, postgres or redis`);
    if (kind === "memory") return { kind };
    const location = kind === "sqlite" ? (store === "sqlite" ? path : env!.slice("sqlite:".length)) : (url ?? readEnv(kind === "postgres" ? "MCP_DATABASE_URL" : "MCP_REDIS_URL"));
    if (!location) {
      const needs =
        kind === "sqlite" ? 'a path (tasks: { store: "sqlite", path } or MCP_TASK_STORE=sqlite:<path>)' : `a URL (tasks: { url } or ${kind === "postgres" ? "MCP_DATABASE_URL" : "MCP_REDIS_URL"})`;
      throw new TypeError(`${setting}: the ${kind} task store needs ${needs}`);
    }
    const pkg = { sqlite: "better-sqlite3@12", postgres: "pg", redis: "ioredis" }[kind];
    try {
      createRequire(import.meta.url).resolve(pkg.replace(/@\d+$/, ""));
    } catch {
      throw new TypeError(`${setting}: the ${kind} task store needs the ${pkg.replace(/@\d+$/, "")} package: npm install ${pkg}`);
    }
    return { kind, location };
  }

  /** Task options with their defaults. */
  readonly taskOptions: Required<Pick<TaskOptions, "defaultTtlMs" | "maxTtlMs" | "pollIntervalMs" | "sweepIntervalMs" | "maxRunningPerOwner" | "maxRunning" | "leaseMs">> & TaskOptions;

  /**
   * Make the task store the options name: `tasks.store`, else env MCP_TASK_STORE (`memory`, `sqlite:<path>`,
   * `postgres` with MCP_DATABASE_URL, `redis` with MCP_REDIS_URL), else memory. Throws TypeError on a store it does not
   * know or a shared store without its URL, Error when its client package (better-sqlite3, pg, ioredis) is missing.
   */
  taskStore(): TaskStore {
    const store = this.taskOptions.store;
    if (store && typeof store === "object") return store;
    const { kind, location } = this.taskStoreChoice();
    if (kind === "sqlite") return new SqliteTaskStore(location!);
    if (kind === "postgres") return new PostgresTaskStore(location!);
    if (kind === "redis") return new RedisTaskStore(location!, { prefix: this.taskOptions.prefix ?? readEnv("MCP_REDIS_PREFIX") });
    return new MemoryTaskStore();
  }

  private sessionsCache?: { value: (SessionStore & EventLog) | undefined };

  /**
   * The legacy session store and event log shared by this server's processes: `options.sessions`, else (env
   * MCP_REDIS_URL) Redis, else none (each process keeps its own sessions in memory). Made on first use.
   */
  sharedSessions(): (SessionStore & EventLog) | undefined {
    if (!this.sessionsCache) {
      const url = this.options.sessions ? undefined : readEnv("MCP_REDIS_URL");
      this.sessionsCache = { value: this.options.sessions ?? (url ? new RedisSessions(url, { prefix: readEnv("MCP_REDIS_PREFIX") }) : undefined) };
    }
    return this.sessionsCache.value;
  }

  /** Whether any tool can run as a task: then the server declares tasks (2025-11-25) or the tasks extension (2026-07-28). */
  supportsTasks(): boolean {
    for (const t of this.tools.values()) if (t.taskSupport === "optional" || t.taskSupport === "required") return true;
    return false;
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
    this.registered("tools");
    return this;
  }

  /** Remove a tool; clients are told the list changed. Returns whether it existed. */
  removeTool(name: string): boolean {
    const had = this.tools.delete(name);
    if (had) this.registered("tools");
    return had;
  }
  resource(def: ResourceDefinition): this {
    if (this.resources.has(def.uri)) throw new TypeError(`resource ${def.uri} is already registered`);
    this.resources.set(def.uri, def);
    this.capabilityCache.clear();
    this.registered("resources");
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
    this.registered("prompts");
    return this;
  }

  // ---- change events (legacy list_changed / resources/updated; modern subscriptions/listen) ----

  private readonly listeners = new Set<(event: ServerEvent) => void>();
  private busCache?: MessageBus;
  private unsubscribeBus?: () => void;

  /**
   * The message bus this server's processes share: `options.bus`, else a RedisBus when env MCP_REDIS_URL is set (key
   * prefix MCP_REDIS_PREFIX, default `mcp:`), else this process only. Server events go through it, so a
   * resources/updated published on one process reaches the sessions and listen streams of every process.
   */
  get bus(): MessageBus {
    if (!this.busCache) {
      const redisUrl = this.options.bus ? undefined : readEnv("MCP_REDIS_URL");
      this.busCache = this.options.bus ?? (redisUrl ? new RedisBus(redisUrl, { prefix: readEnv("MCP_REDIS_PREFIX") }) : new LocalBus());
      this.unsubscribeBus = this.busCache.subscribe(EVENTS_CHANNEL, (m) => {
        for (const l of [...this.listeners]) l(m as unknown as ServerEvent);
      });
    }
    return this.busCache;
  }

  /** Subscribe to change events (of every process sharing the bus); returns the unsubscribe function. Used by connections. */
  onEvent(listener: (event: ServerEvent) => void): () => void {
    void this.bus;
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Publish a server event. A registration (tool(), resource(), prompt(), removeTool()) before this process has a link
   * or listen stream publishes nothing: registering at start-up is not a change anyone was told of, and every process
   * registers its own. An explicit notify*() call goes to every process when the bus is shared, links here or not.
   */
  private emit(event: ServerEvent, registration = false): void {
    if (!this.busCache && (registration || !(this.options.bus ?? readEnv("MCP_REDIS_URL")))) return;
    this.bus.publish(EVENTS_CHANNEL, event as unknown as BusMessage);
  }

  private registered(what: "tools" | "prompts" | "resources"): void {
    this.emit({ method: `notifications/${what}/list_changed`, filter: `${what}ListChanged` }, true);
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

  /** End every open subscriptions/listen stream of this process gracefully (e.g. at its shutdown; the other processes' streams go on). */
  endSubscriptions(): void {
    const event: ServerEvent = { method: "", filter: "end" };
    for (const l of [...this.listeners]) l(event);
  }

  /** The part of a subscriptions/listen filter this server honours: only notification types it can send. */
  honourFilter(requested: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (requested.toolsListChanged === true && this.tools.size) out.toolsListChanged = true;
    if (requested.promptsListChanged === true && this.prompts.size) out.promptsListChanged = true;
    const hasResources = this.resources.size > 0 || this.templates.length > 0;
    if (requested.resourcesListChanged === true && hasResources) out.resourcesListChanged = true;
    if (Array.isArray(requested.resourceSubscriptions) && hasResources) out.resourceSubscriptions = requested.resourceSubscriptions.filter((u) => typeof u === "string");
    // The tasks extension's filter (its caller checked the request declares the extension).
    if (Array.isArray(requested.taskIds) && this.supportsTasks()) out.taskIds = requested.taskIds.filter((u) => typeof u === "string");
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
    const tasks = this.supportsTasks() ? taskWireForm(revision) : "none";
    // Only tools/call can be a task. spec/2025-11-25/basic/utilities/tasks.mdx#server-capabilities
    if (tasks === "core") caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(caps)) {
      if (!hasCapability(revision, "server", name)) continue;
      out[name] = Object.fromEntries(Object.entries(value).filter(([k]) => hasCapability(revision, "server", `${name}.${k}`)));
    }
    // The extension, never the core `tasks` capability. spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#capability-negotiation
    if (tasks === "extension" && hasCapability(revision, "server", "extensions")) out.extensions = { [TASKS_EXTENSION]: {} };
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

  /** What encodeResult needs of this server for `revision`, made once so that encoding a result allocates only the result. */
  resultEncoding(revision: Revision): ResultEncoding {
    let encoding = this.encodingCache.get(revision);
    if (!encoding) this.encodingCache.set(revision, (encoding = resultEncoding(revision, this.serverInfo(revision), this.options.cache)));
    return encoding;
  }
  private readonly encodingCache = new Map<Revision, ResultEncoding>();

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
