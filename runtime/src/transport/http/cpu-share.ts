/**
 * Each caller's share of the one event loop (HttpLimits.cpuShareFactor, cpuLagMs): the quotas bound what a caller
 * keeps, this bounds how much of the process's time its requests use. Every POST's synchronous time here (decoding
 * and parsing its body, classification, dispatch up to the handler's first await; wall time, loopNow) is charged to
 * its caller (the quotas' key: principal, else clientKey, else address), decayed with a half-life of 1 s. While the
 * event loop is saturated (a 20 ms timer late by more than cpuLagMs, or the loop busy over BUSY_UTILIZATION of the
 * last BUSY_WINDOW_MS; and for 5 s after), a POST of a caller whose
 * charge is over cpuShareFactor times the average of the other active callers (and over 5 ms) waits, its body
 * unread, until the caller is back within that share (or the loop keeps up again): the waiting callers take turns,
 * one POST each per turn, in the order they began to wait, so the others' requests are served first. A caller with
 * 256 POSTs waiting already is refused: 429, Retry-After: 1, -32600 naming the limit. Equal callers never wait, nor the
 * only one; a caller that rotates keys (clientKey values, addresses) is many callers here (docs/hosting.md#limits).
 */
/** A refusal, as quotas.ts's QuotaRefusal (not imported: quotas.ts holds this). */
interface ShareRefusal {
  limit: "cpuShareFactor";
  max: number;
  what: string;
  retryAfter: number;
}

/**
 * The clock charges are read from (ms): wall time on the event loop. Not process.cpuUsage: that is a getrusage system
 * call (about 30 µs on a loaded machine, read four times per request it took 22 % of the soak server's time), and it
 * counts the JIT compiler's and the garbage collector's threads too. The cost: a process the machine leaves
 * unscheduled in the middle of a request charges that request's caller for the wait.
 */
export const loopNow: () => number = () => performance.now();

/**
 * The process's CPU time (ms), where process.cpuUsage works (workerd's Node compatibility layer hung on it), else
 * undefined. A system call (about 30 µs on a loaded machine): read once per tick of the watch and at the end of a
 * window longer than VERIFY_MS, never per request.
 */
/** performance.eventLoopUtilization's shape: `utilization` is the share (0-1) of the time since `since` the loop ran callbacks. */
export interface Utilization {
  idle: number;
  active: number;
  utilization: number;
}
export type LoopUtilization = (since?: Utilization) => Utilization;
/** performance.eventLoopUtilization where the host has it (Node, Bun, Deno), else undefined: the late timer alone. */
const loopUtilization: LoopUtilization | undefined = (() => {
  const perf = globalThis.performance as { eventLoopUtilization?: LoopUtilization } | undefined;
  const elu = perf?.eventLoopUtilization;
  if (typeof elu !== "function") return undefined;
  try {
    elu.call(perf);
  } catch {
    return undefined;
  }
  return (since) => elu.call(perf, since);
})();

const cpuTime: (() => number) | undefined = (() => {
  const usage = globalThis.process?.cpuUsage;
  if (typeof usage !== "function") return undefined;
  try {
    usage.call(globalThis.process);
  } catch {
    return undefined;
  }
  return () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
})();

/** Who pays for what is spent answering a response (Reply): its request's caller (CpuShare.billTo). */
const payers = new WeakMap<object, (ms: number) => void>();

/** `write()`, its CPU time charged to the caller of `res`'s request, if one was named (CpuShare.billTo). */
export function billed(res: object, write: () => void): void {
  const pay = payers.get(res);
  if (!pay) return write();
  const t = loopNow();
  try {
    write();
  } finally {
    pay(loopNow() - t);
  }
}

/** `ms` spent later on `res`'s request (a batch's members: Sink.spent), charged to its caller if one was named. */
export function spentOn(res: object, ms: number): void {
  payers.get(res)?.(ms);
}

const HALF_LIFE_MS = 1000;
const TICK_MS = 20;
/**
 * How long the loop counts as saturated after a late tick: long, so that a caller held back is not let go all at once
 * the moment it stops hurting (it would saturate the loop again, and the others would wait for it once more).
 */
const HOLD_MS = 5000;
/**
 * The event loop's utilization (performance.eventLoopUtilization: the share of the time it ran callbacks) over which a
 * window of BUSY_WINDOW_MS counts as saturated, as a late timer does: a caller sending short requests back to back
 * (batches of 3 ms, never one long block) keeps the loop busy without ever making a timer 10 ms late, and the others
 * then queue behind its requests (the soak: their p99 from 2.2 to 3.5 ms while it took half of the loop).
 */
