/**
 * The message bus over Redis pub/sub (ioredis), shared by every process of a server: a message published on one
 * process reaches the subscribers of every process. One connection publishes, one is subscribed (to the pattern
 * `<prefix>bus:*`, from construction, so a process hears the bus before its first subscriber arrives). Each message
 * carries the id of the process that sent it: that process delivered it to its own subscribers at once, synchronously,
 * and drops the echo Redis sends back.
 *
 * What pub/sub guarantees: every process subscribed at the time receives the messages of one publisher in the order
 * they were published; nothing is kept, so a process disconnected from Redis misses what was published meanwhile
 * (ioredis reconnects and subscribes again by itself). Install it beside the runtime: `npm install ioredis`.
 */
// node:crypto on first use (request-state.ts): a stdio server without a bus never loads it (#22, cold start).
import { nodeCrypto } from "./request-state.js";
import { type BusMessage, type MessageBus, Subscribers } from "./bus.js";
import { type RedisClient, connectRedis, loadRedis, subscribeRetrying } from "./redis.js";

export interface RedisBusOptions {
  /** Prefix of the Redis channels (`<prefix>bus:<channel>`), so several servers can share one Redis. Default `mcp:`. */
  prefix?: string;
}

export class RedisBus implements MessageBus {
  readonly shared = true;
  /** This process on the bus: messages it sent come back with it and are dropped. */
  readonly origin = nodeCrypto().randomBytes(12).toString("base64url");
  /** Resolves once the subscription is in place (messages published elsewhere before it are not received), or its first attempt failed (retried every second). */
  readonly ready: Promise<void>;
  private readonly publisher: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly base: string;
  private readonly channels = new Subscribers();
  private closed = false;

  /** @param url a Redis URL (`redis://host:port/db`); throws when `ioredis` is not installed. Connects at once, reconnects by itself. */
  constructor(
    readonly url: string,
    options: RedisBusOptions = {},
  ) {
    const Redis = loadRedis("message bus");
    this.base = `${options.prefix ?? "mcp:"}bus:`;
    this.publisher = connectRedis(Redis, url, "redis bus");
    this.subscriber = connectRedis(Redis, url, "redis bus subscriber");
    this.subscriber.on("pmessage", (_pattern, channel, raw) => {
      if (!channel.startsWith(this.base)) return;
      let envelope: { o?: unknown; m?: unknown };
      try {
        envelope = JSON.parse(raw) as typeof envelope;
      } catch {
        return; // not ours: someone else published on the channel
      }
      if (envelope.o === this.origin || typeof envelope.m !== "object" || envelope.m === null) return;
      this.deliver(channel.slice(this.base.length), envelope.m as BusMessage, true);
    });
    this.ready = subscribeRetrying(
      () => this.subscriber.psubscribe(`${this.base}*`),
      "redis bus",
      () => this.closed,
    );
  }

  /** Deliver here now (synchronously), and to every other process once Redis carries it. `message` must be JSON-serializable. */
  publish(channel: string, message: BusMessage): void {
    this.deliver(channel, message, false);
    if (this.closed) return;
    this.publisher.publish(this.base + channel, JSON.stringify({ o: this.origin, m: message })).catch((err: Error) => process.stderr.write(`mcp runtime: redis bus: publish: ${err.message}\n`));
  }

  subscribe(channel: string, handler: (message: BusMessage) => void): () => void {
    return this.channels.add(channel, handler);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.channels.clear();
    await Promise.all(
      [this.publisher, this.subscriber].map((c) =>
        c.quit().catch(() => {
          c.disconnect();
        }),
      ),
    );
  }

  /** A handler's exception: the publisher's own (thrown to it, as LocalBus does), or, from Redis, reported and contained. */
  private deliver(channel: string, message: BusMessage, remote: boolean): void {
    for (const h of this.channels.of(channel)) {
      if (!remote) h(message);
      else
        try {
          h(message);
        } catch (err) {
          process.stderr.write(`mcp runtime: redis bus: a subscriber of ${channel} threw: ${(err as Error)?.message ?? err}\n`);
        }
    }
  }
}
