/**
 * Legacy sessions shared by several processes: what a session keeps between requests (the session store) and the
 * events of its resumable SSE streams (the event log), so that any process can answer a POST, resume a GET with
 * Last-Event-ID, or end the session, whichever process opened it. Used only when configured (a shared store, e.g.
 * Redis): a single process keeps its sessions in memory, as the transport always has.
 * spec/2025-11-25/basic/transports.mdx#session-management, spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery
 */

/** What a legacy session keeps between requests. */
export interface SessionRecord {
  id: string;
  /** The negotiated revision. */
  revision: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
  /** notifications/initialized received. */
  initialized: boolean;
  logLevel?: string;
  /** resources/subscribe URIs. */
  subscriptions: string[];
  /** The principal that opened it (authorization): another principal's requests are refused. */
  principal?: { subject: string; clientId?: string };
  /**
   * The numbers of the session's GET streams (resumable revisions), most recent last, whichever process opened them:
   * a GET with Last-Event-ID naming one is a resumption of the GET stream, served as the GET stream wherever it lands.
   */
  getStreams?: number[];
}

/** What a process needs to go on serving a session another one opened (the record, less what the transport keeps). */
export type SessionState = Omit<SessionRecord, "id" | "principal" | "getStreams">;

export interface SessionStore {
  readonly shared: boolean;
  get(id: string): Promise<SessionRecord | undefined>;
  /** Store (or replace) a session, to be forgotten after `idleMs` without a touch. */
  put(record: SessionRecord, idleMs: number): Promise<void>;
  /** The session was used: keep it `idleMs` longer. */
  touch(id: string, idleMs: number): Promise<void>;
  delete(id: string): Promise<void>;
  close(): Promise<void>;
}

/** One SSE event of a resumable stream, as written (its `id:` line is `<stream>-<seq>`). */
export interface LoggedEvent {
  seq: number;
  text: string;
}

export interface EventLog {
  /** Keep an event of stream `stream` of session `sessionId` (bounded: the oldest go first). */
  append(sessionId: string, stream: number, event: LoggedEvent, idleMs: number): Promise<void>;
  /** The stream has ended: nothing more will be appended. */
  end(sessionId: string, stream: number, idleMs: number): Promise<void>;
  /** The kept events of a stream after `after`, and whether it has ended; undefined when the stream is unknown. */
  read(sessionId: string, stream: number, after: number): Promise<{ events: LoggedEvent[]; ended: boolean } | undefined>;
  /** Forget every stream of a session. */
  drop(sessionId: string): Promise<void>;
  close(): Promise<void>;
}

/** In-memory session store and event log: one process's (for tests and development). */
export class MemorySessions implements SessionStore, EventLog {
  readonly shared = false;
  private readonly sessions = new Map<string, { record: SessionRecord; until: number }>();
  private readonly logs = new Map<string, { events: LoggedEvent[]; ended: boolean }>();

  constructor(readonly maxEventsPerStream = 100) {}

  async get(id: string): Promise<SessionRecord | undefined> {
    const s = this.sessions.get(id);
    if (!s) return undefined;
    if (s.until < Date.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return structuredClone(s.record);
  }
  async put(record: SessionRecord, idleMs: number): Promise<void> {
    this.sessions.set(record.id, { record: structuredClone(record), until: Date.now() + idleMs });
  }
  async touch(id: string, idleMs: number): Promise<void> {
    const s = this.sessions.get(id);
    if (s) s.until = Date.now() + idleMs;
  }
  async delete(id: string): Promise<void> {
    this.sessions.delete(id);
    await this.drop(id);
  }
  async append(sessionId: string, stream: number, event: LoggedEvent): Promise<void> {
    const key = `${sessionId}/${stream}`;
    let log = this.logs.get(key);
    if (!log) this.logs.set(key, (log = { events: [], ended: false }));
    log.events.push(event);
    if (log.events.length > this.maxEventsPerStream) log.events.shift();
  }
  async end(sessionId: string, stream: number): Promise<void> {
    const log = this.logs.get(`${sessionId}/${stream}`);
    if (log) log.ended = true;
    else this.logs.set(`${sessionId}/${stream}`, { events: [], ended: true });
  }
  async read(sessionId: string, stream: number, after: number): Promise<{ events: LoggedEvent[]; ended: boolean } | undefined> {
    const log = this.logs.get(`${sessionId}/${stream}`);
    return log && { events: log.events.filter((e) => e.seq > after), ended: log.ended };
  }
  async drop(sessionId: string): Promise<void> {
    for (const key of [...this.logs.keys()]) if (key.startsWith(`${sessionId}/`)) this.logs.delete(key);
  }
  async close(): Promise<void> {
    this.sessions.clear();
    this.logs.clear();
  }
}
