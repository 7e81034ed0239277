/**
 * The endpoint's legacy Streamable HTTP sessions (2025-03-26 to 2025-11-25): those held here by id, the replay budget
 * their resumable streams share, and the shared session store that lets any process serve them, when configured.
 * spec/2025-11-25/basic/transports.mdx#session-management
 */
import type { ProtocolCore } from "../../protocol/core.js";
import type { MessageLimits } from "../../protocol/limits.js";
import { hasSessions, transports } from "../../rules.js";
import type { Reply } from "./io.js";
import type { HandlerOptions } from "./options.js";
import { type LegacyHttpSession, ReplayBudget, type SessionHost } from "./sessions.js";
import { SharedSessions } from "./shared-sessions.js";
import type { StreamRegistry } from "./streams.js";

export class LegacySessions implements SessionHost {
  /** The sessions this process holds, by Mcp-Session-Id. */
  readonly sessions = new Map<string, LegacyHttpSession>();
  readonly replay: ReplayBudget;
  /** Sessions shared with the server's other processes (a shared session store is configured). */
  readonly shared?: SharedSessions;

  constructor(
    readonly core: ProtocolCore,
    readonly streams: StreamRegistry,
    options: HandlerOptions,
    readonly limits: Required<MessageLimits>,
  ) {
    this.replay = new ReplayBudget(options.replayBufferBytes ?? 64 * 1024 * 1024);
    const store = core.eras.legacy.length > 0 ? core.sharedSessions() : undefined;
    if (store) this.shared = new SharedSessions(this, store, core.bus, options.sessionIdleMs ?? 30 * 60_000);
  }

  /** Keep `session` if its handshake succeeded: its id goes out on `res`. */
  register(session: LegacyHttpSession, res: Reply): void {
    if (session.connection.session === undefined) {
      // The handshake failed: no session.
      session.connection.close();
      return;
    }
    // Sessions exist where the negotiated revision defines them (rules: hasSessions). A revision that predates Streamable
    // HTTP (2024-11-05, rules: transports) defines none, but a client that negotiated it here still needs its state
    // kept, so it gets one too. spec/2025-03-26/basic/transports.mdx#session-management
    const revision = session.connection.session.revision;
    if (!hasSessions(revision) && transports(revision).includes("streamable-http")) {
      session.connection.close();
      return;
    }
    session.registered = true;
    this.sessions.set(session.id, session);
    res.setHeader("mcp-session-id", session.id);
    // Shared sessions: stored before the client can learn the id, so that its next request may land on any process.
    if (this.shared) {
      this.shared.join(session);
      session.stored = this.shared.create(session);
    }
  }

  /** End `session` here and forget it. */
  discard(session: LegacyHttpSession): void {
    this.sessions.delete(session.id);
    session.terminate();
  }

  /** End the sessions idle for `idleMs` (no request in flight, no GET stream). */
  sweep(idleMs: number): void {
    const now = Date.now();
    for (const [id, s] of this.sessions) {
      if (s.active === 0 && !s.stream && now - s.lastSeen > idleMs) {
        this.sessions.delete(id);
        s.terminate();
      }
    }
  }

  /** End every session. */
  close(): void {
    for (const s of this.sessions.values()) s.terminate();
    this.sessions.clear();
  }
}
