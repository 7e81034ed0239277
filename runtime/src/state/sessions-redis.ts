/**
 * Legacy sessions and their SSE event logs in Redis (ioredis), shared by every process of a server. A session is one
 * hash (`<prefix>session:<id>`) that expires after the idle time unless touched: its fixed part (`record`: revision,
 * client capabilities and info, principal) as JSON, and each thing a change sets as a field of its own (`initialized`,
 * `logLevel`, `sub:<uri>`, `get:<stream>`), so that a change is applied in Redis, atomically, instead of a process
 * writing its whole copy over another's newer change (a session stored in the older layout, one JSON string, becomes a
 * hash when first read, so that sessions opened before an upgrade go on). Each resumable stream is a Redis Stream
 * (`<prefix>events:<id>:<n>`, capped at `maxEventsPerStream` entries, an `end` entry once it has ended) that expires
 * with its session. Install it beside the runtime: `npm install ioredis`.
 */
import { type RedisClient, Script, connectRedis, connectionError, loadRedis } from "./redis.js";
import { type EventLog, type LoggedEvent, MAX_GET_STREAMS, type SessionChange, type SessionRecord, type SessionStore } from "./sessions.js";

/** The commands used here, beyond the shared client interface. */
type Redis = RedisClient & {
  pexpire(key: string, ms: number): Promise<number>;
  exists(key: string): Promise<number>;
  hgetall(key: string): Promise<Record<string, string>>;
  sadd(key: string, member: string): Promise<number>;
  smembers(key: string): Promise<string[]>;
  xrange(key: string, start: string, end: string): Promise<[string, string[]][]>;
  multi(): { [command: string]: (...args: (string | number)[]) => unknown; exec(): Promise<unknown> };
};

/**
 * One change to a stored session (KEYS[1]; ARGV: idle ms, kind, value, max GET streams), nothing if it is gone.
 * GET stream numbers are ordered by a counter (`order`); past the bound, the oldest go.
 */
