/**
 * The generated validators check `format: "uri"` and `format: "byte"` with ajv-formats' own regular expressions,
 * inlined (generator/inline-formats.ts), and import no CommonJS module (#22: loading ajv-formats from ESM was about
 * 15 ms of a stdio server's cold start). Their verdicts are compared with ajv-formats' fullFormats on fixed cases and
 * on 50,000 random strings over the characters URIs and base64 are made of.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import formats from "ajv-formats/dist/formats.js";
import { inlineFormats } from "../../generator/inline-formats.js";

const ajvFormats = (formats as unknown as { fullFormats: Record<string, (s: string) => boolean> }).fullFormats;

/** The inlined checks, as the generated code defines them. */
function inlined(): { uri: (s: string) => boolean; byte: (s: string) => boolean } {
  const code = inlineFormats('"use strict";const f0 = require("ajv-formats/dist/formats").fullFormats.uri;const f1 = require("ajv-formats/dist/formats").fullFormats.byte;');
  expect(code).not.toContain("require(");
  return new Function(`${code}; return { uri: f0, byte: f1 };`)();
}

describe("inlined formats", () => {
  const mine = inlined();

  it("uri and byte give ajv-formats' verdicts on hand-picked cases", () => {
    // By hand: what RFC 3986 (as ajv-formats reads it) accepts and refuses.
    const uris: [string, boolean][] = [
      ["https://example.com/a?b=c#d", true],
      ["file:///home/user/doc.txt", true],
      ["app://files/a.txt", true],
      ["urn:isbn:0451450523", true],
      ["mailto:a@b.c", true],
      ["http://[::1]:8080/x", true],
      ["http://h/%41", true],
      ["http://h/%zz", false],
      ["no-scheme", false],
      ["1http://a", false],
      ["http://a b", false],
      ["http://é.com", false],
      ["", false],
    ];
    const bytes: [string, boolean][] = [
      ["", true],
      ["aGk=", true],
      ["aGVsbG8=", true],
      ["aGk", false],
      ["a===", false],
      ["aG k=", false],
    ];
    for (const [format, cases] of [
      ["uri", uris],
      ["byte", bytes],
    ] as const) {
      for (const [s, ok] of cases) {
        expect([format, s, mine[format](s)]).toEqual([format, s, ok]);
        expect(ajvFormats[format](s)).toBe(ok);
      }
    }
  });

  it("uri and byte agree with ajv-formats on 50,000 random strings", () => {
    const parts = [
      "a",
      "Z",
      "0",
      "9",
      ":",
      "/",
      "?",
      "#",
      "@",
      "%",
      "%4",
      "%41",
      "%zz",
      ".",
      "-",
      "_",
      "~",
      "!",
      "$",
      "&",
      "'",
      "(",
      ")",
      "*",
      "+",
      ",",
      ";",
      "=",
      "[",
      "]",
      "v1.",
      "::",
      "1.2.3.4",
      "256",
      " ",
      "é",
      "\n",
      "==",
      "http:",
      "a:",
      "//",
    ];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const disagreements: string[] = [];
    for (let i = 0; i < 50_000; i++) {
      let s = i % 3 ? ["http:", "a:", "urn:", "A+b.c-d:", ""][i % 5] : "";
      for (let k = 1 + Math.floor(next() * 8); k > 0; k--) s += parts[Math.floor(next() * parts.length)];
      if (mine.uri(s) !== ajvFormats.uri(s) || mine.byte(s) !== ajvFormats.byte(s)) disagreements.push(s);
    }
    expect(disagreements).toEqual([]);
  });

  it("the generated validators import nothing: no ajv-formats, no CommonJS module", () => {
    for (const revision of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]) {
      for (const file of ["dispatch-validators.js", "validators.js"]) {
        const code = readFileSync(join("out", revision, file), "utf8");
        expect([revision, file, code.match(/^import .*$/m)?.[0]]).toEqual([revision, file, undefined]);
        expect(code).not.toMatch(/\brequire\(/);
      }
    }
  });
});
