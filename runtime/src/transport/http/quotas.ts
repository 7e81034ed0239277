/**
 * The endpoint's quotas per caller (HttpLimits): legacy sessions and open SSE streams, counted per principal (with
 * authorization) or per client (HandlerOptions.clientKey; default the socket's address), so that one caller at its
 * limit leaves the others unaffected. The process-wide cap (maxSessions) stays as it is.
 */
import { definedOnly, messageLimits } from "../../protocol/limits.js";
import type { Principal } from "../../protocol/request.js";
import type { Incoming } from "./io.js";
import type { HandlerOptions, HttpLimits } from "./options.js";
import { CpuShare } from "./cpu-share.js";

/** The defaults of the quotas per caller (docs/hosting.md#limits). */
export const CALLER_LIMITS = { sessionsPerCaller: 1000, streamsPerCaller: 1000, streamsPerSession: 100, streamBufferBytes: 4 * 1024 * 1024, cpuShareFactor: 0, cpuLagMs: 10 } as const;

/** HttpLimits with every default applied. */
export function httpLimits(limits: HttpLimits | undefined): Required<HttpLimits> {
  return { ...CALLER_LIMITS, ...messageLimits(limits), ...definedOnly(limits) };
}

/** Gives back what a take() counted (at most once). */
export type Release = () => void;

/** Counts per key, each bounded. */
class Counts {
  private readonly n = new Map<string, number>();

  /** One more for `key`, unless it has `max` already: then undefined. */
  take(key: string, max: number): Release | undefined {
    const had = this.n.get(key) ?? 0;
    if (had >= max) return undefined;
    this.n.set(key, had + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.n.get(key) ?? 1) - 1;
      if (left > 0) this.n.set(key, left);
      else this.n.delete(key);
    };
  }
}

/** A refused quota: its name and number, and when to try again (seconds). */
export interface QuotaRefusal {
  limit: keyof HttpLimits | "maxSessions";
  max: number;
  what: string;
  retryAfter: number;
}

/**
 * A client's address as its quota key: IPv4 (also IPv4-mapped IPv6) whole, IPv6 by its /64 prefix (one host usually
 * has a whole /64).
 */
export function addressKey(address: string): string {
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (v4) return v4[1];
  if (!address.includes(":")) return address;
  const [head, tail = ""] = address.toLowerCase().split("%")[0].split("::");
  const left = head ? head.split(":") : [];
  const right = address.includes("::") ? (tail ? tail.split(":") : []) : [];
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

export class CallerQuotas {
  readonly limits: Required<HttpLimits>;
  private readonly sessions = new Counts();
  private readonly streams = new Counts();
  private readonly sessionStreams = new Counts();
  /** Each caller's share of the event loop (cpu-share.ts). */
  readonly cpu: CpuShare;

  constructor(options: HandlerOptions) {
    this.limits = httpLimits(options.limits);
    this.clientKey = options.clientKey;
    this.cpu = new CpuShare(this.limits.cpuShareFactor, this.limits.cpuLagMs);
  }

  private readonly clientKey: HandlerOptions["clientKey"];

  /** Who sent `req`: its principal, else its client (clientKey, or the socket's address); undefined: unknown. */
  callerOf(req: Incoming, principal: Principal | undefined): string | undefined {
    // The subject and the client, as sessions and tasks are bound (samePrincipal).
    if (principal) return `principal ${principal.subject}\u0000${principal.clientId ?? ""}`;
    if (this.clientKey) {
      const key = this.clientKey({ headers: req.headers, remoteAddress: req.remoteAddress });
      return key === undefined ? undefined : `client ${key}`;
    }
    return req.remoteAddress === undefined ? undefined : `address ${addressKey(req.remoteAddress)}`;
  }

  /** A legacy session for `caller`: counted until released, or refused. */
  session(caller: string | undefined): Release | QuotaRefusal {
    const max = this.limits.sessionsPerCaller;
    if (caller === undefined) return noop;
    return this.sessions.take(caller, max) ?? { limit: "sessionsPerCaller", max, what: `this client holds ${max} sessions already; end one (DELETE) or wait for one to expire`, retryAfter: 60 };
  }

  /** An SSE stream (or a POST that may become one) of `caller`, in legacy session `sessionId` if any: counted until released, or refused. */
  stream(caller: string | undefined, sessionId?: string): Release | QuotaRefusal {
    const { streamsPerCaller, streamsPerSession } = this.limits;
    const inSession = sessionId === undefined ? noop : this.sessionStreams.take(sessionId, streamsPerSession);
    if (!inSession) return { limit: "streamsPerSession", max: streamsPerSession, what: `this session has ${streamsPerSession} streams open already`, retryAfter: 1 };
    const ofCaller = caller === undefined ? noop : this.streams.take(caller, streamsPerCaller);
    if (!ofCaller) {
      inSession();
      return { limit: "streamsPerCaller", max: streamsPerCaller, what: `this client has ${streamsPerCaller} streams open already`, retryAfter: 1 };
    }
    return () => {
      inSession();
      ofCaller();
    };
  }
}

const noop: Release = () => {};
