/**
 * describeErrors (runtime/src/rules.ts) on anyOf failures of the generated validators: the message names the
 * alternative that nearly matched, not the first alternative's first error.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeErrors, type Validator } from "../../runtime/src/rules.js";
import { OUT } from "../helpers.js";

const v = (await import(join(OUT, "2026-07-28", "validators.js"))) as Record<string, Validator>;
const legacy = (await import(join(OUT, "2025-06-18", "validators.js"))) as Record<string, Validator>;

function describeFailure(validate: Validator, data: unknown): { first: string; described: string } {
  expect(validate(data)).toBe(false);
  const e = validate.errors![0];
  return { first: `${e.instancePath} ${e.message}`, described: describeErrors(validate) };
}
const tool = (block: unknown) => ({ resultType: "complete", content: [block] });

describe("describeErrors on anyOf failures", () => {
  it("names the deepest error: an image block whose data is not a string", () => {
    const r = describeFailure(v.validateCallToolResult, tool({ type: "image", data: 5, mimeType: "image/png" }));
    expect(r.first).toBe("/content/0 must have required property 'text'"); // the TextContent alternative: not what was meant
    expect(r.described).toBe("/content/0/data must be string (in the nearest alternative of /content/0)");
  });

  it("names the error under the discriminator of the alternative meant: an image block with a wrong annotation", () => {
    const r = describeFailure(v.validateCallToolResult, tool({ type: "image", data: "aGk=", mimeType: "image/png", annotations: { priority: "high" } }));
    expect(r.described).toBe("/content/0/annotations/priority must be number (in the nearest alternative of /content/0)");
  });

  it("follows a nested anyOf: an embedded resource with neither text nor blob", () => {
    const r = describeFailure(v.validateCallToolResult, tool({ type: "resource", resource: { uri: "file:///a" } }));
    expect(r.described).toBe("/content/0/resource must have required property 'text' (in the nearest alternative of /content/0)");
  });

  it("a constant every alternative shares is no discriminator: it is the error", () => {
    const r = describeFailure(v.validateJSONRPCMessage, { jsonrpc: "2.1", id: 1, method: "tools/list" });
    expect(r.described).toBe('/jsonrpc must be equal to constant "2.0" (in the nearest alternative of /)');
  });

  it("the one alternative that got as far as its discriminator is the one meant", () => {
    const r = describeFailure(v.validateCallToolResult, tool({ type: "txt", text: "hi" }));
    expect(r.described).toBe('/content/0/type must be equal to constant "text" (in the nearest alternative of /content/0)');
  });

  it("when alternatives disagree only on the discriminator, lists the values that would do", () => {
    const r = describeFailure(v.validateCallToolResult, tool({ type: "imag", data: "aGk=", mimeType: "image/png" }));
    // ImageContent and AudioContent reach `type` (TextContent, ResourceLink and EmbeddedResource miss a required field first).
    expect(r.described).toBe('/content/0/type must be one of: "image", "audio"');
  });

  it("when no alternative accepts the value's JSON type, lists the types", () => {
    const r = describeFailure(legacy.validateElicitResult, { action: "accept", content: { score: { value: 1 } } });
    expect(r.first).toBe("/content/score must be string,number,boolean");
    const modern = describeFailure(v.validateElicitResult, { action: "accept", content: { score: { value: 1 } } });
    expect(modern.first).toBe("/content/score must be array");
    expect(modern.described).toBe("/content/score must be one of: array, string, number, boolean");
  });

  it("leaves a failure outside any anyOf as it was", () => {
    const r = describeFailure(v.validateCallToolResult, { content: [] });
    expect(r.described).toBe("/ must have required property 'resultType'");
    expect(describeErrors(Object.assign(() => false, { errors: null }))).toBe("invalid");
  });
});
