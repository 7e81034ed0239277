/**
 * The event loop shared fairly (runtime/src/transport/http/cpu-share.ts), in-process with fake timers: a caller over
 * its share of a saturated loop waits for its turn (never refused while its line is short), the others go at once,
 * waiting callers take turns, a full line is refused, a closing endpoint tells every waiting POST. The numbers are
 * the documented ones (docs/hosting.md#limits): half-life 1 s, floor 5 ms, saturated for 5 s after a 20 ms timer is
 * late by more than cpuLagMs or a 100 ms window of the loop over 80 % busy, and while a caller is held back, 256 POSTs
 * waiting per caller, a turn every 5 ms, a window over 10 ms charged what the process's CPU time says it ran.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { CpuShare, type LoopUtilization, spentOn } from "../../runtime/src/transport/http/cpu-share.js";

/** An event loop `busy` (0-1) of its time, as performance.eventLoopUtilization reports it (cumulative, then deltas). */
function loopAt(busy: () => number): LoopUtilization {
  let active = 0;
  let idle = 0;
  return (since) => {
    // Each call: 10 ms more, `busy()` of it active.
    active += 10 * busy();
    idle += 10 * (1 - busy());
    if (!since) return { active, idle, utilization: active / (active + idle) };
    const a = active - since.active;
    const i = idle - since.idle;
    return { active: a, idle: i, utilization: a / (a + i) };
  };
}
const quiet = loopAt(() => 0.1);

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
function saturated(factor = 4, light = 10): CpuShare {
  const share = new CpuShare(factor, 10, quiet);
  // 10 ms: active (over 0.05 ms) for the next 7.6 s.
  share.charge("light", light);
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
  // 500 ms decays under the floor (5 ms) in log2(100) = 6.64 s (half-life 1 s): heavy's turn comes then, not before
  // (nor when the 5 s of saturation after the late tick have passed: heavy is held back, so the loop still counts so).
  vi.advanceTimersByTime(6600);
  expect(order).toEqual(["light true"]);
  vi.advanceTimersByTime(100);
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
  // Both are under the floor after log2(100) = 6.64 s: a turn each, then the next turn (5 ms later), then the next.
  vi.advanceTimersByTime(6600);
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
  vi.advanceTimersByTime(6700 + 256 * 5);
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
  const calm = new CpuShare(4, 10, quiet);
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

it("a caller held back keeps the loop counted as saturated: it goes at its share, not when the 5 s after the late tick pass", () => {
  const share = saturated();
  // light: active for log2(100 / 0.05) = 11 s; heavy: 50 times light all along, under the floor after log2(1000) = 9.97 s.
  share.charge("light", 90);
  share.charge("heavy", 5000);
  const went: string[] = [];
  share.admit("heavy", () => went.push("heavy"));
  vi.advanceTimersByTime(9900);
  expect(went).toEqual([]);
  vi.advanceTimersByTime(200);
  expect(went).toEqual(["heavy"]);
});

it("under the floor (5 ms) nobody waits, however far over the others; just over it, the heavy caller waits", () => {
  const went: string[] = [];
  for (const [name, ms] of [
    ["under", 4.9],
    ["over", 5.2],
  ] as const) {
    // light: 0.2 ms, so that 4 times the others' average is 0.8 ms: only the floor decides.
    const share = saturated(4, 0.2);
    share.charge(name, ms);
    share.admit(name, (go) => go && went.push(name));
    share.close();
  }
  expect(went).toEqual(["under"]);
});

it("a loop over 80 % busy for 100 ms counts as saturated though no timer is late; at 70 % it does not", () => {
  const admitted = (busy: number) => {
    const share = new CpuShare(
      4,
      10,
      loopAt(() => busy),
    );
    share.charge("light", 10);
    share.charge("heavy", 500);
    // Ticks every 20 ms, none late; the first window of 100 ms ends at the fifth.
    vi.advanceTimersByTime(120);
    let went = false;
    share.admit("heavy", (go) => (went = go));
    share.close();
    return went;
  };
  expect(admitted(0.9)).toBe(false);
  expect(admitted(0.7)).toBe(true);
});
