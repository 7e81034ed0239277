/**
 * What error messages say, over real processes: "did you mean" for unknown tool, prompt and resource names (only names
 * the caller may see), with bounded work on long names; and, before 2025-06-18, that the revision has no elicitation.
 * Expectations are written by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closest, editDistance } from "../../runtime/dist/runtime/src/server/suggest.js";
import { LEGACY, MODERN, type Peer, httpPeer, stdioPeer } from "./failures-helpers.js";

describe("edit distance (case-insensitive, an adjacent transposition is one edit, at most 2)", () => {
  it("counts by hand", () => {
    expect(editDistance("wether", "weather")).toBe(1);
    expect(editDistance("waether", "weather")).toBe(1);
    expect(editDistance("Weather", "weather")).toBe(0);
    expect(editDistance("acb", "abc")).toBe(1);
    expect(editDistance("wthr", "weather")).toBeUndefined();
    expect(editDistance("kitten", "sitting")).toBeUndefined();
    expect(editDistance("sitten", "sitting")).toBe(2);
    expect(editDistance("abcdef", "abcdxy")).toBe(2);
    expect(editDistance("abcdef", "abxyzf")).toBeUndefined();
  });

  it("suggests the closest, the first of equals, and nothing for short or far names", () => {
    expect(closest("forecats", ["weather", "forecast"])).toBe("forecast");
    expect(closest("ad", ["add", "ab"])).toBeUndefined();
    expect(closest("AD", ["ad"])).toBe("ad");
    expect(closest("wether", ["weathr", "weather"])).toBe("weather");
    expect(closest("wether", ["wither", "weather"])).toBe("wither");
    expect(closest("zzz", ["weather"])).toBeUndefined();
  });

  it("compares nothing longer than 512 characters: a 1 MB name is answered without a suggestion", () => {
    const huge = "w".repeat(1 << 20);
    expect(closest(huge, [huge.slice(1), "weather"])).toBeUndefined();
    expect(editDistance("a".repeat(513), "a".repeat(514))).toBeUndefined();
    const long = "a".repeat(512);
    expect(closest(long.slice(1) + "b", [long])).toBe(long);
  });
});

for (const [where, open] of [
  [`stdio ${LEGACY}`, () => stdioPeer(LEGACY, {})],
  [`HTTP ${MODERN}`, () => httpPeer(MODERN, {})],
] as const) {
  describe(`did you mean, ${where}`, () => {
    let peer: Peer;
    beforeAll(async () => {
      peer = await open();
    });
    afterAll(() => peer?.stop());

    it("an unknown tool names a close one, with the revision's code (-32602)", async () => {
      expect((await peer.call("tools/call", { name: "wether", arguments: {} })).response.error).toEqual({ code: -32602, message: 'Unknown tool: wether; did you mean "weather"?' });
      expect((await peer.call("tools/call", { name: "WEATHER", arguments: {} })).response.error).toEqual({ code: -32602, message: 'Unknown tool: WEATHER; did you mean "weather"?' });
      expect((await peer.call("tools/call", { name: "zzz", arguments: {} })).response.error).toEqual({ code: -32602, message: "Unknown tool: zzz" });
    });

    it("an unknown prompt, and in completion/complete", async () => {
      expect((await peer.call("prompts/get", { name: "prompt_throw" })).response.error).toEqual({ code: -32602, message: 'Unknown prompt: prompt_throw; did you mean "prompt_throws"?' });
      const completion = await peer.call("completion/complete", { ref: { type: "ref/prompt", name: "Prompt_Throws" }, argument: { name: "topic", value: "" } });
      expect(completion.response.error).toEqual({ code: -32602, message: 'Unknown prompt: Prompt_Throws; did you mean "prompt_throws"?' });
    });

    it("an unknown resource URI, with the revision's not-found code", async () => {
      // -32002 up to 2025-11-25, -32602 in 2026-07-28: spec/2025-11-25/server/resources.mdx#error-handling, spec/2026-07-28/server/resources.mdx#error-handling
      const code = where.includes(MODERN) ? -32602 : -32002;
      expect((await peer.call("resources/read", { uri: "res://throw" })).response.error).toEqual({
        code,
        message: 'Resource not found: res://throw; did you mean "res://throws"?',
        data: { uri: "res://throw" },
      });
    });
  });
}

describe("did you mean names only what the principal may see (HTTP with authorization)", () => {
  let alice: Peer;
  let bob: Peer;
  beforeAll(async () => {
    [alice, bob] = await Promise.all([httpPeer(LEGACY, { FIXTURE_AUTH: "1" }, "alice-token"), httpPeer(LEGACY, { FIXTURE_AUTH: "1" }, "bob-token")]);
  });
  afterAll(() => Promise.all([alice?.stop(), bob?.stop()]));

  it("a tool behind a scope the caller lacks is never suggested; one who holds it is told", async () => {
    expect((await alice.call("tools/call", { name: "forecst", arguments: {} })).response.error).toEqual({ code: -32602, message: "Unknown tool: forecst" });
    expect((await bob.call("tools/call", { name: "forecst", arguments: {} })).response.error).toEqual({ code: -32602, message: 'Unknown tool: forecst; did you mean "forecast"?' });
  });

  it("nor a resource behind a scope the caller lacks", async () => {
    expect((await alice.call("resources/read", { uri: "res://privat" })).response.error).toEqual({ code: -32002, message: "Resource not found: res://privat", data: { uri: "res://privat" } });
  });
});

describe("before 2025-06-18 there is no elicitation", () => {
  const ask = { name: "asks", arguments: {} };
  for (const revision of ["2024-11-05", "2025-03-26"]) {
    it(`${revision}: the ask fails saying the negotiated revision has none, though the client declared elicitation`, async () => {
      const peer = await stdioPeer(revision, {}, { elicitation: {} });
      const { response } = await peer.call("tools/call", ask);
      await peer.stop();
      expect(response.result).toEqual({ content: [{ type: "text", text: `the negotiated revision ${revision} has no elicitation (it defines no elicitation/create request)` }], isError: true });
    });
  }

  it("2025-06-18: a client that did not declare it is told so", async () => {
    const peer = await stdioPeer("2025-06-18", {});
    const { response } = await peer.call("tools/call", ask);
    await peer.stop();
    expect(response.result).toEqual({ content: [{ type: "text", text: "the client did not declare the elicitation capability" }], isError: true });
  });
});
