/**
 * Legacy Streamable HTTP sessions served by any process of a server (no sticky routing): the session's state is in a
 * shared session store, its resumable streams' events in a shared event log, and what one process must tell another
 * goes over the server's message bus on the session's channel:
 *
 * - `change`: the session changed (initialized, log level, subscriptions, a GET stream): every process's copy applies
 *   the change, as the store did (a change, never a whole copy, so that no process's older view undoes another's);
 * - `response`: a client's answer to a server→client request that another process sent (the handler waits there);
 * - `out`: a message for the session's GET stream, wherever it is open;
 * - `event` / `end`: a resumable stream's events, for a client that resumed it on another process;
 * - `get`: the session's GET stream opened on another process: the one open here (if any) ends;
 * - `follow`: a stream resumed on another process: a connection carrying it here (a resumption, or the stream's own)
 *   ends, so that its events go out on one connection only;
 * - `terminate`: DELETE (or expiry) on one process ends the session everywhere.
 *
 * spec/2025-11-25/basic/transports.mdx#session-management, spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery
 */
import { randomId } from "../../state/request-state.js";
import type { Principal } from "../../protocol/request.js";
import type { BusMessage, MessageBus } from "../../state/bus.js";
import { type EventLog, type LoggedEvent, type SessionChange, type SessionRecord, type SessionStore, applySessionChange } from "../../state/sessions.js";
import type { JsonRpcMessage, JsonRpcResponse } from "../../wire/jsonrpc.js";
import type { Reply } from "./io.js";
import { RemoteStreams } from "./remote-streams.js";
import { LegacyHttpSession, type SessionHost } from "./sessions.js";

type SessionMessage =
  | { t: "change"; change: SessionChange }
  | { t: "response"; message: JsonRpcResponse }
  | { t: "out"; message: JsonRpcMessage }
  | { t: "event"; n: number; seq: number; text: string }
  | { t: "end"; n: number }
  | { t: "get" }
  | { t: "follow"; n: number }
  | { t: "terminate" };

type StoredPrincipal = NonNullable<SessionRecord["principal"]>;

/** What the store keeps of a session's principal: its identity (principalIdentity), never its token or claims. */
function storedPrincipal(p: Principal): StoredPrincipal {
  return { subject: p.subject, ...(p.clientId ? { clientId: p.clientId } : {}), ...(p.claims.sub === p.subject ? { fromSub: true } : {}) };
}

/** The principal a restored session is bound to: claims enough for its identity (whether the subject was `sub`). */
function restoredPrincipal(r: StoredPrincipal): Principal {
  return { subject: r.subject, clientId: r.clientId, scopes: [], claims: r.fromSub ? { sub: r.subject } : {} } as Principal;
}

/** The sessions held here, as SharedSessions sees them: it restores sessions into them and ends those ended elsewhere. */
export interface SessionsHere extends SessionHost {
  readonly sessions: Map<string, LegacyHttpSession>;
}

const warn = (what: string) => (err: unknown) => process.stderr.write(`mcp runtime: shared sessions: ${what}: ${(err as Error)?.message ?? err}\n`);

export class SharedSessions {
  /** This process, as the sender of bus messages (its own come back and are dropped). */
  readonly origin = randomId();
  private readonly joined = new Map<string, () => void>();
  /** Resumed streams this process carries for another process's stream. */
  private readonly remote: RemoteStreams;

  constructor(
    private readonly here: SessionsHere,
    readonly store: SessionStore & EventLog,
    private readonly bus: MessageBus,
    private readonly idleMs: number,
  ) {
    this.remote = new RemoteStreams({
      log: store,
      announceFollow: (id, n) => this.publish(id, { t: "follow", n }),
      untrack: (res) => here.streams.untrack(res),
    });
  }

  private channel(id: string): string {
    return `session:${id}`;
  }

  publish(id: string, message: SessionMessage): void {
    this.bus.publish(this.channel(id), { ...message, o: this.origin } as unknown as BusMessage);
  }