const UPDATE = new Script(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local kind, value = ARGV[2], ARGV[3]
if kind == 'initialized' then redis.call('HSET', KEYS[1], 'initialized', '1')
elseif kind == 'logLevel' then redis.call('HSET', KEYS[1], 'logLevel', value)
elseif kind == 'subscribe' then redis.call('HSET', KEYS[1], 'sub:' .. value, '1')
elseif kind == 'unsubscribe' then redis.call('HDEL', KEYS[1], 'sub:' .. value)
elseif kind == 'getStream' then
  redis.call('HSET', KEYS[1], 'get:' .. value, redis.call('HINCRBY', KEYS[1], 'order', 1))
  local fields = redis.call('HGETALL', KEYS[1])
  local streams = {}
  for i = 1, #fields, 2 do
    if string.sub(fields[i], 1, 4) == 'get:' then streams[#streams + 1] = { fields[i], tonumber(fields[i + 1]) } end
  end
  local max = tonumber(ARGV[4])
  if #streams > max then
    table.sort(streams, function(a, b) return a[2] < b[2] end)
    for i = 1, #streams - max do redis.call('HDEL', KEYS[1], streams[i][1]) end
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`);

/** The label of this store's connection (its stderr lines, its StoreUnavailableError). */
const LABEL = "redis sessions";

/**
 * Run a MULTI; its first failed command's error is thrown (ioredis resolves exec() with each command's error), a
 * connection's as StoreUnavailableError (the client's other commands are translated by connectRedis).
 */
async function exec(m: { exec(): Promise<unknown> }): Promise<void> {
  const results = (await m.exec().catch((err: unknown) => Promise.reject(connectionError(err, LABEL)))) as [Error | null, unknown][] | null;
  const failed = results?.find(([err]) => err);
  if (failed) throw connectionError(failed[0], LABEL);
}

/** A change as the script's kind and value. */
function encodeChange(change: SessionChange): [string, string] {
  if ("initialized" in change) return ["initialized", ""];
  if ("logLevel" in change) return ["logLevel", change.logLevel];
  if ("subscribe" in change) return ["subscribe", change.subscribe];
  if ("unsubscribe" in change) return ["unsubscribe", change.unsubscribe];
  return ["getStream", String(change.getStream)];
}

/** A record as the fields of its hash. */
function hashFields(record: SessionRecord): (string | number)[] {
  const { initialized, logLevel, subscriptions, getStreams, ...base } = record;
  const fields: (string | number)[] = ["record", JSON.stringify(base)];
  if (initialized) fields.push("initialized", "1");
  if (logLevel !== undefined) fields.push("logLevel", logLevel);
  for (const uri of subscriptions ?? []) fields.push(`sub:${uri}`, "1");
  const streams = (getStreams ?? []).slice(-MAX_GET_STREAMS);
  streams.forEach((n, i) => fields.push(`get:${n}`, i + 1));
  fields.push("order", streams.length);
  return fields;
}

/**
 * The older layout (KEYS[1] a JSON string, ARGV[1]) made a hash of the fields ARGV[2..], its expiry kept; nothing if
 * the string changed meanwhile (another process migrated it, or wrote it anew).
 */
const MIGRATE = new Script(`
if redis.call('TYPE', KEYS[1]).ok ~= 'string' or redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1])
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1`);

export class RedisSessions implements SessionStore, EventLog {
  readonly shared = true;
  private readonly redis: Redis;

  /** @param url a Redis URL; throws when ioredis is not installed. */
  constructor(
    readonly url: string,
    readonly options: { prefix?: string; maxEventsPerStream?: number } = {},
  ) {
    this.redis = connectRedis(loadRedis("session store"), url, LABEL) as Redis;
  }

  private get prefix(): string {
    return this.options.prefix ?? "mcp:";
  }
  private sessionKey = (id: string) => `${this.prefix}session:${id}`;
  private streamsKey = (id: string) => `${this.prefix}streams:${id}`;
  private streamKey = (id: string, n: number) => `${this.prefix}events:${id}:${n}`;

  async get(id: string): Promise<SessionRecord | undefined> {
    let h: Record<string, string>;
    try {
      h = await this.redis.hgetall(this.sessionKey(id));
    } catch (err) {
      if (!String((err as Error)?.message).startsWith("WRONGTYPE")) throw err;
      // The older layout (the whole record as one JSON string), written before an upgrade: made a hash, then read.
      await this.migrate(id);
      h = await this.redis.hgetall(this.sessionKey(id));
    }
    if (!h.record) return undefined;
    const base = JSON.parse(h.record) as Omit<SessionRecord, "initialized" | "logLevel" | "subscriptions" | "getStreams">;
    const subscriptions: string[] = [];
    const getStreams: [number, number][] = [];
    for (const [field, value] of Object.entries(h)) {
      if (field.startsWith("sub:")) subscriptions.push(field.slice(4));
      else if (field.startsWith("get:")) getStreams.push([Number(field.slice(4)), Number(value)]);
    }
    return {
      ...base,
      initialized: h.initialized === "1",
      ...(h.logLevel !== undefined ? { logLevel: h.logLevel } : {}),
      subscriptions,
      ...(getStreams.length ? { getStreams: getStreams.sort((a, b) => a[1] - b[1]).map(([n]) => n) } : {}),
    };
  }

  async put(record: SessionRecord, idleMs: number): Promise<void> {
    const key = this.sessionKey(record.id);
    const m = this.redis.multi();
    m.del(key);
    m.hset(key, ...hashFields(record));
    m.pexpire(key, idleMs);
    await exec(m);
  }

  async has(id: string): Promise<boolean> {
    return (await this.redis.exists(this.sessionKey(id))) === 1;
  }

  /** A session kept in the older layout becomes a hash (its expiry kept), unless it changed meanwhile (then as it is now). */
  private async migrate(id: string): Promise<void> {
    const key = this.sessionKey(id);
    const json = await this.redis.get(key);
    if (json === null) return;
    await MIGRATE.run(this.redis, [key], [json, ...hashFields(JSON.parse(json) as SessionRecord)]);
  }

  async update(id: string, change: SessionChange, idleMs: number): Promise<void> {
    await UPDATE.run(this.redis, [this.sessionKey(id)], [idleMs, ...encodeChange(change), MAX_GET_STREAMS]);
  }

  async touch(id: string, idleMs: number): Promise<void> {
    const m = this.redis.multi();
    m.pexpire(this.sessionKey(id), idleMs);
    m.pexpire(this.streamsKey(id), idleMs);
    await exec(m);
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
    await exec(m);
  }

  async end(sessionId: string, stream: number, idleMs: number): Promise<void> {
    const key = this.streamKey(sessionId, stream);
    const m = this.redis.multi();
    m.xadd(key, "*", "end", "1");
    m.pexpire(key, idleMs);
    m.sadd(this.streamsKey(sessionId), key);
    // Expires like append's: an end written after the session was deleted (a handler ending late) must not stay forever.
    m.pexpire(this.streamsKey(sessionId), idleMs);
    await exec(m);
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
