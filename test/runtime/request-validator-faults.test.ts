// requestValidatorFor (runtime/src/rules.ts) when a method's validator module is broken: a module without a `validate`
// function (a corrupt or hand-edited out/ file) is refused, not cached as loaded (dispatch would wait on it forever,
// answering nothing), and the next call loads it again. out/loaders.js is replaced here with two faulty modules.
import { describe, expect, it, vi } from "vitest";

const loads = { "tools/call": 0, "tools/list": 0 };
vi.mock("../../out/loaders.js", async (original) => {
  const real = (await original()) as Record<string, Record<string, Record<string, () => Promise<unknown>>>>;
  return {
    ...real,
    requestValidatorLoaders: {
      ...real.requestValidatorLoaders,
      "2026-07-28": {
        "tools/call": async () => (loads["tools/call"]++, { nope: 1 }),
        "tools/list": async () => {
          loads["tools/list"]++;
          throw new Error("the file is missing");
        },
      },
    },
  };
});
const { requestValidatorFor } = await import("../../runtime/src/rules.js");

describe("a method's validator module that is broken", () => {
  it("without a validate function: each call rejects, saying so, and loads it again", async () => {
    await expect(requestValidatorFor("2026-07-28", "tools/call")).rejects.toThrow("the 2026-07-28 tools/call validator module exports no validate function");
    await expect(requestValidatorFor("2026-07-28", "tools/call")).rejects.toThrow("exports no validate function");
    expect(loads["tools/call"]).toBe(2);
  });

  it("a load that fails rejects with its error, and the next call tries again", async () => {
    await expect(requestValidatorFor("2026-07-28", "tools/list")).rejects.toThrow("the file is missing");
    await expect(requestValidatorFor("2026-07-28", "tools/list")).rejects.toThrow("the file is missing");
    expect(loads["tools/list"]).toBe(2);
    // Another revision's modules are untouched.
    expect(typeof (await requestValidatorFor("2025-11-25", "tools/call"))).toBe("function");
  });
});
