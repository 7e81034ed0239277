/**
 * Verified access tokens remembered, so that a client sending the same token on every request pays the signature
 * check (or the introspection round trip) once: the outcome (the principal) keyed by a SHA-256 of the token, never
 * the token itself.
 *
 * An entry lives until the earliest of the token's `exp` (no clock tolerance), `maxAgeMs` after it was verified, and
 * a change of the issuer's key set that drops the key it was signed with (`retainKeys`). Bounded by count and by
 * bytes, least recently used first out. Only successes are kept: a refused token is checked again each time.
 * spec/2025-11-25/basic/authorization.mdx#token-handling (tokens validated as RFC 9068 / RFC 7662 say; a cached
 * outcome is the same validation, bounded in time)
 */
import type { Principal } from "../../protocol/request.js";
import { nodeCrypto } from "../../state/request-state.js";

export interface TokenCacheLimits {
  /** The longest an outcome is kept, in milliseconds (0: no cache). */
  maxAgeMs: number;
  /** Entries kept at most. */
  maxEntries: number;
  /** Bytes kept at most, counted as the principal's claims in JSON plus a fixed cost per entry. */
  maxBytes: number;
}

/** A cached outcome: the principal, kept until `until`; `gone` once the cache dropped it (evicted, rotated out, expired). */
export interface Entry {
  principal: Principal;
  gone?: true;
  /** Epoch ms past which the entry is not used. */
  until: number;
  /** The `kid` of the key that verified the token (JWT), undefined for introspection or a token without one. */
  kid: string | undefined;
  bytes: number;
}

/**
 * A digest key, the hash's hex (64 characters): never the token. Synchronous (node:crypto, about 1 µs for a JWT):
 * WebCrypto's digest is a round trip through the thread pool, which cost a cached request more than the rest of its
 * authentication.
 */
function keyOf(token: string): string {
  const crypto = nodeCrypto();
  // crypto.hash, the one-shot digest (Node 20.12+), makes no Hash object: half the cost of createHash.
  return crypto.hash ? crypto.hash("sha256", token, "hex") : crypto.createHash("sha256").update(token).digest("hex");
}

/** What one entry costs beyond its claims: the key, the Map slot, the frozen objects. */
const ENTRY_OVERHEAD = 256;

export class TokenCache {
  /** Insertion order is use order: a hit moves its entry to the end, eviction takes the first. */
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly limits: TokenCacheLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The cached principal of `token`, or undefined (unknown, expired or evicted). */
  get(token: string): Principal | undefined {
    return this.entry(token)?.principal;
  }

  /** The cached entry of `token` (made the most recently used), or undefined: unknown, expired or evicted. */
  entry(token: string): Entry | undefined {
    if (this.limits.maxAgeMs <= 0 || this.entries.size === 0) return undefined;
    const key = keyOf(token);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= this.now()) {
      this.remove(key, entry);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /** Whether an entry `entry` returned still stands: not dropped since, nor past its time. */
  stands(entry: Entry): boolean {
    return entry.gone === undefined && entry.until > this.now();
  }

  /**
   * Keep `principal` for `token`: until `expSec` (the token's `exp`, epoch seconds; undefined: none) or `maxAgeMs`
   * from now, whichever is first. `kid`: the signing key, for retainKeys.
   */
  set(token: string, principal: Principal, expSec: number | undefined, kid?: string): void {
    const now = this.now();
    const until = Math.min(now + this.limits.maxAgeMs, expSec === undefined ? Infinity : expSec * 1000);
    if (this.limits.maxAgeMs <= 0 || until <= now) return;
    const bytes = ENTRY_OVERHEAD + JSON.stringify(principal.claims ?? {}).length + token.length / 8;
    if (bytes > this.limits.maxBytes) return;
    const key = keyOf(token);
    this.remove(key);
    this.entries.set(key, { principal, until, kid, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) break;
      this.remove(oldest, entry);
    }
  }

  /** The issuer's key set changed: drop every entry whose key is not in `kids` (and those of tokens that named none). */
  retainKeys(kids: ReadonlySet<string>): void {
    for (const [key, entry] of this.entries) if (entry.kid === undefined || !kids.has(entry.kid)) this.remove(key, entry);
  }

  private remove(key: string, entry = this.entries.get(key)): void {
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
    entry.gone = true;
  }
}
