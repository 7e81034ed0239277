/**
 * Legacy sessions and their SSE event logs in Redis (ioredis), shared by every process of a server. A session is one
 * key (`<prefix>session:<id>`, JSON) that expires after the idle time unless touched; each resumable stream is a Redis
 * Stream (`<prefix>events:<id>:<n>`, capped at `maxEventsPerStream` entries, an `end` entry once it has ended) that
 * expires with its session. Install it beside the runtime: `npm install ioredis`.
 */
import { type RedisClient, connectRedis, loadRedis } from "./redis.js";
import type { EventLog, LoggedEvent, SessionRecord, SessionStore } from "./sessions.js";

/** The commands used here, beyond the shared client interface. */
type Redis = RedisClient & {
  set(key: string, value: string, px: "PX", ms: number): Promise<unknown>;
  pexpire(key: string, ms: number): Promise<number>;
  sadd(key: string, member: string): Promise<number>;
  smembers(key: string): Promise<string[]>;
  xrange(key: string, start: string, end: string): Promise<[string, string[]][]>;
  multi(): { [command: string]: (...args: (string | number)[]) => unknown; exec(): Promise<unknown> };
};

export class RedisSessions implements SessionStore, EventLog {
  readonly shared = true;
  private readonly redis: Redis;

  /** @param url a Redis URL; throws when ioredis is not installed. */
  constructor(
    readonly url: string,
    readonly options: { prefix?: string; maxEventsPerStream?: number } = {},
  ) {
    this.redis = connectRedis(loadRedis("session store"), url, "redis sessions") as Redis;
  }

  private get prefix(): string {
    return this.options.prefix ?? "mcp:";
  }
  private sessionKey = (id: string) => `${this.prefix}session:${id}`;
  private streamsKey = (id: string) => `${this.prefix}streams:${id}`;
  private streamKey = (id: string, n: number) => `${this.prefix}events:${id}:${n}`;

  async get(id: string): Promise<SessionRecord | undefined> {
    const raw = await this.redis.get(this.sessionKey(id));
    return raw ? (JSON.parse(raw) as SessionRecord) : undefined;
  }

  async put(record: SessionRecord, idleMs: number): Promise<void> {
    await this.redis.set(this.sessionKey(record.id), JSON.stringify(record), "PX", idleMs);
  }

  async touch(id: string, idleMs: number): Promise<void> {
    const m = this.redis.multi();
    m.pexpire(this.sessionKey(id), idleMs);
    m.pexpire(this.streamsKey(id), idleMs);
    await m.exec();
  }

  async delete(id: string): Promise<void> {
    await this.drop(id);
    await this.redis.del(this.sessionKey(id));
  }

  async append(sessionId: string, stream: number, event: LoggedEvent, idleMs: number): Promise<void> {
    const key = this.streamKey(sessionId, stream);
    const m = this.redis.multi();
    m.xadd(key, "MAXLEN", this.options.maxEventsPerStream ?? 100, "*", "seq", event.seq, "text", event.text);
    m.pexpire(key, idleMs);
    m.sadd(this.streamsKey(sessionId), key);
    m.pexpire(this.streamsKey(sessionId), idleMs);
    await m.exec();
  }

  async end(sessionId: string, stream: number, idleMs: number): Promise<void> {
    const key = this.streamKey(sessionId, stream);
    const m = this.redis.multi();
    m.xadd(key, "*", "end", "1");
    m.pexpire(key, idleMs);
    m.sadd(this.streamsKey(sessionId), key);
    // Expires like append's: an end written after the session was deleted (a handler ending late) must not stay forever.
    m.pexpire(this.streamsKey(sessionId), idleMs);
    await m.exec();
  }

  async read(sessionId: string, stream: number, after: number): Promise<{ events: LoggedEvent[]; ended: boolean } | undefined> {
    const entries = await this.redis.xrange(this.streamKey(sessionId, stream), "-", "+");
    if (!entries.length) return undefined;
    const events: LoggedEvent[] = [];
    let ended = false;
    for (const [, fields] of entries) {
      const f: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]] = fields[i + 1];
      if (f.end) ended = true;
      else if (Number(f.seq) > after) events.push({ seq: Number(f.seq), text: f.text });
    }
    return { events, ended };
  }

  async drop(sessionId: string): Promise<void> {
    const keys = await this.redis.smembers(this.streamsKey(sessionId));
    await this.redis.del(this.streamsKey(sessionId), ...keys);
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
