/**
 * The stores a server's options name, else its environment: the task store (`MCP_TASK_STORE`, `MCP_DATABASE_URL`),
 * the message bus and the legacy session store (`MCP_REDIS_URL`, `MCP_REDIS_PREFIX`; `MCP_SESSION_STORE=file:<path>`), the requestState secret
 * (`MCP_REQUEST_STATE_SECRET`). Options passed in code always take precedence over the environment. Each check
 * throws TypeError naming the setting at start, so that a wrong one stops the start, not the first request.
 */
import { createRequire } from "node:module";
import { readEnv } from "./env.js";
import { MemoryTaskStore, type TaskStore } from "./task-store.js";
import { LocalBus, type MessageBus } from "./bus.js";
import type { EventLog, SessionStore } from "./sessions.js";
import { RedisSessions } from "./sessions-redis.js";
import { FileSessions } from "./sessions-file.js";
import { RedisBus } from "./bus-redis.js";
import { loadRedis } from "./redis.js";
import { SqliteTaskStore } from "./task-store-sqlite.js";
import { PostgresTaskStore } from "./task-store-postgres.js";
import { RedisTaskStore } from "./task-store-redis.js";
import { RequestStateCodec } from "./request-state.js";

/** What names a task store (a server's `tasks` options). */
export interface TaskStoreSettings {
  store?: "memory" | "sqlite" | "postgres" | "redis" | TaskStore;
  path?: string;
  url?: string;
  prefix?: string;
}

/** A task store as named: a TaskStore of the caller's own, or a kind with its path or URL. */
export interface TaskStoreChoice {
  kind: "custom" | "memory" | "sqlite" | "postgres" | "redis";
  location?: string;
}

/** The URL of the shared Redis (bus, sessions), when env MCP_REDIS_URL sets one. */
export function redisUrl(): string | undefined {
  return readEnv("MCP_REDIS_URL") || undefined;
}

/**
 * Which task store `settings` (else env MCP_TASK_STORE, else `redis` when MCP_REDIS_URL is set, else memory) name, checked: its path or URL given, its client package
 * installed. Throws TypeError naming the setting ("MCP_TASK_STORE: …" or "createServer: tasks…").
 */
export function taskStoreChoice(settings: TaskStoreSettings): TaskStoreChoice {
  const { store, path, url } = settings;
  if (store && typeof store === "object") return { kind: "custom" };
  const env = store === undefined ? readEnv("MCP_TASK_STORE") : undefined;
  // MCP_REDIS_URL shares a server's state between its processes: its tasks too, unless a store is named (a task
  // created through one process must not be unknown on the next).
  const unnamed = env === undefined || env === "";
  const kind = store ?? (unnamed ? (redisUrl() ? "redis" : "memory") : env.startsWith("sqlite:") ? "sqlite" : env);
  const setting = store !== undefined ? "createServer: tasks.store" : unnamed && kind === "redis" ? "MCP_REDIS_URL" : "MCP_TASK_STORE";
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

/**
 * Make the task store `settings` name: `store`, else env MCP_TASK_STORE (`memory`, `sqlite:<path>`, `postgres` with
 * MCP_DATABASE_URL, `redis` with MCP_REDIS_URL), else Redis when MCP_REDIS_URL is set, else memory. Throws TypeError on a store it does not know or a shared
 * store without its URL, Error when its client package (better-sqlite3, pg, ioredis) is missing.
 */
export function makeTaskStore(settings: TaskStoreSettings): TaskStore {
  const store = settings.store;
  if (store && typeof store === "object") return store;
  const { kind, location } = taskStoreChoice(settings);
  if (kind === "sqlite") return new SqliteTaskStore(location!);
  if (kind === "postgres") return new PostgresTaskStore(location!);
  if (kind === "redis") return new RedisTaskStore(location!, { prefix: settings.prefix ?? readEnv("MCP_REDIS_PREFIX") });
  return new MemoryTaskStore();
}

/**
 * The legacy session store and event log shared by a server's processes: `given`, else (env
 * `MCP_SESSION_STORE=file:<path>`) a file that one restarting process keeps them in (`npm run dev`), else (env
 * MCP_REDIS_URL) Redis, else none (each process keeps its own sessions in memory). Throws TypeError on another
 * MCP_SESSION_STORE value, or a session file that cannot be written.
 */
export function makeSharedSessions(given: (SessionStore & EventLog) | undefined): (SessionStore & EventLog) | undefined {
  if (given) return given;
  const file = sessionFile(undefined);
  if (file) return new FileSessions(file);
  const url = readEnv("MCP_REDIS_URL");
  return url ? new RedisSessions(url, { prefix: readEnv("MCP_REDIS_PREFIX") }) : undefined;
}

/**
 * The session file env MCP_SESSION_STORE names (`file:<path>`), unless `given` (a store in the options) wins; checked
 * at start: another value throws TypeError naming the setting.
 */
export function sessionFile(given: (SessionStore & EventLog) | undefined): string | undefined {
  const named = given ? undefined : readEnv("MCP_SESSION_STORE");
  if (!named) return undefined;
  if (!named.startsWith("file:") || named.length === "file:".length) throw new TypeError(`MCP_SESSION_STORE=${named}: expected file:<path> (or unset: memory, or Redis with MCP_REDIS_URL)`);
  return named.slice("file:".length);
}

/** The message bus: `given`, else a RedisBus when env MCP_REDIS_URL is set (key prefix MCP_REDIS_PREFIX), else this process only. */
export function makeBus(given: MessageBus | undefined): MessageBus {
  const url = given ? undefined : readEnv("MCP_REDIS_URL");
  return given ?? (url ? new RedisBus(url, { prefix: readEnv("MCP_REDIS_PREFIX") }) : new LocalBus());
}

/** The bus MCP_REDIS_URL asks for is made on first use; a missing ioredis is said now (TypeError), not at the first connection. */
export function checkRedisBus(given: MessageBus | undefined): void {
  if (given || !readEnv("MCP_REDIS_URL")) return;
  try {
    loadRedis("message bus and session store");
  } catch (err) {
    throw new TypeError(`MCP_REDIS_URL: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * The requestState codec of a configured secret (`given`, else env MCP_REQUEST_STATE_SECRET), or undefined when none
 * is (then a random key is made on first use). Throws TypeError naming the setting on a secret under 32 bytes.
 */
export function requestStateCodec(given: string | readonly string[] | undefined): RequestStateCodec | undefined {
  const secret = given ?? readEnv("MCP_REQUEST_STATE_SECRET");
  if (secret === undefined || secret === "") return undefined;
  try {
    return new RequestStateCodec(secret);
  } catch (err) {
    throw new TypeError(`${given === undefined ? "MCP_REQUEST_STATE_SECRET" : "createServer: requestStateSecret"}: ${(err as Error).message}`, { cause: err });
  }
}
