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
      // Idle times with margins of 400 ms or more: a loaded machine pauses a test for a few hundred ms.
      await a.put(record, 1200);
      expect(await b.get(record.id)).toEqual(record);
      expect(await b.has(record.id)).toBe(true);
      expect(await b.has(`${record.id}-other`)).toBe(false);
      await sleep(800);
      await b.touch(record.id, 1200);
      await sleep(800); // past the first idle time: alive only because it was touched
      expect(await a.get(record.id)).toEqual(record);
      await sleep(1000);
      expect(await a.get(record.id)).toBeUndefined();
      expect(await a.has(record.id)).toBe(false);
      await a.put(record, 10_000);
      await b.delete(record.id);
      expect(await a.get(record.id)).toBeUndefined();
      expect(await a.has(record.id)).toBe(false);
    });

    it.runIf(available)("changes are applied in the store, each over the others: initialized stays, subscriptions are a set, GET streams a bounded list; a missing session stays missing", async () => {
      const a = store();
      const b = other(a);
      const record = { id: id(), revision: "2025-11-25", clientCapabilities: {}, clientInfo: { name: "c", version: "1" }, initialized: false, subscriptions: [] };
      await a.put(record, 10_000);
      // Two processes, each with its own older view, change the session at once: neither undoes the other.
      await Promise.all([a.update(record.id, { initialized: true }, 10_000), b.update(record.id, { getStream: 2 ** 48 - 1 }, 10_000), b.update(record.id, { subscribe: "test://a" }, 10_000)]);
      await a.update(record.id, { logLevel: "debug" }, 10_000);
      await b.update(record.id, { subscribe: "test://b" }, 10_000);
      await b.update(record.id, { subscribe: "test://a" }, 10_000);
      await a.update(record.id, { unsubscribe: "test://a" }, 10_000);
      const got = await b.get(record.id);
      expect(got).toEqual({ ...record, initialized: true, logLevel: "debug", subscriptions: ["test://b"], getStreams: [2 ** 48 - 1] });
      // GET stream numbers: most recent last, at most 16, a repeated one moved to the end.
      for (let n = 1; n <= 20; n++) await (n % 2 ? a : b).update(record.id, { getStream: n }, 10_000);
      await a.update(record.id, { getStream: 7 }, 10_000);
      expect((await b.get(record.id))!.getStreams).toEqual([5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 7]);
      // An update keeps the session for the idle time it gives.
      await a.update(record.id, { logLevel: "info" }, 200);
      await sleep(300);
      expect(await b.get(record.id)).toBeUndefined();
      // An update never brings back a session that expired or was deleted.
      await a.update(record.id, { initialized: true }, 10_000);
      expect(await b.get(record.id)).toBeUndefined();
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