  /** What the store keeps of `s`. */
  private record(s: LegacyHttpSession): SessionRecord | undefined {
    const l = s.connection.session;
    if (!l) return undefined;
    return {
      id: s.id,
      revision: l.revision,
      clientCapabilities: l.clientCapabilities,
      serverCapabilities: l.serverCapabilities,
      ...(l.clientInfo ? { clientInfo: l.clientInfo } : {}),
      initialized: l.initialized,
      ...(l.logLevel ? { logLevel: l.logLevel } : {}),
      subscriptions: [...l.subscriptions],
      ...(s.principal ? { principal: storedPrincipal(s.principal) } : {}),
      ...(s.getStreams.length ? { getStreams: s.getStreams } : {}),
    };
  }

  /** A session was opened here: store it (no other process holds a copy yet). Resolves once stored. */
  create(s: LegacyHttpSession): Promise<void> {
    const record = s.registered ? this.record(s) : undefined;
    if (!record) return Promise.resolve();
    const stored = this.store.put(record, this.idleMs);
    stored.catch(warn(`storing session ${s.id}`));
    return stored;
  }

  /**
   * The session changed here (this process's copy has the change already): the store applies the change, then every
   * process holding a copy hears it. Announced once stored, so a process that hears it and then reads the store
   * (restoring the session) reads it too; announced also when the store failed, so the copies agree meanwhile.
   */
  change(s: LegacyHttpSession, change: SessionChange): Promise<void> {
    if (!s.registered) return Promise.resolve();
    const stored = this.store.update(s.id, change, this.idleMs);
    stored.then(
      () => this.publish(s.id, { t: "change", change }),
      (err) => {
        warn(`storing a change of session ${s.id}`)(err);
        this.publish(s.id, { t: "change", change });
      },
    );
    return stored;
  }

  /**
   * Whether the store still has `s` (one read per request of a shared session): a session another process ended
   * answers 404 here from the moment its DELETE was answered, not once the bus has told this process
   * (spec/2025-11-25/basic/transports.mdx#session-management). A session gone from the store ends here too.
   */
  async confirm(s: LegacyHttpSession): Promise<boolean> {
    if (this.endedIds.has(s.id)) return false;
    if (await this.store.has(s.id)) return true;
    this.ended(s.id);
    if (this.here.sessions.get(s.id) === s) this.here.sessions.delete(s.id);
    s.terminate();
    return false;
  }

  /** The session was used here: keep it alive in the store (at most every quarter of the idle time). */
  touch(s: LegacyHttpSession): void {
    const now = Date.now();
    if (now - s.touched < this.idleMs / 4) return;
    s.touched = now;
    void this.store.touch(s.id, this.idleMs).catch(warn(`touching session ${s.id}`));
  }

  /** Hear the session's channel (a session opened or restored here). */
  join(s: LegacyHttpSession): void {
    if (this.joined.has(s.id)) return;
    this.joined.set(
      s.id,
      this.bus.subscribe(this.channel(s.id), (m) => this.receive(s, m as unknown as SessionMessage & { o?: string })),
    );
  }

  /** Stop hearing it (the session ended here). */
  leave(id: string): void {
    this.joined.get(id)?.();
    this.joined.delete(id);
    this.remote.leave(id);
  }

  /**
   * The session `id` opened on another process, restored here from the store (undefined: unknown, expired or ended;
   * the caller answers 404). Whose it is stays the caller's check (the restored session keeps its principal).
   */
  async restore(id: string): Promise<LegacyHttpSession | undefined> {
    if (this.endedIds.has(id)) return undefined;
    // A change announced while the store is read (e.g. notifications/initialized on another process) may be newer than
    // what the read returns, or the session may end meanwhile, and this process hears the session's channel only once
    // it holds the session: listen now.
    const heard: SessionChange[] = [];
    const off = this.bus.subscribe(this.channel(id), (m) => {
      const message = m as unknown as SessionMessage & { o?: string };
      if (message.o !== this.origin && message.t === "change") heard.push(message.change);
      // Ended meanwhile (DELETE on another process after the read began): never restored.
      if (message.o !== this.origin && message.t === "terminate") this.ended(id);
    });
    let stored: SessionRecord | undefined;
    try {
      stored = await this.store.get(id);
    } finally {
      off();
    }
    // The changes heard meanwhile, applied over the read (those the read already has are applied again: they commute).
    const record = stored && heard.reduce(applySessionChange, stored);
    if (this.endedIds.has(id)) return undefined;
    const existing = this.here.sessions.get(id);
    if (existing) return existing;
    if (!record) return undefined;
    const s = new LegacyHttpSession(this.here, id);
    if (record.principal) s.principal = restoredPrincipal(record.principal);
    const { id: _id, principal: _principal, getStreams, ...state } = record;
    s.connection.restoreSession(state);
    s.addGetStreams(getStreams);
    s.registered = true;
    s.touched = Date.now();
    this.here.sessions.set(id, s);
    this.join(s);
    return s;
  }

