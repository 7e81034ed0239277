/**
 * Each caller's share of the one event loop (HttpLimits.cpuShareFactor, cpuLagMs): the quotas bound what a caller
 * keeps, this bounds how much of the process's time its requests use. Every POST's synchronous time here (decoding
 * and parsing its body, classification, dispatch up to the handler's first await; wall time, loopNow) is charged to
 * its caller (the quotas' key: principal, else clientKey, else address), decayed with a half-life of 1 s. While the
 * event loop is saturated (a 20 ms timer late by more than cpuLagMs, and for 1 s after), a POST of a caller whose
 * charge is over cpuShareFactor times the average of the other active callers (and over 30 ms) is refused before its
 * body is read: 429, Retry-After: 1, -32600 naming the limit. Equal callers are never refused, nor the only one; a
 * caller that rotates keys (clientKey values, addresses) is many callers here (docs/hosting.md#limits).
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

const HALF_LIFE_MS = 1000;
const TICK_MS = 20;
/** How long the loop counts as saturated after a late tick (so that a throttled caller does not swing it back at once). */
const HOLD_MS = 1000;
/** The timer stops after this long without a charge. */
const IDLE_MS = 2000;
/**
 * Below this decayed charge (ms: about 20 ms a second at a steady rate) a caller is never refused: bursts of light
 * callers (a start, a reconnect) are not what the rule is for.
 */
const FLOOR_MS = 30;
/** Below this decayed charge (ms) a caller is no longer active (and is forgotten). */
const ACTIVE_MS = 0.05;

interface Charge {
  ms: number;
  at: number;
}

export class CpuShare {
  private readonly charges = new Map<string, Charge>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private expected = 0;
  private lastCharge = 0;
  private saturatedUntil = -Infinity;
  private ticks = 0;

  /** `factor` 0: never refuse (nothing is measured). */
  constructor(
    private readonly factor: number,
    private readonly lagMs: number,
  ) {}

  /** The refusal of a POST of `caller` now, or undefined: it may go on. */
  check(caller: string | undefined): ShareRefusal | undefined {
    if (!this.factor || caller === undefined) return undefined;
    const now = performance.now();
    if (now >= this.saturatedUntil) return undefined;
    const mine = this.charges.has(caller) ? decayed(this.charges.get(caller)!, now) : 0;
    if (mine < FLOOR_MS) return undefined;
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
    if (!active || mine <= this.factor * (others / active)) return undefined;
    const share = Math.round((100 * mine) / (mine + others));
    const what = `while the server is saturated this client uses ${share} % of its time, over ${this.factor} times the average of the ${active} other clients`;
    return { limit: "cpuShareFactor", max: this.factor, what, retryAfter: 1 };
  }

  /** `ms` of the event loop's time used for `caller`. */
  charge(caller: string | undefined, ms: number): void {
    if (!this.factor || caller === undefined) return;
    const now = performance.now();
    const c = this.charges.get(caller);
    if (c) {
      c.ms = decayed(c, now) + ms;
      c.at = now;
    } else this.charges.set(caller, { ms, at: now });
    this.lastCharge = now;
    if (!this.timer) this.watch(now);
  }

  /** What is spent later answering `res` (encoding and writing its messages: Exchange.send) is charged to `caller`. */
  billTo(res: object, caller: string | undefined): void {
    if (this.factor && caller !== undefined) payers.set(res, (ms) => this.charge(caller, ms));
  }

  /** Stop the timer (the endpoint closes). */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private forgetIdle(now: number): void {
    forget(this.charges, now);
  }

  /** A timer whose lateness is the event loop's: saturated while it is late by more than lagMs. */
  private watch(now: number): void {
    this.expected = now + TICK_MS;
    const timer = (this.timer = setInterval(() => {
      const t = performance.now();
      if (t - this.expected > this.lagMs) this.saturatedUntil = t + HOLD_MS;
      this.expected = t + TICK_MS;
      if (++this.ticks % 50 === 0) this.forgetIdle(t);
      if (t - this.lastCharge > IDLE_MS) this.close();
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
