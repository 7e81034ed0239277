/**
 * MCP_REQUEST_STATE_SECRET as a list (key rotation): the first secret seals a requestState, any of them opens one, so
 * a retry sealed by one process is accepted by another that shares a key; each secret at least 32 bytes, else the
 * server does not start. Real fixture processes over HTTP, 2026-07-28 requests. spec/2026-07-28/basic/patterns/mrtr.mdx#security-considerations
 */
import { afterAll, describe, expect, it, vi } from "vitest";
import { createServer } from "../../runtime/dist/index.js";
import { REDIS_URL, hasRedis } from "../services.js";
import { type Fixture, MODERN, jsonPost, modernMeta, modernRequest, raw, startFixture } from "./http-helpers.js";

const A = "a".repeat(32);
const B = "b".repeat(40);
const C = "c".repeat(32);
const TOOL = "test_input_required_result_elicitation";

describe("requestState secrets: a list, the first seals, any opens", async () => {
  const redis = await hasRedis();
  const started: Fixture[] = [];
  afterAll(() => Promise.all(started.map((f) => f.stop())));
  const fixtures = new Map<string, Promise<Fixture>>();
  const withSecret = (secret: string) => {
    if (!fixtures.has(secret))
      fixtures.set(
        secret,
        startFixture({ MCP_REQUEST_STATE_SECRET: secret }).then((f) => (started.push(f), f)),
      );
    return fixtures.get(secret)!;
  };
  const call = async (f: Fixture, id: number, params: Record<string, unknown>) => {
    const meta = modernMeta(MODERN, { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } });
    const { body, headers } = modernRequest(id, "tools/call", { name: TOOL, arguments: {}, ...params }, meta);
    const res = await raw(f.url, { method: "POST", headers: { ...jsonPost(), ...headers }, body });
    return res.messages.at(-1) ?? { status: res.status, text: res.text };
  };
  /** A requestState sealed by the process with `sealer`, retried with an answer on the process with `opener`. */
  const retry = async (sealer: string, opener: string) => {
    const first = await call(await withSecret(sealer), 1, {});
    expect(first.result?.resultType, JSON.stringify(first)).toBe("input_required");
    return call(await withSecret(opener), 2, { requestState: first.result.requestState, inputResponses: { user_name: { action: "accept", content: { name: "Ada" } } } });
  };
  const accepted = { result: { content: [{ type: "text", text: "Hello, Ada" }] } };
  const refused = { error: { code: -32602 } };

  it("sealed with the first of 'a,b': accepted by 'b,a' and by 'a', refused by 'b' and by an unrelated 'c'", async () => {
    expect(await retry(`${A},${B}`, `${B},${A}`)).toMatchObject(accepted);
    expect(await retry(`${A},${B}`, A)).toMatchObject(accepted);
    expect(await retry(`${A},${B}`, B)).toMatchObject(refused);
    expect(await retry(`${A},${B}`, C)).toMatchObject(refused);
  });

  it("a rotation's steps: 'b,a' seals with b, which 'a,b' and then 'b' alone accept; spaces around commas do not count", async () => {
    expect(await retry(`${B},${A}`, `${A}, ${B}`)).toMatchObject(accepted);
    expect(await retry(`${B},${A}`, B)).toMatchObject(accepted);
    expect(await retry(`${B},${A}`, A)).toMatchObject(refused);
  });

  it("a secret under 32 bytes (alone, or anywhere in the list) stops the start, naming its position, never its value", async () => {
    for (const [secret, message] of [
      ["short", "MCP_REQUEST_STATE_SECRET: the secret is 5 bytes; each must be at least 32"],
      [`${A},${"x".repeat(31)}`, "MCP_REQUEST_STATE_SECRET: secret 2 of 2 is 31 bytes; each must be at least 32"],
      [`${A},`, "MCP_REQUEST_STATE_SECRET: secret 2 of 2 is 0 bytes; each must be at least 32"],
    ]) {
      const failed = await startFixture({ MCP_REQUEST_STATE_SECRET: secret }).then(
        (f) => (started.push(f), "started"),
        (err: Error) => err.message,
      );
      expect(failed).toContain(message);
      for (const part of secret.split(",").filter(Boolean)) expect(failed).not.toContain(part);
    }
  });

  it("in code: an array (commas inside an element are part of that secret), checked by createServer", () => {
    expect(() => createServer({ name: "s", version: "1", requestStateSecret: [A, "too,short"] })).toThrow("createServer: requestStateSecret: secret 2 of 2 is 9 bytes; each must be at least 32");
    expect(() => createServer({ name: "s", version: "1", requestStateSecret: [] })).toThrow("createServer: requestStateSecret: the requestState secret list is empty");
    expect(() => createServer({ name: "s", version: "1", requestStateSecret: [`${A},${B}`] })).not.toThrow();
    expect(() => createServer({ name: "s", version: "1", requestStateSecret: "" })).not.toThrow(); // unset: a random key
  });

  it("in code: an array's first secret seals and any opens, as the list in the environment", () => {
    const sealer = createServer({ name: "s", version: "1", requestStateSecret: [A, B] }).requestStateCodec;
    const payload = { m: "tools/call", d: "x", e: Date.now() + 60_000, a: {}, q: ["k"] };
    const state = sealer.seal(payload);
    expect(createServer({ name: "s", version: "1", requestStateSecret: [C, A] }).requestStateCodec.open(state)).toEqual(payload);
    expect(createServer({ name: "s", version: "1", requestStateSecret: A }).requestStateCodec.open(state)).toEqual(payload);
    expect(createServer({ name: "s", version: "1", requestStateSecret: [B] }).requestStateCodec.open(state)).toBeUndefined();
    expect(createServer({ name: "s", version: "1" }).requestStateCodec.open(state)).toBeUndefined();
  });

  it.runIf(redis)("a real process with MCP_REDIS_URL and no MCP_REQUEST_STATE_SECRET says so on stderr at start; with the secret, it does not", async () => {
    const env = { MCP_REDIS_URL: REDIS_URL, MCP_REDIS_PREFIX: `mcp-test-secret-${process.pid}:` };
    const without = await startFixture(env);
    const withSecret = await startFixture({ ...env, MCP_REQUEST_STATE_SECRET: A });
    started.push(without, withSecret);
    expect(without.stderr()).toMatch(/^mcp runtime: warning: .*MCP_REQUEST_STATE_SECRET is not set/m);
    expect(withSecret.stderr()).not.toContain("MCP_REQUEST_STATE_SECRET");
  });

  it("shared stores without a shared secret: one warning at start, naming MCP_REQUEST_STATE_SECRET (modern revisions served only)", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const bus = { shared: true, publish() {}, subscribe: () => () => {}, close: async () => {} };
      const warned = (options: Record<string, unknown>) => {
        warn.mockClear();
        createServer({ name: "s", version: "1", ...options });
        return warn.mock.calls.map((c) => String(c[0]));
      };
      const said = warned({ bus });
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(/^mcp runtime: warning: .*MCP_REQUEST_STATE_SECRET is not set.*refused \(-32602\); give every process the same secret/);
      expect(warned({ bus, requestStateSecret: A })).toEqual([]);
      // No modern revision: no requestState at all.
      expect(warned({ bus, revisions: ["2025-11-25"] })).toEqual([]);
      // One process, nothing shared: its random key is enough.
      expect(warned({})).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });
});