  /**
   * DELETE here: the store forgets the session and its events, then every process ends its copy. Resolves once both
   * are done (the DELETE is answered then); rejects when the store could not delete it.
   */
  async terminateEverywhere(s: LegacyHttpSession): Promise<void> {
    this.ended(s.id);
    try {
      // Deleted before the others hear it, so that none restores it from the store in between.
      await this.store.delete(s.id);
    } finally {
      this.publish(s.id, { t: "terminate" });
    }
  }

  /** Ids of sessions that ended here lately: never restored again (a stale read of the store cannot revive them). */
  private readonly endedIds = new Set<string>();
  private ended(id: string): void {
    this.endedIds.add(id);
    if (this.endedIds.size > 10_000) this.endedIds.delete(this.endedIds.values().next().value!);
  }

  /** Keep an event of a resumable stream for other processes, then tell live followers (after it is kept, so a resumption that reads the log first misses nothing). */
  logEvent(s: LegacyHttpSession, n: number, seq: number, text: string): void {
    // A session that ended here is no longer logged (its keys are deleted; a late handler must not bring them back).
    if (this.endedIds.has(s.id)) return;
    this.store.append(s.id, n, { seq, text }, this.idleMs).then(() => this.publish(s.id, { t: "event", n, seq, text }), warn(`logging an event of session ${s.id}`));
  }

  endStream(s: LegacyHttpSession, n: number): void {
    if (this.endedIds.has(s.id)) return;
    this.store.end(s.id, n, this.idleMs).then(() => this.publish(s.id, { t: "end", n }), warn(`ending a stream of session ${s.id}`));
  }

  /** The kept events of stream `n` of `s` after `after` (none when the log does not know it). */
  async replay(s: LegacyHttpSession, n: number, after: number): Promise<LoggedEvent[]> {
    return (await this.store.read(s.id, n, after))?.events ?? [];
  }

  /**
   * Resume, on `res`, stream `n` of `s` that another process wrote: replay its logged events after `after`, then carry
   * its live events until it ends. False when the log does not know the stream, "busy" when this process carries it
   * already on another connection (nothing was written to `res`).
   */
  resumeRemote(s: LegacyHttpSession, n: number, after: number, res: Reply, start: () => void): Promise<boolean | "busy"> {
    return this.remote.resume(s.id, n, after, res, start);
  }

  private receive(s: LegacyHttpSession, m: SessionMessage & { o?: string }): void {
    if (m.o === this.origin) return;
    switch (m.t) {
      case "change":
        if ("getStream" in m.change) s.addGetStreams([m.change.getStream]);
        else s.connection.applySessionChange(m.change);
        return;
      case "response":
        s.connection.settleForeign(m.message);
        return;
      case "out":
        s.writeToGetStream(m.message);
        return;
      case "event":
        this.remote.event(s.id, m.n, { seq: m.seq, text: m.text });
        return;
      case "end":
        this.remote.end(s.id, m.n);
        return;
      case "follow": {
        this.remote.followed(s.id, m.n);
        // This process's own stream: its connection ends, the stream (and its log) stays.
        const own = s.lookup(`${m.n}-0`);
        if (own && own !== "unknown" && own.stream !== s.standalone) own.stream.detach();
        return;
      }
      case "get": {
        // One GET stream per session across the processes too, the newest: else a change notification, which every
        // process hears and writes to its own, would go out on two streams. Its events stay logged for a resumption.
        // spec/2025-11-25/basic/transports.mdx#multiple-connections
        const res = s.stream;
        if (!res || res.writableEnded) return;
        s.stream = undefined;
        this.here.streams.untrack(res);
        res.end();
        return;
      }
      case "terminate":
        this.ended(s.id);
        this.here.sessions.delete(s.id);
        s.terminate();
        // Events this process logged just before the DELETE (written to the client first, kept in Redis after) may
        // have reached the store after its delete: drop them again, ordered after them on this process's connection.
        this.store.drop(s.id).catch(warn(`dropping the events of session ${s.id}`));
        return;
    }
  }
}
