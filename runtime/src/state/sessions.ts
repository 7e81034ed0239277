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
  /** The capabilities the server declared in its initialize result (absent in records stored by an older runtime). */
  serverCapabilities?: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
  /** notifications/initialized received. */
  initialized: boolean;
  logLevel?: string;
  /** resources/subscribe URIs. */
  subscriptions: string[];
  /** The principal that opened it (authorization): another principal's requests are refused. */
  principal?: { subject: string; clientId?: string; /** Whether the subject is the token's `sub` (else its client id). */ fromSub?: boolean };
  /**
   * The numbers of the session's GET streams (resumable revisions), most recent last, whichever process opened them:
   * a GET with Last-Event-ID naming one is a resumption of the GET stream, served as the GET stream wherever it lands.
   */
  getStreams?: number[];
}

/** What a process needs to go on serving a session another one opened (the record, less what the transport keeps). */
export type SessionState = Omit<SessionRecord, "id" | "principal" | "getStreams">;

/**
 * One change of a session, as the process that saw it stores and announces it. Changes, not whole records: a process
 * whose copy has not yet heard another's change (notifications/initialized on B while A opens the GET stream) must not
 * write its older view over it. Each change commutes with the others but an opposite one for the same URI:
 * `initialized` only ever becomes true, subscriptions are a set, GET stream numbers a bounded list.
 */
export type SessionChange = { initialized: true } | { logLevel: string } | { subscribe: string } | { unsubscribe: string } | { getStream: number };

/** How many GET stream numbers a session keeps (most recent last). */
export const MAX_GET_STREAMS = 16;

/** `record` with `change` applied (a new record; `record` is not modified). */
export function applySessionChange(record: SessionRecord, change: SessionChange): SessionRecord {
  const next = { ...record, subscriptions: [...record.subscriptions] };
  if ("initialized" in change) next.initialized = true;
  else if ("logLevel" in change) next.logLevel = change.logLevel;
  else if ("subscribe" in change) {
    if (!next.subscriptions.includes(change.subscribe)) next.subscriptions.push(change.subscribe);
  } else if ("unsubscribe" in change) next.subscriptions = next.subscriptions.filter((uri) => uri !== change.unsubscribe);
  else if ("getStream" in change) next.getStreams = [...(record.getStreams ?? []).filter((n) => n !== change.getStream), change.getStream].slice(-MAX_GET_STREAMS);
  return next;
}

export interface SessionStore {
  readonly shared: boolean;
  get(id: string): Promise<SessionRecord | undefined>;
  /** Whether the store has the session (expired and deleted ones it has not): the per-request check, cheaper than get. */
  has(id: string): Promise<boolean>;
  /** Store a new session (replacing any of its id), to be forgotten after `idleMs` without a touch. */
  put(record: SessionRecord, idleMs: number): Promise<void>;
  /**
   * Apply one change to a stored session, atomically with respect to every other change (applySessionChange), and
   * keep it `idleMs` longer. A session the store does not have (expired, deleted) stays absent.
   */
  update(id: string, change: SessionChange, idleMs: number): Promise<void>;
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
  async has(id: string): Promise<boolean> {
    return (await this.get(id)) !== undefined;
  }
  async update(id: string, change: SessionChange, idleMs: number): Promise<void> {
    const s = this.sessions.get(id);
    if (!s || s.until < Date.now()) return;
    this.sessions.set(id, { record: applySessionChange(s.record, change), until: Date.now() + idleMs });
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