const BUSY_UTILIZATION = 0.8;
const BUSY_WINDOW_MS = 100;
/** The timer stops after this long without a charge. */
const IDLE_MS = 2000;
/**
 * Below this decayed charge (ms: about 3.5 ms a second at a steady rate, 0.35 % of the loop) a caller never waits:
 * bursts of light callers (a start, a reconnect: a few requests) are not what the rule is for. Low, because what a
 * caller over the others gets comes in blocks (a 512 KiB read is 2-4 ms of loop): at 30 ms (2 % of the loop) 1-2 % of
 * the others' requests landed behind one, and their p99 tripled (the soak, bench/README.md).
 */
const FLOOR_MS = 5;
/**
 * A window longer than this (ms) is charged only what the process's CPU time says it ran (at least this much): on a
 * loaded machine a 0.5 ms request in which the process was left unscheduled for 300 ms took 300 ms of wall time,
 * and its caller then waited seconds for its turn (the soak saw waits of 3.6 s).
 */
export const VERIFY_MS = 10;
/** Below this decayed charge (ms) a caller is no longer active (and is forgotten). */
const ACTIVE_MS = 0.05;
/** How often the waiting callers take a turn (ms). */
const TURN_MS = 5;
/** POSTs of one caller that may wait; one more is refused. */
export const MAX_WAITING = 256;

interface Charge {
  ms: number;
  at: number;
}

/** A POST waiting for its caller's turn: called with true when its turn comes, false when the endpoint closes. */
export type Waiting = (go: boolean) => void;

export class CpuShare {
  private readonly charges = new Map<string, Charge>();
  /** The callers waiting for a turn, in the order they take it, each with its POSTs in order. */
  private readonly waiting = new Map<string, Waiting[]>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private turns: ReturnType<typeof setTimeout> | undefined;
  private expected = 0;
  private lastCharge = 0;
  private saturatedUntil = -Infinity;
  private ticks = 0;
  /** The wall time and the process's CPU time (ms) at the watch's last tick: what a long window is verified against. */
  private tickWall = -Infinity;
  private tickCpu = 0;
  /** The loop's utilization at the start of the current busy window, and when that began. */
  private busyFrom: Utilization | undefined;
  private busyAt = 0;

  /** `factor` 0: nothing waits, nothing is measured. `utilization`: the loop's (tests pass their own). */
  constructor(
    private readonly factor: number,
    private readonly lagMs: number,
    private readonly utilization: LoopUtilization | undefined = loopUtilization,
  ) {}

  /**
   * A POST of `caller`: `go(true)` now, or once its turn comes (the caller is over its share of a saturated loop, or
   * has POSTs waiting already); the refusal instead when MAX_WAITING of its POSTs wait already.
   */
  admit(caller: string | undefined, go: Waiting): ShareRefusal | undefined {
    if (!this.factor || caller === undefined) return void go(true);
    const queue = this.waiting.get(caller);
    if (queue) {
      if (queue.length >= MAX_WAITING) return this.refusal(caller);
      return void queue.push(go);
    }
    if (!this.overShare(caller, performance.now())) return void go(true);
    this.waiting.set(caller, [go]);
    this.scheduleTurns();
  }

  /**
   * Whether `caller` is over its share now: the loop saturated (or a caller still held back: one let go the moment
   * the loop keeps up again would saturate it at once, 8 long requests in one block), its charge over the floor and
   * over factor × the others' average.
   */
  private overShare(caller: string, now: number): boolean {
    if (now >= this.saturatedUntil && !this.waiting.size) return false;
    const c = this.charges.get(caller);
    const mine = c ? decayed(c, now) : 0;
    if (mine < FLOOR_MS) return false;
    const { others, active } = this.othersOf(caller, now);
    return active > 0 && mine > this.factor * (others / active);
  }

  private othersOf(caller: string, now: number): { others: number; active: number } {
    let others = 0;
    let active = 0;
    for (const [key, c] of this.charges) {
      const ms = decayed(c, now);
      if (ms < ACTIVE_MS) this.charges.delete(key);
      else if (key !== caller) {
        others += ms;
        active++;
      }
    }
    return { others, active };
  }

  private refusal(caller: string): ShareRefusal {
    const now = performance.now();
    const mine = decayed(this.charges.get(caller) ?? { ms: 0, at: now }, now);
    const { others, active } = this.othersOf(caller, now);
    const share = Math.round((100 * mine) / (mine + others || 1));
    const what = `while the server is saturated this client uses ${share} % of its time, over ${this.factor} times the average of the ${active} other clients, and has ${MAX_WAITING} requests waiting for their turn`;
    return { limit: "cpuShareFactor", max: this.factor, what, retryAfter: 1 };
  }

