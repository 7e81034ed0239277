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

/** The default bus: this process only. */
export class LocalBus implements MessageBus {
  readonly shared = false;
  private readonly channels = new Map<string, Set<(m: BusMessage) => void>>();

  publish(channel: string, message: BusMessage): void {
    const handlers = this.channels.get(channel);
    if (handlers) for (const h of [...handlers]) h(message);
  }

  subscribe(channel: string, handler: (message: BusMessage) => void): () => void {
    let handlers = this.channels.get(channel);
    if (!handlers) this.channels.set(channel, (handlers = new Set()));
    handlers.add(handler);
    // The channel goes with its last subscriber: channels are per session, and a request naming an unknown one
    // (restore listens while it reads the store) must not leave one behind.
    return () => {
      handlers!.delete(handler);
      if (!handlers!.size && this.channels.get(channel) === handlers) this.channels.delete(channel);
    };
  }

  async close(): Promise<void> {
    this.channels.clear();
  }
}
