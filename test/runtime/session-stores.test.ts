/**
 * The legacy session store and event log contract (runtime/src/state/sessions.ts), in memory and in the real Redis
 * of this machine: two Redis instances stand for two processes.
 */
import { afterAll, describe, expect, it } from "vitest";
import { MemorySessions, RedisSessions, type EventLog, type SessionStore } from "../../runtime/dist/index.js";
import { REDIS_URL, hasRedis } from "../services.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let n = 0;
const id = () => `s-${process.pid}-${Date.now()}-${++n}`;

const SUBJECTS = [
  { name: "memory", open: () => new MemorySessions(5), peer: undefined as (() => SessionStore & EventLog) | undefined, available: async () => true },
  { name: "redis", open: () => new RedisSessions(REDIS_URL, { maxEventsPerStream: 5 }), peer: () => new RedisSessions(REDIS_URL, { maxEventsPerStream: 5 }), available: hasRedis },
];

for (const subject of SUBJECTS) {
  describe(`sessions: ${subject.name}`, async () => {
    const available = await subject.available();
    const open: (SessionStore & EventLog)[] = [];
    const store = () => {
      const s = subject.open();
      open.push(s);
      return s;
    };
    const other = (s: SessionStore & EventLog) => {
      if (!subject.peer) return s;
      const p = subject.peer();
      open.push(p);
      return p;
    };
    afterAll(async () => {
      await Promise.all(open.map((s) => s.close()));
    });

    it.runIf(available)("a session put by one process is read by another, expires when idle unless touched, and is gone once deleted", async () => {
      const a = store();
      const b = other(a);
      const record = { id: id(), revision: "2025-11-25", clientCapabilities: { elicitation: {} }, initialized: true, subscriptions: ["test://x"], principal: { subject: "alice" } };
      await a.put(record, 300);
      expect(await b.get(record.id)).toEqual(record);
      await sleep(200);
      await b.touch(record.id, 300);
      await sleep(200);
      expect(await a.get(record.id)).toEqual(record);
      await sleep(250);
      expect(await a.get(record.id)).toBeUndefined();
      await a.put(record, 10_000);
      await b.delete(record.id);
      expect(await a.get(record.id)).toBeUndefined();
    });

    it.runIf(available)("the event log replays a stream after an event id, bounded, knows when it ended, and is dropped with its session", async () => {
      const a = store();
      const b = other(a);
      const sid = id();
      for (let seq = 1; seq <= 8; seq++) await a.append(sid, 7, { seq, text: `e${seq}` }, 10_000);
      const later = await b.read(sid, 7, 5);
      expect(later!.events.map((e) => e.text)).toEqual(["e6", "e7", "e8"]);
      expect(later!.ended).toBe(false);
      // Bounded: the oldest went.
      expect((await b.read(sid, 7, 0))!.events.map((e) => e.seq)).toEqual([4, 5, 6, 7, 8]);
      await a.end(sid, 7, 10_000);
      expect((await b.read(sid, 7, 8))!).toEqual({ events: [], ended: true });
      expect(await b.read(sid, 8, 0)).toBeUndefined();
      await a.delete(sid);
      expect(await b.read(sid, 7, 0)).toBeUndefined();
    });
  });
}
