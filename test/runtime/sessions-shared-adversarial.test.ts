/**
 * Legacy sessions served by several processes over one Redis (session store, event log, bus), as a client that does
 * odd things, or a Redis that misbehaves, would find them. spec/2025-11-25/basic/transports.mdx#session-management,
 * spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery, spec/2025-11-25/basic/transports.mdx#multiple-connections
 */
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { REDIS_URL, hasRedis } from "../services.js";
import { type Fixture, jsonPost, raw, sessionHeaders, startFixture } from "./http-helpers.js";

const LEGACY = "2025-11-25";
const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

describe("legacy sessions across processes, adversarially (Redis)", async () => {
  const available = await hasRedis();
  const prefix = `adv-${process.pid}-${Date.now()}:`;
  const fixtures: Fixture[] = [];
  afterAll(async () => {
    await Promise.all(fixtures.map((f) => f.stop()));
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });
  let a: Fixture;
  let b: Fixture;
  const both = async () => {
    if (!a) {
      const env = { MCP_REDIS_URL: REDIS_URL, MCP_REDIS_PREFIX: prefix };
      [a, b] = await Promise.all([startFixture(env), startFixture(env)]);
      fixtures.push(a, b);
    }
    return { ua: a.url, ub: b.url };
  };
  it.runIf(available)("a session kept in the older layout (one JSON string at session:<id>) is still served, and DELETE ends it, on either process", async () => {
    const { ua, ub } = await both();
    const sid = "oldLayoutSession0000000000000000";
    const redis = new Redis(REDIS_URL);
    try {
      const record = { id: sid, revision: LEGACY, clientCapabilities: {}, clientInfo: { name: "old", version: "1" }, initialized: true, subscriptions: ["test://watched-resource"] };
      await redis.set(`${prefix}session:${sid}`, JSON.stringify(record), "PX", 60_000);
      const h = jsonPost(sessionHeaders(sid, LEGACY));
      const r = await raw(ub, { headers: h, body: call(2, "whoami") });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.messages[0].result.content[0].text)).toMatchObject({ client: "old", revision: LEGACY });
      // A change of it is stored (not a WRONGTYPE error), and the other process restores it with the change.
      expect((await raw(ub, { headers: h, body: { jsonrpc: "2.0", id: 3, method: "logging/setLevel", params: { level: "error" } } })).status).toBe(200);
      expect((await raw(ua, { headers: h, body: call(4, "echo", { text: "on A" }) })).status).toBe(200);
      expect((await raw(ua, { method: "DELETE", headers: sessionHeaders(sid, LEGACY) })).status).toBe(200);
      expect((await raw(ub, { headers: h, body: call(5, "echo", { text: "gone" }) })).status).toBe(404);
    } finally {
      redis.disconnect();
    }
  });
});
