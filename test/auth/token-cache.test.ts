// Verified tokens cached (authorization.tokenCache): a token's next request costs no signature check or introspection,
// and the cache never outlives what the token and the issuer say: its `exp`, the key that signed it, the
// introspection max age. The issuer here is a small real one on 127.0.0.1 whose keys and active tokens the test
// changes (oidc-provider cannot rotate its keys while running): metadata, JWKS and RFC 7662 introspection, each
// counted. spec/2025-11-25/basic/authorization.mdx#token-handling
import { Agent, createServer as createHttpServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createServer, type AuthorizationOptions, type HttpHandle } from "../../runtime/dist/index.js";
import { TokenCache } from "../../runtime/src/transport/http/token-cache.js";
import { modernMeta, modernRequest, raw } from "../runtime/http-helpers.js";

interface Issuer {
  url: string;
  /** Requests per path (`/jwks`, `/introspect`). */
  hits: Map<string, number>;
  /** Publish only these keys from now on. */
  publish(...kids: string[]): void;
  sign(kid: string, claims: Record<string, unknown>): Promise<string>;
  /** Opaque tokens and what introspection says of them (delete one to revoke it). */
  opaque: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

async function startIssuer(): Promise<Issuer> {
  const keys = new Map<string, { privateKey: CryptoKey; jwk: JWK }>();
  for (const kid of ["k1", "k2"]) {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    keys.set(kid, { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" } });
  }
  let published = ["k1"];
  const hits = new Map<string, number>();
  const opaque = new Map<string, Record<string, unknown>>();
  const http: Server = createHttpServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const json = (doc: unknown) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(doc));
    if (path === "/.well-known/oauth-authorization-server") return json({ issuer: url, jwks_uri: `${url}/jwks`, introspection_endpoint: `${url}/introspect` });
    if (path === "/jwks") return json({ keys: published.map((k) => keys.get(k)!.jwk) });
    if (path === "/introspect") {
      let body = "";
      req.on("data", (c) => (body += c)).on("end", () => json(opaque.get(new URLSearchParams(body).get("token") ?? "") ?? { active: false }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url,
    hits,
    opaque,
    publish: (...kids) => void (published = kids),
    sign: (kid, claims) => new SignJWT(claims).setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid }).setIssuer(url).setIssuedAt().sign(keys.get(kid)!.privateKey),
    close: () => new Promise((r) => http.close(() => r())),
  };
}

let issuer: Issuer;
const handles: HttpHandle[] = [];

async function serve(authorization: Omit<AuthorizationOptions, "issuer">): Promise<string> {
  const server = createServer({ name: "token-cache", version: "1.0.0" });
  // The subject, and whether the principal carries the request's token (Principal.token).
  server.tool({ name: "whoami", inputSchema: { type: "object" }, handler: (_a, ctx) => ({ content: [{ type: "text", text: `${ctx.principal?.subject} ${ctx.principal?.token?.slice(-8)}` }] }) });
  const handle = await server.serveHttp({ port: 0, quiet: true, authorization: { issuer: issuer.url, ...authorization } });
  handles.push(handle);
  return handle.url;
}

/** A 2026-07-28 `tools/call whoami` with `token`: the HTTP status and the tool's text. */
async function whoami(url: string, token: string): Promise<{ status: number; text?: string }> {
  const { body, headers } = modernRequest(1, "tools/call", { name: "whoami", arguments: {} }, modernMeta());
  const res = await raw(url, { headers: { ...headers, authorization: `Bearer ${token}` }, body });
  return { status: res.status, text: res.json?.result?.content?.[0]?.text };
}

/**
 * One keep-alive connection (a client sending its token on every request of it, which the server remembers per
 * connection): `status(token)` over it, and `sockets()`, how many connections it has opened so far.
 */
function connection(url: string): { status: (token: string) => Promise<number>; sockets: () => number; close: () => void } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let opened = 0;
  const u = new URL(url);
  const { body, headers } = modernRequest(1, "tools/call", { name: "whoami", arguments: {} }, modernMeta());
  const text = JSON.stringify(body);
  return {
    status: (token) =>
      new Promise((resolve, reject) => {
        const req = httpRequest(
          { host: u.hostname, port: u.port, path: u.pathname, method: "POST", agent, headers: { ...headers, authorization: `Bearer ${token}`, "content-length": Buffer.byteLength(text) } },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("socket", () => {
          if (!req.reusedSocket) opened++;
        });
        req.on("error", reject);
        req.end(text);
      }),
    sockets: () => opened,
    close: () => agent.destroy(),
  };
}

/** The HTTP status of a 2026-07-28 `tools/call whoami` with `token`. */
async function status(url: string, token: string): Promise<number> {
  return (await whoami(url, token)).status;
}

const now = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  issuer = await startIssuer();
});
afterAll(async () => {
  await Promise.all(handles.map((h) => h.close()));
  await issuer?.close();
});