  private scheduleTurns(): void {
    if (this.turns) return;
    this.turns = setTimeout(() => this.takeTurns(), TURN_MS);
    (this.turns as { unref?: () => void }).unref?.();
  }

  /** Each waiting caller back within its share starts its next POST, and goes to the back of the line. */
  private takeTurns(): void {
    this.turns = undefined;
    const now = performance.now();
    try {
      for (const caller of [...this.waiting.keys()]) {
        if (this.overShare(caller, now)) continue;
        const queue = this.waiting.get(caller)!;
        const go = queue.shift()!;
        this.waiting.delete(caller);
        if (queue.length) this.waiting.set(caller, queue);
        go(true);
      }
    } finally {
      if (this.waiting.size) this.scheduleTurns();
    }
  }

  /** `ms` of the event loop's time used for `caller`. */
  charge(caller: string | undefined, ms: number): void {
    if (!this.factor || caller === undefined) return;
    const now = performance.now();
    if (ms > VERIFY_MS) ms = this.verified(ms, now);
    const c = this.charges.get(caller);
    if (c) {
      c.ms = decayed(c, now) + ms;
      c.at = now;
    } else this.charges.set(caller, { ms, at: now });
    this.lastCharge = now;
    if (!this.timer) this.watch(now);
  }

  /**
   * A window of `ms` that ended `now` (synchronous: no tick ran in it), charged what the CPU ran since the last tick
   * less the wall time before the window (the most CPU the process can have used then on its one thread), within
   * VERIFY_MS and `ms`. Other threads' CPU (the GC's, the JIT's) can only raise it; no CPU clock: `ms`.
   */
  private verified(ms: number, now: number): number {
    if (!cpuTime || this.tickWall === -Infinity) return ms;
    const ran = cpuTime() - this.tickCpu - Math.max(0, now - ms - this.tickWall);
    return Math.min(ms, Math.max(VERIFY_MS, ran));
  }

  /** What is spent later answering `res` (encoding and writing its messages: Exchange.send) is charged to `caller`. */
  billTo(res: object, caller: string | undefined): void {
    if (this.factor && caller !== undefined) payers.set(res, (ms) => this.charge(caller, ms));
  }

  /** Stop the timers; every POST still waiting is told (go(false)): the endpoint closes. */
  close(): void {
    this.stopWatching();
    clearTimeout(this.turns);
    this.turns = undefined;
    const waiting = [...this.waiting.values()].flat();
    this.waiting.clear();
    for (const go of waiting) go(false);
  }

  private sample(now: number): void {
    if (!cpuTime) return;
    this.tickWall = now;
    this.tickCpu = cpuTime();
  }

  private stopWatching(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Whether a BUSY_WINDOW_MS window ended at `now` with the loop busy over BUSY_UTILIZATION of it (then the next begins). */
  private busy(now: number): boolean {
    const elu = this.utilization;
    if (!elu || !this.busyFrom || now - this.busyAt < BUSY_WINDOW_MS) return false;
    const window = elu(this.busyFrom);
    this.busyFrom = elu();
    this.busyAt = now;
    return window.utilization > BUSY_UTILIZATION;
  }

  /** A timer whose lateness is the event loop's: saturated while it is late by more than lagMs (or busy()). */
  private watch(now: number): void {
    this.expected = now + TICK_MS;
    this.sample(now);
    this.busyFrom = this.utilization?.();
    this.busyAt = now;
    const timer = (this.timer = setInterval(() => {
      const t = performance.now();
      this.sample(t);
      if (t - this.expected > this.lagMs || this.busy(t)) this.saturatedUntil = t + HOLD_MS;
      this.expected = t + TICK_MS;
      if (++this.ticks % 50 === 0) forget(this.charges, t);
      if (t - this.lastCharge > IDLE_MS) this.stopWatching();
    }, TICK_MS));
    (timer as { unref?: () => void }).unref?.();
  }
}

/** (A method of CpuShare, outside for its size.) */
function forget(charges: Map<string, Charge>, now: number): void {
  for (const [key, c] of charges) if (decayed(c, now) < ACTIVE_MS) charges.delete(key);
}

function decayed(c: Charge, now: number): number {
  return c.ms * 2 ** (-(now - c.at) / HALF_LIFE_MS);
}
