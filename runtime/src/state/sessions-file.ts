/**
 * A legacy session store in a JSON file, for one process at a time that restarts: `npm run dev` restarts the server
 * after each rebuild, and with this store (env `MCP_SESSION_STORE=file:<path>`) a connected client goes on with its
 * `Mcp-Session-Id` instead of getting 404 and having to initialize again. The records (revision, capabilities,
 * initialized, log level, subscriptions, principal identity) are written to the file on every change; the events of
 * resumable streams stay in memory (a stream open at the restart ended with the process). Not for several processes:
 * the last writer wins. spec/2025-11-25/basic/transports.mdx#session-management
 */
import { createRequire } from "node:module";
import { type EventLog, type LoggedEvent, MemorySessions, type SessionChange, type SessionRecord, type SessionStore, applySessionChange } from "./sessions.js";

type Fs = typeof import("node:fs");

/** What the file holds: each session's record and when it expires (ms since the epoch). */
type Saved = Record<string, { record: SessionRecord; until: number }>;

export class FileSessions implements SessionStore, EventLog {
  readonly shared = false;
  private readonly fs: Fs;
  private readonly sessions = new Map<string, { record: SessionRecord; until: number }>();
  private readonly logs = new MemorySessions();

  /**
   * `path`: the JSON file, read now if it exists (expired sessions dropped; an unreadable file is started afresh,
   * with one warning line), written on every change. Throws TypeError when its folder cannot be written.
   */
  constructor(readonly path: string) {
    this.fs = createRequire(import.meta.url)("node:fs") as Fs;
    let saved: Saved = {};
    try {
      if (this.fs.existsSync(path)) saved = JSON.parse(this.fs.readFileSync(path, "utf8")) as Saved;
    } catch (err) {
      process.stderr.write(`mcp runtime: ${path}: not a session file (${(err as Error).message}); starting with no sessions\n`);
    }
    const now = Date.now();
    for (const [id, s] of Object.entries(saved)) if (s && s.until >= now && s.record?.id === id) this.sessions.set(id, s);
    this.save();
  }

  /** How many unexpired sessions the file holds (what a restart keeps). */
  get size(): number {
    return this.sessions.size;
  }

  /** Write the records: to a temporary file renamed over the old one, so that a reader never sees half a file. */
  private save(): void {
    const tmp = `${this.path}.${process.pid}.tmp`;
    try {
      this.fs.writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.sessions)));
      this.fs.renameSync(tmp, this.path);
    } catch (err) {
      throw new TypeError(`MCP_SESSION_STORE=file:${this.path}: cannot write the session file: ${(err as Error).message}`, { cause: err });
    }
  }

  private live(id: string): { record: SessionRecord; until: number } | undefined {
    const s = this.sessions.get(id);
    if (s && s.until < Date.now()) {
      this.sessions.delete(id);
      this.save();
      return undefined;
    }
    return s;
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const s = this.live(id);
    return s && structuredClone(s.record);
  }
  async has(id: string): Promise<boolean> {
    return this.live(id) !== undefined;
  }
  async put(record: SessionRecord, idleMs: number): Promise<void> {
    this.sessions.set(record.id, { record: structuredClone(record), until: Date.now() + idleMs });
    this.save();
  }
  async update(id: string, change: SessionChange, idleMs: number): Promise<void> {
    const s = this.live(id);
    if (!s) return;
    this.sessions.set(id, { record: applySessionChange(s.record, change), until: Date.now() + idleMs });
    this.save();
  }
  async touch(id: string, idleMs: number): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) return;
    s.until = Date.now() + idleMs;
    this.save();
  }
  async delete(id: string): Promise<void> {
    if (this.sessions.delete(id)) this.save();
    await this.logs.drop(id);
  }
  append(sessionId: string, stream: number, event: LoggedEvent): Promise<void> {
    return this.logs.append(sessionId, stream, event);
  }
  end(sessionId: string, stream: number): Promise<void> {
    return this.logs.end(sessionId, stream);
  }
  read(sessionId: string, stream: number, after: number): Promise<{ events: LoggedEvent[]; ended: boolean } | undefined> {
    return this.logs.read(sessionId, stream, after);
  }
  drop(sessionId: string): Promise<void> {
    return this.logs.drop(sessionId);
  }
  /** Nothing is deleted: the file is what the next process starts from. */
  async close(): Promise<void> {
    await this.logs.close();
  }
}