describe("authorization.tokenCache", () => {
  it("a JWT verified once is not verified again: the second request is answered from the cache, the first after a miss fetches the keys once", async () => {
    const url = await serve({ resource: undefined });
    const token = await issuer.sign("k1", { sub: "alice", aud: url, exp: now() + 300 });
    const before = issuer.hits.get("/jwks") ?? 0;
    // jose checks signatures with Web Crypto: one check for three requests.
    const verify = vi.spyOn(crypto.subtle, "verify");
    try {
      expect([await status(url, token), await status(url, token), await status(url, token)]).toEqual([200, 200, 200]);
      expect(verify).toHaveBeenCalledTimes(1);
    } finally {
      verify.mockRestore();
    }
    expect((issuer.hits.get("/jwks") ?? 0) - before).toBe(1);
    // Another token for another server: not in the cache, verified, refused for its audience.
    const foreign = await issuer.sign("k1", { sub: "alice", aud: "http://127.0.0.1:1/other", exp: now() + 300 });
    expect(await status(url, foreign)).toBe(401);
  });

  it("a token answered from the cache is held to requiredScopes each time, and its principal carries that token", async () => {
    const url = await serve({ requiredScopes: ["mcp:tools"] });
    const narrow = await issuer.sign("k1", { sub: "carol", aud: url, scope: "mcp:read", exp: now() + 300 });
    expect([await status(url, narrow), await status(url, narrow)]).toEqual([403, 403]);
    const wide = await issuer.sign("k1", { sub: "dave", aud: url, scope: "mcp:read mcp:tools", exp: now() + 300 });
    const other = await issuer.sign("k1", { sub: "erin", aud: url, scope: "mcp:tools", exp: now() + 300 });
    const seen = [await whoami(url, wide), await whoami(url, other), await whoami(url, wide), await whoami(url, other)];
    expect(seen).toEqual([
      { status: 200, text: `dave ${wide.slice(-8)}` },
      { status: 200, text: `erin ${other.slice(-8)}` },
      { status: 200, text: `dave ${wide.slice(-8)}` },
      { status: 200, text: `erin ${other.slice(-8)}` },
    ]);
  });

  it("a cached token expires at its exp: refused after it, with no clock tolerance to stretch the cache", async () => {
    const url = await serve({ clockToleranceSec: 0 });
    const exp = now() + 2;
    const token = await issuer.sign("k1", { sub: "alice", aud: url, exp });
    expect(await status(url, token)).toBe(200);
    while (Date.now() < exp * 1000 + 50) await sleep(100);
    expect(await status(url, token)).toBe(401);
  });

  it("a key rotated out: once the issuer's new key set is fetched (a token signed by the new key), a token signed by the old key is refused", async () => {
    const url = await serve({});
    issuer.publish("k1");
    const old = await issuer.sign("k1", { sub: "alice", aud: url, exp: now() + 300 });
    expect(await status(url, old)).toBe(200);
    expect(await status(url, old)).toBe(200);
    issuer.publish("k2");
    // jose fetches the keys again for an unknown kid only 30 s after the last fetch (its cooldown): move the clock
    // past it (Date only; timers and sockets stay real), inside the cache's 60 s.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 31_000);
      const fresh = await issuer.sign("k2", { sub: "bob", aud: url, exp: now() + 300 });
      expect(await status(url, fresh)).toBe(200);
      expect(await status(url, old)).toBe(401);
    } finally {
      vi.useRealTimers();
      issuer.publish("k1");
    }
  });

  it("on one keep-alive connection, as on new ones: a token past its exp, signed by a key rotated out, or revoked past introspectionMaxAgeSec is refused", async () => {
    const url = await serve({ clockToleranceSec: 0 });
    const c = connection(url);
    try {
      const exp = now() + 2;
      const short = await issuer.sign("k1", { sub: "alice", aud: url, exp });
      expect([await c.status(short), await c.status(short)]).toEqual([200, 200]);
      while (Date.now() < exp * 1000 + 50) await sleep(100);
      expect(await c.status(short)).toBe(401);

      issuer.publish("k1");
      const old = await issuer.sign("k1", { sub: "alice", aud: url, exp: now() + 300 });
      expect([await c.status(old), await c.status(old)]).toEqual([200, 200]);
      issuer.publish("k2");
      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        vi.setSystemTime(Date.now() + 31_000);
        // Another client's token signed by the new key makes the server fetch the new key set.
        expect(await status(url, await issuer.sign("k2", { sub: "bob", aud: url, exp: now() + 300 }))).toBe(200);
        expect(await c.status(old)).toBe(401);
      } finally {
        vi.useRealTimers();
        issuer.publish("k1");
      }
      expect(c.sockets()).toBe(1);
    } finally {
      c.close();
    }

    const introspected = await serve({ introspection: { clientId: "rs", clientSecret: "rs-secret" }, tokenCache: { introspectionMaxAgeSec: 1 } });
    const d = connection(introspected);
    try {
      issuer.opaque.set("opaque-carol", { active: true, sub: "carol", aud: introspected, iss: issuer.url, exp: now() + 300 });
      expect(await d.status("opaque-carol")).toBe(200);
      issuer.opaque.delete("opaque-carol");
      expect(await d.status("opaque-carol")).toBe(200);
      await sleep(1100);
      expect(await d.status("opaque-carol")).toBe(401);
      expect(d.sockets()).toBe(1);
    } finally {
      d.close();
    }
  });

  it("introspection answers are kept introspectionMaxAgeSec: a revoked token is accepted until then, and refused after", async () => {
    const url = await serve({ introspection: { clientId: "rs", clientSecret: "rs-secret" }, tokenCache: { introspectionMaxAgeSec: 1 } });
    issuer.opaque.set("opaque-alice", { active: true, sub: "alice", aud: url, iss: issuer.url, exp: now() + 300 });
    const before = issuer.hits.get("/introspect") ?? 0;
    expect(await status(url, "opaque-alice")).toBe(200);
    issuer.opaque.delete("opaque-alice");
    expect(await status(url, "opaque-alice")).toBe(200);
    expect((issuer.hits.get("/introspect") ?? 0) - before).toBe(1);
    await sleep(1100);
    expect(await status(url, "opaque-alice")).toBe(401);
  });

  it("tokenCache: false verifies every request (each one introspected)", async () => {
    const url = await serve({ introspection: { clientId: "rs", clientSecret: "rs-secret" }, tokenCache: false });
    issuer.opaque.set("opaque-bob", { active: true, sub: "bob", aud: url, iss: issuer.url, exp: now() + 300 });
    const before = issuer.hits.get("/introspect") ?? 0;
    expect([await status(url, "opaque-bob"), await status(url, "opaque-bob")]).toEqual([200, 200]);
    expect((issuer.hits.get("/introspect") ?? 0) - before).toBe(2);
    issuer.opaque.delete("opaque-bob");
    expect(await status(url, "opaque-bob")).toBe(401);
  });
});

