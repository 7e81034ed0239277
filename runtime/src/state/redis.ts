/**
 * The ioredis client, loaded on first use (an optional peer dependency: only servers configured for Redis need it),
 * and the little of its interface the Redis task store and bus use.
 */
import { createRequire } from "node:module";
import { StoreUnavailableError } from "./errors.js";

export interface RedisClient {
  get(key: string): Promise<string | null>;
  del(...keys: string[]): Promise<number>;
  zrem(key: string, ...members: string[]): Promise<number>;
  zscore(key: string, member: string): Promise<string | null>;
  zrangebyscore(key: string, min: string | number, max: string | number, ...args: (string | number)[]): Promise<string[]>;
  mget(...keys: string[]): Promise<(string | null)[]>;
  publish(channel: string, message: string): Promise<number>;
  psubscribe(...patterns: string[]): Promise<unknown>;
  subscribe(...channels: string[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  script(subcommand: "LOAD", script: string): Promise<unknown>;
  on(event: "message", listener: (channel: string, message: string) => void): this;
  on(event: "pmessage", listener: (pattern: string, channel: string, message: string) => void): this;
  on(event: "error", listener: (err: Error) => void): this;
  quit(): Promise<unknown>;
  disconnect(): void;
}

type RedisConstructor = new (url: string, options?: Record<string, unknown>) => RedisClient;

/** The ioredis constructor; throws with the install line when the package is missing. */
export function loadRedis(what: string): RedisConstructor {
  let mod: RedisConstructor & { default?: RedisConstructor };
  try {
    mod = createRequire(import.meta.url)("ioredis") as typeof mod;
  } catch (err) {
    throw new Error(`the Redis ${what} needs the ioredis package: npm install ioredis (${(err as Error).message})`, { cause: err });
  }
  return mod.default ?? mod;
}

/**
 * How long a command waits for Redis's answer before it fails (its request is answered with an error); at most twice
 * that in all, as an auto-pipelined batch is sent once the one before it is done.
 */
const COMMAND_TIMEOUT_MS = 5000;

/**
 * `err` as a caller should see it: Redis's own answer to a command (a ReplyError: WRONGTYPE, NOSCRIPT, ...) as it is;
 * anything else ioredis rejects a command with is about the connection (refused, closed, the retries per request
 * spent, the command timeout) and becomes a StoreUnavailableError, the driver's error its cause.
 */
export function connectionError(err: unknown, label: string): unknown {
  if ((err as Error)?.name === "ReplyError" || err instanceof StoreUnavailableError) return err;
  return new StoreUnavailableError(label, { cause: err });
}

/** `client`, each command's rejection passed through connectionError (a MULTI's exec() is its caller's to translate). */
function translating(client: RedisClient, label: string): RedisClient {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        return result instanceof Promise ? result.catch((err: unknown) => Promise.reject(connectionError(err, label))) : result === target ? receiver : result;
      };
    },
  });
}

/**
 * Connect to `url`; a connection error is reported on stderr (ioredis reconnects by itself) instead of crashing. Its
 * commands reject with StoreUnavailableError when Redis cannot be reached (connectionError).
 */
export function connectRedis(Redis: RedisConstructor, url: string, label: string): RedisClient {
  // A command fails after two reconnection attempts (well under a second) instead of holding its request for ioredis's default ~20;
  // and after COMMAND_TIMEOUT_MS without an answer (a Redis that hangs, packets dropped), where ioredis would wait for ever.
  const client = new Redis(url, { enableAutoPipelining: true, maxRetriesPerRequest: 2, commandTimeout: COMMAND_TIMEOUT_MS });
  let last = "";
  client.on("error", (err) => {
    // Reconnection attempts repeat the same error: say it once per distinct message.
    if (err.message === last) return;
    last = err.message;
    process.stderr.write(`mcp runtime: ${label}: ${err.message}\n`);
  });
  return translating(client, label);
}

/**
 * Subscribe (`attempt`), retrying every second while it fails, until `closed()`; ioredis subscribes again by itself
 * after a reconnection, this covers a first attempt that failed. Resolves after the first attempt, whatever its
 * outcome, so that callers waiting for the subscription do not hang while Redis is down (their commands fail instead).
 */
export function subscribeRetrying(attempt: () => Promise<unknown>, label: string, closed: () => boolean): Promise<void> {
  const once = (): Promise<void> =>
    attempt().then(
      () => {},
      (err: Error) => {
        if (closed()) return;
        process.stderr.write(`mcp runtime: ${label}: subscribing: ${err.message}; retrying\n`);
        setTimeout(() => void once(), 1000).unref?.();
      },
    );
  return once();
}

/** A Lua script run by its SHA1 (loaded once per connection, reloaded after a server's SCRIPT FLUSH or restart). */
export class Script {
  private sha?: Promise<string>;
  constructor(private readonly source: string) {}

  async run(client: RedisClient, keys: string[], args: (string | number)[]): Promise<unknown> {
    this.sha ??= client.script("LOAD", this.source) as Promise<string>;
    const sha = await this.sha.catch((err: unknown) => {
      this.sha = undefined; // a connection error: load it again next time
      throw err;
    });
    try {
      return await client.evalsha(sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!String((err as Error).message).includes("NOSCRIPT")) throw err;
      this.sha = undefined;
      return client.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
