/**
 * mcp.json's text as JSON, with a syntax error placed at its line and column: JSON.parse names a byte position, or
 * none at all, which an editor cannot jump to.
 */
import { fail } from "./errors.js";

interface SyntaxProblem {
  offset: number;
  expected: string;
}

/** Parse `text` (a leading byte-order mark is ignored); a syntax error stops with `mcp.json:<line>:<column>: …`. */
export function parseJson(text: string): unknown {
  const source = text.replace(/^\uFEFF/, "");
  try {
    return JSON.parse(source);
  } catch {
    const problem = findSyntaxError(source) ?? { offset: 0, expected: "a JSON value" };
    const { line, column } = lineColumn(source, problem.offset);
    const ch = source[problem.offset];
    const found = ch === undefined ? "the end of the file" : ch < " " ? `a control character ${JSON.stringify(ch)}` : `'${ch}'`;
    return fail(`mcp.json:${line}:${column}: invalid JSON: expected ${problem.expected}, found ${found}`);
  }
}

/** 1-based line and column (in characters) of `offset`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

/** The first place where `text` is not JSON (RFC 8259), and what was expected there; undefined when it is JSON. */
export function findSyntaxError(text: string): SyntaxProblem | undefined {
  let i = 0;
  const problem = (expected: string): never => {
    throw { offset: i, expected } satisfies SyntaxProblem;
  };
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const word = (w: string) => {
    for (const ch of w) {
      if (text[i] !== ch) problem(`"${w}"`);
      i++;
    }
  };
  const string = () => {
    i++; // the opening quote
    while (text[i] !== '"') {
      if (i >= text.length || text.charCodeAt(i) < 0x20) problem("a closing '\"' (a string ends on its line; write a line break as \\n)");
      if (text[i++] !== "\\") continue;
      if ('"\\/bfnrt'.includes(text[i])) i++;
      else if (text[i] === "u" && /^[0-9A-Fa-f]{4}$/.test(text.slice(i + 1, i + 5))) i += 5;
      else problem('an escape: \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u followed by 4 hex digits');
    }
    i++;
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m) problem("a JSON value (a string, a number, an object, an array, true, false or null)");
    i += m![0].length;
  };
  const value = (): void => {
    space();
    const ch = text[i];
    if (ch === "{") return members("}", () => (text[i] === '"' ? string() : problem("a double-quoted key")), true);
    if (ch === "[") return members("]", value, false);
    if (ch === '"') return string();
    if (ch === "t" || ch === "f" || ch === "n") return word(ch === "t" ? "true" : ch === "f" ? "false" : "null");
    number();
  };
  const members = (close: string, item: () => void, keyed: boolean) => {
    const what = keyed ? "property value" : "item";
    i++;
    space();
    if (text[i] === close) return void i++;
    for (;;) {
      space();
      item();
      if (keyed) {
        space();
        if (text[i] !== ":") problem("':' after a key");
        i++;
        value();
      }
      space();
      if (text[i] === close) return void i++;
      if (text[i] !== ",") problem(`',' or '${close}' after ${keyed ? "a" : "an"} ${what}`);
      i++;
      space();
      if (text[i] === close) problem(`another ${keyed ? "key" : "item"} after ',' (JSON has no trailing commas)`);
    }
  };
  try {
    value();
    space();
    if (i < text.length) problem("the end of the file after the JSON value");
    return undefined;
  } catch (err) {
    return err as SyntaxProblem;
  }
}
