/**
 * The message bus: how the processes of one server tell each other what happened (server events for change
 * notifications and subscriptions/listen fan-out; later, legacy session traffic). Publishing delivers to this
 * process's subscribers at once, synchronously, and to every other process sharing the bus; a process never gets its
 * own messages twice.
 */

/** A message on the bus: JSON-serializable. */
export type BusMessage = Record<string, unknown>;

export interface MessageBus {
  /** True when other processes share it (a shared bus, e.g. Redis pub/sub). */
  readonly shared: boolean;
  /** Deliver `message` on `channel`: here now, elsewhere as soon as the bus carries it. */
  publish(channel: string, message: BusMessage): void;
  /** Receive every message on `channel`; returns the unsubscribe. */
  subscribe(channel: string, handler: (message: BusMessage) => void): () => void;
  close(): Promise<void>;
}

/** A bus's subscribers, by channel: the bookkeeping every bus shares. */
export class Subscribers extends Map<string, Set<(m: BusMessage) => void>> {
  /** Add `handler` to `channel`; returns its removal. */
  add(channel: string, handler: (message: BusMessage) => void): () => void {
    let handlers = this.get(channel);
    if (!handlers) this.set(channel, (handlers = new Set()));
    handlers.add(handler);
    // The channel goes with its last subscriber: channels are per session, and a request naming an unknown one
    // (restore listens while it reads the store) must not leave one behind.
    return () => {
      handlers!.delete(handler);
      if (!handlers!.size && this.get(channel) === handlers) this.delete(channel);
    };
  }

  /** The handlers of `channel` now (a copy: a handler may unsubscribe while they run). */
  of(channel: string): ((message: BusMessage) => void)[] {
    const handlers = this.get(channel);
    return handlers ? [...handlers] : [];
  }
}

/** The default bus: this process only. */
export class LocalBus implements MessageBus {
  readonly shared = false;
  private readonly channels = new Subscribers();

  publish(channel: string, message: BusMessage): void {
    for (const h of this.channels.of(channel)) h(message);
  }

  subscribe(channel: string, handler: (message: BusMessage) => void): () => void {
    return this.channels.add(channel, handler);
  }

  async close(): Promise<void> {
    this.channels.clear();
  }
}
