/**
 * Shared sessions: resumable streams another process writes, carried here for a client that resumed them on this
 * process (GET with Last-Event-ID): the event log replayed, then the stream's live events from the bus until it ends.
 * One connection per stream across the processes, the newest. spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery,
 * spec/2025-11-25/basic/transports.mdx#multiple-connections
 */
import type { EventLog, LoggedEvent } from "../../state/sessions.js";
import type { Reply } from "./io.js";

/** A resumed stream carried here for another process's stream: events up to `seq` written; live ones wait while the log is replayed. */
interface Follower {
  res: Reply;
  seq: number;
  replaying: boolean;
  buffered: LoggedEvent[];
  /** The stream's end arrived while the log was read: it ends once the replay and the buffered events are written. */
  ended?: boolean;
}

/** What RemoteStreams needs of the shared sessions: the event log, a `follow` announcement, the stream registry's untrack. */
export interface RemoteStreamsHost {
  readonly log: EventLog;
  announceFollow(sessionId: string, n: number): void;
  untrack(res: Reply): void;
}

export class RemoteStreams {
  /** Session → stream number → the connection carrying it here. */
  private readonly followers = new Map<string, Map<number, Follower>>();

  constructor(private readonly host: RemoteStreamsHost) {}

  /**
   * Resume, on `res`, stream `n` of session `id` that another process wrote: replay its logged events after `after`,
   * then carry its live events until it ends (`start` opens `res` first). False when the log does not know the stream,
   * "busy" when this process carries it already on another connection (nothing was written to `res`).
   */
  async resume(id: string, n: number, after: number, res: Reply, start: () => void): Promise<boolean | "busy"> {
    // Follow first, then read: an event kept after the read arrives live; one kept before is in the read.
    let byStream = this.followers.get(id);
    if (!byStream) this.followers.set(id, (byStream = new Map()));
    // One connection per stream, as for a stream of this process (409): a second follower would replace the first,
    // which would then never hear the stream's end and stay open for ever.
    const current = byStream.get(n);
    if (current && !current.res.destroyed && !current.res.writableEnded) return "busy";
    const follower: Follower = { res, seq: after, replaying: true, buffered: [] };
    byStream.set(n, follower);
    // A connection carrying the stream on another process (the writer's, or another resumption) ends.
    this.host.announceFollow(id, n);
    const log = await this.host.log.read(id, n, after).catch((err: unknown) => {
      byStream.delete(n);
      throw err;
    });
    if (!log) {
      byStream.delete(n);
      return false;
    }
    start();
    res.once("close", () => {
      if (byStream.get(n) === follower) byStream.delete(n);
    });
    for (const e of log.events) this.write(follower, e);
    follower.replaying = false;
    for (const e of follower.buffered.splice(0)) this.write(follower, e);
    if (log.ended || follower.ended) this.endConnection(follower.res);
    return true;
  }

  /** A live event of stream `n` of session `id` (the bus's `event`). */
  event(id: string, n: number, e: LoggedEvent): void {
    const f = this.followers.get(id)?.get(n);
    if (!f) return;
    if (f.replaying) f.buffered.push(e);
    else this.write(f, e);
  }

  /** Stream `n` of session `id` has ended (the bus's `end`). */
  end(id: string, n: number): void {
    const f = this.followers.get(id)?.get(n);
    if (!f) return;
    // Still reading the log: its events (and those buffered meanwhile, the response among them) go out first.
    if (f.replaying) {
      f.ended = true;
      return;
    }
    this.followers.get(id)!.delete(n);
    this.endConnection(f.res);
  }

  /** Stream `n` of session `id` was resumed on another process (the bus's `follow`): its connection here ends. */
  followed(id: string, n: number): void {
    const f = this.followers.get(id)?.get(n);
    if (!f) return;
    this.followers.get(id)!.delete(n);
    this.endConnection(f.res);
  }

  /** Session `id` ended here: every stream carried for it ends. */
  leave(id: string): void {
    for (const f of this.followers.get(id)?.values() ?? []) this.endConnection(f.res);
    this.followers.delete(id);
  }

  private write(f: Follower, e: LoggedEvent): void {
    if (e.seq <= f.seq || f.res.destroyed) return;
    f.seq = e.seq;
    f.res.write(e.text);
  }

  private endConnection(res: Reply): void {
    if (res.writableEnded) return;
    this.host.untrack(res);
    res.end();
  }
}
