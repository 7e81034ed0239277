/**
 * MRTR `requestState` (spec/2026-07-28/basic/patterns/mrtr.mdx): state the client carries between the rounds of a
 * multi round-trip request, sealed by the server (HMAC-SHA256) so that it cannot be forged, and opened on the retry.
 * Also the runtime's unguessable ids. Pure: no protocol, no server; protocol/ and server/ both use it.
 */
import { createRequire } from "node:module";

/**
 * node:crypto, loaded on first use: it costs ~10 ms of start-up, and most servers never seal a requestState.
 * `process.getBuiltinModule` (Node >= 20.16, Bun, Deno, workerd with nodejs_compat) loads it synchronously without a
 * `require`, which workerd cannot make (it has no `import.meta.url`); older Node 20 falls back to createRequire.
 * Web Crypto would need no Node API, but its HMAC is asynchronous and sealing happens inside synchronous dispatch.
 */
let cryptoModule: typeof import("node:crypto") | undefined;
export const nodeCrypto = () => (cryptoModule ??= (globalThis.process?.getBuiltinModule?.("node:crypto") ?? createRequire(import.meta.url)("node:crypto")) as typeof import("node:crypto"));

/** 128 random bits, base64url: an unguessable id (task ids). spec/2025-11-25/basic/utilities/tasks.mdx#task-isolation-and-access-control */
export function randomId(): string {
  return nodeCrypto().randomBytes(16).toString("base64url");
}

/** What identifies a principal: its subject, where the subject came from, and the client acting for it. */
export interface PrincipalLike {
  readonly subject: string;
  readonly clientId?: string;
  readonly claims: Readonly<Record<string, unknown>>;
}

/**
 * The identity state is bound to (a legacy session, a requestState), as a task's owner is
 * (spec/2025-11-25/basic/utilities/tasks.mdx#task-isolation-and-access-control): the subject, whether it is the
 * token's `sub` or (a client-credentials token without one) its client id, and the client. So the same user through
 * another client is another principal, and client `svc` is never the user whose `sub` is `svc`.
 */
export function principalIdentity(p: PrincipalLike | undefined): string | undefined {
  if (!p) return undefined;
  return JSON.stringify([p.claims.sub === p.subject ? "sub" : "client", p.subject, p.clientId ?? ""]);
}

export interface RequestStatePayload {
  /** Originating method. */
  m: string;
  /** Digest of the salient parameters (everything but _meta, inputResponses, requestState). */
  d: string;
  /** Expiry, ms since the epoch. */
  e: number;
  /** Answers gathered in earlier rounds, by input key. */
  a: Record<string, unknown>;
  /** Keys asked in the round that produced this state. */
  q: string[];
  /** The principal's identity (principalIdentity; HTTP with authorization): a state replayed under another principal's token is refused. */
  s?: string;
}

/**
 * The shortest requestState secret accepted, in bytes: the state's integrity MUST be protected
 * (spec/2026-07-28/basic/patterns/mrtr.mdx#server-requirements-basic-workflow), and an HMAC-SHA256 key shorter than
 * the hash weakens that protection (RFC 2104 section 3).
 */
export const MIN_SECRET_BYTES = 32;

/**
 * The keys of a secret: one string, a comma-separated list of them (as MCP_REQUEST_STATE_SECRET holds it), or an
 * array (each element one secret, commas and all). Throws TypeError naming the position (never the value) of an
 * empty or shorter than MIN_SECRET_BYTES one.
 */
export function secretKeys(secret: string | Buffer | readonly (string | Buffer)[]): Buffer[] {
  const list = typeof secret === "string" ? secret.split(",").map((s) => s.trim()) : Buffer.isBuffer(secret) ? [secret] : [...secret];
  if (list.length === 0) throw new TypeError("the requestState secret list is empty");
  return list.map((s, i) => {
    const key = Buffer.from(s);
    if (key.length < MIN_SECRET_BYTES) {
      const which = list.length > 1 ? `secret ${i + 1} of ${list.length}` : "the secret";
      throw new TypeError(`${which} is ${key.length} bytes; each must be at least ${MIN_SECRET_BYTES} (e.g. openssl rand -base64 32)`);
    }
    return key;
  });
}

export class RequestStateCodec {
  /** keys[0] seals; any of them opens, so a rotation lists the new secret first and drops the old once its states expired. */
  private readonly keys: Buffer[];

  /**
   * `secret`: shared by every process that may receive a retry; a list (comma-separated, or an array) for rotation,
   * see secretKeys (throws TypeError on one under 32 bytes). Default a random per-process key (retries elsewhere then fail safely).
   */
  constructor(secret?: string | Buffer | readonly (string | Buffer)[]) {
    this.keys = secret === undefined || secret === "" ? [nodeCrypto().randomBytes(32)] : secretKeys(secret);
  }

  seal(payload: RequestStatePayload): string {
    const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
    return `${body}.${this.mac(body)}`;
  }

  /** The payload, or undefined when the state is malformed, tampered with, or expired. */
  open(state: string, now = Date.now()): RequestStatePayload | undefined {
    if (typeof state !== "string") return undefined;
    const dot = state.indexOf(".");
    if (dot <= 0) return undefined;
    const body = state.slice(0, dot);
    const mac = Buffer.from(state.slice(dot + 1));
    const sealedHere = this.keys.some((key) => {
      const expected = Buffer.from(this.mac(body, key));
      return mac.length === expected.length && nodeCrypto().timingSafeEqual(mac, expected);
    });
    if (!sealedHere) return undefined;
    try {
      const payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as RequestStatePayload;
      if (typeof payload.e !== "number" || payload.e < now) return undefined;
      return payload;
    } catch {
      return undefined;
    }
  }

  private mac(body: string, key = this.keys[0]): string {
    return nodeCrypto().createHmac("sha256", key).update(body).digest("base64url");
  }
}
