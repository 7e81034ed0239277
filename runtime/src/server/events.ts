/**
 * A server's change events (legacy list_changed and resources/updated; modern subscriptions/listen), carried by the
 * message bus its processes share, so that an event published on one process reaches the links of every process.
 */
import type { BusMessage, MessageBus } from "../state/bus.js";
import { makeBus, redisUrl } from "../state/from-env.js";
import type { ServerEvent } from "./types.js";

/** The bus channel of server events. */
const EVENTS_CHANNEL = "server-events";

export class ServerEvents {
  private busCache?: MessageBus;

  /**
   * `given`: the server's `bus` option (else env MCP_REDIS_URL, else this process only; see makeBus). `listeners`: the
   * set this process's subscribers are kept in (the server's, so that it can count its links).
   */
  constructor(
    private readonly given: MessageBus | undefined,
    private readonly listeners = new Set<(event: ServerEvent) => void>(),
  ) {}

  /** The bus, made (and subscribed to) on first use. */
  get bus(): MessageBus {
    if (!this.busCache) {
      this.busCache = makeBus(this.given);
      this.busCache.subscribe(EVENTS_CHANNEL, (m) => {
        for (const l of [...this.listeners]) l(m as unknown as ServerEvent);
      });
    }
    return this.busCache;
  }

  /** Subscribe to the events of every process sharing the bus; returns the unsubscribe function. */
  on(listener: (event: ServerEvent) => void): () => void {
    void this.bus;
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Publish `event`. A registration before this process has a link or listen stream publishes nothing: registering at
   * start-up is not a change anyone was told of, and every process registers its own. An explicit notification goes to
   * every process when the bus is shared, links here or not.
   */
  emit(event: ServerEvent, registration = false): void {
    if (!this.busCache && (registration || !(this.given ?? redisUrl()))) return;
    this.bus.publish(EVENTS_CHANNEL, event as unknown as BusMessage);
  }

  /** End every open subscriptions/listen stream of this process (the other processes' streams go on). */
  endHere(): void {
    const event: ServerEvent = { method: "", filter: "end" };
    for (const l of [...this.listeners]) l(event);
  }
}
