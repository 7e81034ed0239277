/**
 * The event loop shared fairly (runtime/src/transport/http/cpu-share.ts), in-process with fake timers: a caller over
 * its share of a saturated loop waits for its turn (never refused while its line is short), the others go at once,
 * waiting callers take turns, a full line is refused, a closing endpoint tells every waiting POST. The numbers are
 * the documented ones (docs/hosting.md#limits): half-life 1 s, floor 30 ms, saturated for 5 s after a 20 ms timer is
 * late by more than cpuLagMs, 256 POSTs waiting per caller, a turn every 5 ms, a window over 10 ms charged what the
 * process's CPU time says it ran.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { CpuShare, spentOn } from "../../runtime/src/transport/http/cpu-share.js";

/** The fake clock plus `skew`: a jump of skew is the loop held by a long synchronous call (no timer ran meanwhile). */
let skew = 0;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance"] });
  skew = 0;
  const fakeNow = performance.now.bind(performance);
  vi.spyOn(performance, "now").mockImplementation(() => fakeNow() + skew);
  // The process's CPU time runs far ahead of the clock (as many busy threads would), so that a charge is never cut
  // by it, unless a test says otherwise: these tests charge windows without letting their time pass.
  let reads = 0;
  vi.spyOn(process, "cpuUsage").mockImplementation(() => ({ user: ++reads * 1e9, system: 0 }));
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** A share with `factor` whose loop is saturated now: a charge starts its watch, whose 20 ms tick then runs 16 ms late (cpuLagMs 10). */
function saturated(factor = 4): CpuShare {
  const share = new CpuShare(factor, 10);
  // 10 ms: active (over 0.05 ms) for the next 7.6 s.
  share.charge("light", 10);
  vi.advanceTimersByTime(19);
  skew += 16;
  vi.advanceTimersByTime(1);
  return share;
}

it("a caller over its share of a saturated loop waits for its turn; a light caller goes at once", () => {
  const share = saturated();
  share.charge("heavy", 500);
  const order: string[] = [];
  expect(share.admit("heavy", (go) => order.push(`heavy ${go}`))).toBeUndefined();
  expect(share.admit("light", (go) => order.push(`light ${go}`))).toBeUndefined();
  expect(order).toEqual(["light true"]);
  // 500 ms decays under the floor (30 ms) in about 4.1 s (half-life 1 s): heavy's turn comes then, not before.
  vi.advanceTimersByTime(3500);
  expect(order).toEqual(["light true"]);
  vi.advanceTimersByTime(1000);
  expect(order).toEqual(["light true", "heavy true"]);
});

it("waiting callers take turns, one POST each per turn, in the order they began to wait; each caller's POSTs in order", () => {
  const share = saturated();
  // Two heavy callers among ten light ones: each heavy one is over 4 times the others' average ((500 + 100) / 11).
  for (let i = 1; i < 10; i++) share.charge(`light ${i}`, 10);
  share.charge("h1", 500);
  share.charge("h2", 500);
  const order: string[] = [];
  for (const name of ["h1 a", "h2 a", "h1 b", "h2 b", "h1 c"]) share.admit(name.slice(0, 2), () => order.push(name));
  expect(order).toEqual([]);
  // Both are under the floor after about 4.06 s: a turn each, then the next turn (5 ms later), then the next.
  vi.advanceTimersByTime(4000);
  expect(order).toEqual([]);
  while (!order.length) vi.advanceTimersByTime(1);
  expect(order).toEqual(["h1 a", "h2 a"]);
  vi.advanceTimersByTime(5);
  expect(order).toEqual(["h1 a", "h2 a", "h1 b", "h2 b"]);
  vi.advanceTimersByTime(5);
  expect(order).toEqual(["h1 a", "h2 a", "h1 b", "h2 b", "h1 c"]);
});

it("a caller with 256 POSTs waiting is refused (429's shape: cpuShareFactor, Retry-After 1); the waiting ones still get their turn", () => {
  const share = saturated();
  share.charge("heavy", 500);
  let went = 0;
  for (let i = 0; i < 256; i++) expect(share.admit("heavy", () => went++)).toBeUndefined();
  const refused = share.admit("heavy", () => went++);
  expect(refused).toMatchObject({ limit: "cpuShareFactor", max: 4, retryAfter: 1 });
  expect(refused!.what).toMatch(/^while the server is saturated this client uses \d+ % of its time, over 4 times the average of the 1 other clients, and has 256 requests waiting for their turn$/);
  expect(went).toBe(0);
  vi.advanceTimersByTime(4100 + 256 * 5);
  expect(went).toBe(256);
});

it("the endpoint closing tells every waiting POST (go false), and none is started after", () => {
  const share = saturated();
  share.charge("heavy", 500);
  const told: boolean[] = [];
  share.admit("heavy", (go) => told.push(go));
  share.admit("heavy", (go) => told.push(go));
  share.close();
  vi.advanceTimersByTime(10_000);
  expect(told).toEqual([false, false]);
});

it("nobody waits while the loop keeps up, nor the only caller, nor callers of the same weight", () => {
  const calm = new CpuShare(4, 10);
  calm.charge("light", 10);
  calm.charge("heavy", 500);
  const went: string[] = [];
  calm.admit("heavy", () => went.push("heavy, loop keeping up"));
  const alone = saturated();
  alone.charge("light", 490);
  alone.admit("light", () => went.push("the only caller"));
  const equal = saturated();
  equal.charge("light", 490);
  equal.charge("other", 500);
  equal.admit("other", () => went.push("same weight"));
  expect(went).toEqual(["heavy, loop keeping up", "the only caller", "same weight"]);
});

it("cpuShareFactor 0 (the default): nothing waits, however saturated and however heavy", () => {
  const share = saturated(0);
  share.charge("heavy", 100_000);
  let went = 0;
  for (let i = 0; i < 300; i++) expect(share.admit("heavy", () => went++)).toBeUndefined();
  expect(went).toBe(300);
});

it("time spent on a request after its start (a batch's members, Sink.spent) is charged to its caller: then it waits", () => {
  const share = saturated();
  const res = {};
  share.billTo(res, "batches");
  spentOn(res, 500);
  const went: string[] = [];
  share.admit("batches", () => went.push("batches"));
  share.admit("light", () => went.push("light"));
  expect(went).toEqual(["light"]);
});

it("a window the machine stretched (300 ms of wall time, 1 ms of the process's CPU) is charged 10 ms: its caller does not wait", () => {
  let cpuMs = 0;
  vi.spyOn(process, "cpuUsage").mockImplementation(() => ({ user: cpuMs * 1000, system: 0 }));
  const share = saturated();
  // Right after the watch's tick: 300 ms pass with no timer run, of which the process ran 1 ms (descheduled).
  skew += 300;
  cpuMs += 1;
  share.charge("stalled", 300);
  const went: string[] = [];
  share.admit("stalled", () => went.push("stalled"));
  expect(went).toEqual(["stalled"]);
});

it("a window that ran the CPU it took (300 ms of both) is charged in full: its caller waits", () => {
  let cpuMs = 0;
  vi.spyOn(process, "cpuUsage").mockImplementation(() => ({ user: cpuMs * 1000, system: 0 }));
  const share = saturated();
  skew += 300;
  cpuMs += 300;
  share.charge("heavy", 300);
  const went: string[] = [];
  share.admit("heavy", () => went.push("heavy"));
  expect(went).toEqual([]);
});
