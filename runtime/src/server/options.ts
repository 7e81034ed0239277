/**
 * A server's options with their defaults, checked at construction: each bad value throws TypeError naming it
 * ("createServer: …"), so that a wrong option stops the start, not the first request.
 */
import { type Revision, REVISIONS } from "../rules.js";
import type { ServerOptions, TaskOptions } from "./types.js";
import { defaultExposeErrors } from "./failures.js";
import { cacheHintProblem } from "../wire/encode.js";

/** The server options with their defaults. */
export type ResolvedOptions = Required<Pick<ServerOptions, "name" | "version" | "pageSize" | "logging" | "defaultLogLevel" | "clientRequestTimeoutMs" | "requestStateTtlMs" | "exposeErrors">> &
  ServerOptions;

/** The task options with their defaults (durations in ms). */
export type ResolvedTaskOptions = Required<Pick<TaskOptions, (typeof TASK_LIMITS)[number]>> & TaskOptions;

const TASK_LIMITS = [
  "defaultTtlMs",
  "maxTtlMs",
  "pollIntervalMs",
  "sweepIntervalMs",
  "maxRunningPerOwner",
  "maxRunning",
  "leaseMs",
  "maxStoredTasksPerOwner",
  "maxStoredTasks",
  "maxStoredBytesPerOwner",
  "maxStoredBytes",
] as const;

/** `options` without its undefined values, so that a default is not overwritten by an explicit `undefined`. */
function given<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The revisions served, in the rules module's order. Throws TypeError on an unknown revision or none. */
function servedRevisions(options: ServerOptions): readonly Revision[] {
  const revisions = options.revisions ?? REVISIONS;
  for (const r of revisions) if (!REVISIONS.includes(r)) throw new TypeError(`createServer: unknown revision ${r}; known: ${REVISIONS.join(", ")}`);
  if (revisions.length === 0) throw new TypeError("createServer: serve at least one revision");
  return REVISIONS.filter((r) => revisions.includes(r));
}

/**
 * The server options with their defaults, and the revisions served (in the rules module's order). Throws TypeError
 * without a name and version, on an unknown revision or none, or on a bad pageSize or cache default.
 */
export function resolveOptions(options: ServerOptions): { options: ResolvedOptions; revisions: readonly Revision[] } {
  if (!options?.name || !options.version) throw new TypeError("createServer: name and version are required");
  const revisions = servedRevisions(options);
  const resolved: ResolvedOptions = {
    pageSize: 100,
    logging: true,
    defaultLogLevel: "info",
    clientRequestTimeoutMs: 60_000,
    requestStateTtlMs: 600_000,
    exposeErrors: defaultExposeErrors(),
    ...(given(options) as ServerOptions),
  };
  if (resolved.logger !== undefined && typeof resolved.logger !== "function") throw new TypeError("createServer: logger must be a function of one log record");
  if (!Number.isSafeInteger(resolved.pageSize) || resolved.pageSize < 1) throw new TypeError(`createServer: pageSize must be a positive integer`);
  // Defaults of the caching hints a server MUST send valid (wire/encode.ts cacheHintProblem).
  if (resolved.cache !== undefined && (typeof resolved.cache !== "object" || resolved.cache === null)) throw new TypeError("createServer: cache must be an object { ttlMs?, cacheScope? }");
  const cacheProblem = resolved.cache && cacheHintProblem(resolved.cache);
  if (cacheProblem) throw new TypeError(`createServer: cache.${cacheProblem}`);
  return { options: resolved, revisions };
}

/**
 * The task options with their defaults (documented in TaskOptions and docs/tasks.md). Throws TypeError on a limit
 * that is not a positive integer, or a default TTL over the longest one granted.
 */
export function resolveTaskOptions(tasks: TaskOptions = {}): ResolvedTaskOptions {
  const resolved: ResolvedTaskOptions = {
    defaultTtlMs: 3_600_000,
    // The server chooses the TTL it grants (spec/2025-11-25/basic/utilities/tasks.mdx#ttl-and-resource-management:
    // receivers MAY override the requested ttl; …#resource-management: enforce a maximum): as long as the default.
    maxTtlMs: 3_600_000,
    pollIntervalMs: 1000,
    sweepIntervalMs: 60_000,
    maxRunningPerOwner: 100,
    maxRunning: 1000,
    leaseMs: 30_000,
    maxStoredTasksPerOwner: 1000,
    maxStoredTasks: 10_000,
    maxStoredBytesPerOwner: 16 * 1024 * 1024,
    maxStoredBytes: 128 * 1024 * 1024,
    ...given(tasks),
  };
  for (const k of TASK_LIMITS) {
    if (!(Number.isSafeInteger(resolved[k]) && resolved[k] > 0)) throw new TypeError(`createServer: tasks.${k} must be a positive integer`);
  }
  if (resolved.defaultTtlMs > resolved.maxTtlMs) throw new TypeError(`createServer: tasks.defaultTtlMs (${resolved.defaultTtlMs}) is over tasks.maxTtlMs (${resolved.maxTtlMs})`);
  return resolved;
}