describe("TokenCache bounds (in process, a clock of its own)", () => {
  const principal = (subject: string, extra = "") => Object.freeze({ subject, scopes: [], claims: { sub: subject, extra } });

  it("keeps at most maxEntries, least recently used out", () => {
    const cache = new TokenCache({ maxAgeMs: 60_000, maxEntries: 2, maxBytes: 1 << 20 });
    cache.set("a", principal("a"), undefined);
    cache.set("b", principal("b"), undefined);
    expect(cache.get("a")?.subject).toBe("a"); // a is now the most recently used
    cache.set("c", principal("c"), undefined);
    expect([cache.get("a")?.subject, cache.get("b"), cache.get("c")?.subject]).toEqual(["a", undefined, "c"]);
  });

  it("keeps at most maxBytes (a principal's claims counted), and never one entry larger than all of it", () => {
    const cache = new TokenCache({ maxAgeMs: 60_000, maxEntries: 100, maxBytes: 2_000 });
    cache.set("huge", principal("huge", "x".repeat(5_000)), undefined);
    expect(cache.size).toBe(0);
    for (const t of ["t1", "t2", "t3", "t4", "t5"]) cache.set(t, principal(t, "y".repeat(400)), undefined);
    // About 700 bytes each: two fit in 2,000, the newest two.
    expect(cache.size).toBe(2);
    expect([cache.get("t3"), cache.get("t4")?.subject, cache.get("t5")?.subject]).toEqual([undefined, "t4", "t5"]);
  });

  it("an entry lasts until the earlier of exp and maxAgeMs; an already expired token is not kept", () => {
    let now = 1_000_000;
    const cache = new TokenCache({ maxAgeMs: 60_000, maxEntries: 10, maxBytes: 1 << 20 }, () => now);
    cache.set("soon", principal("soon"), (now + 5_000) / 1000);
    cache.set("late", principal("late"), (now + 600_000) / 1000);
    cache.set("gone", principal("gone"), (now - 1) / 1000);
    expect(cache.size).toBe(2);
    now += 5_000;
    expect([cache.get("soon"), cache.get("late")?.subject]).toEqual([undefined, "late"]);
    now += 55_000;
    expect(cache.get("late")).toBeUndefined();
  });
});
