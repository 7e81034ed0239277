/**
 * mcp.json's text as JSON, with a syntax error placed at its line and column: JSON.parse names a byte position, or
 * none at all, which an editor cannot jump to.
 */
import { fail } from "./errors.js";

/**
 * The deepest nesting of objects and arrays mcp.json may have. Deeper, the checks (and the reader below, which
 * recurses) would exhaust the stack; no manifest or tool schema needs a fraction of it.
 */
export const MAX_DEPTH = 256;

interface SyntaxProblem {
  offset: number;
  expected: string;
  /** What is there instead, when more than the character at `offset` says it. */
  found?: string;
}

/**
 * Parse `text` (a leading byte-order mark is ignored); a syntax error stops with `mcp.json:<line>:<column>: …`, as do
 * a key given twice in one object (JSON.parse would silently keep only the last) and nesting deeper than MAX_DEPTH.
 */
export function parseJson(text: string): unknown {
  const source = text.replace(/^\uFEFF/, "");
  const problem = findSyntaxError(source);
  if (!problem) {
    try {
      return JSON.parse(source);
    } catch {
      // the reader and JSON.parse disagree: said without a place below
    }
  }
  const { offset, expected, found } = problem ?? { offset: 0, expected: "a JSON value" };
  const { line, column } = lineColumn(source, offset);
  const ch = source[offset];
  const there = found ?? (ch === undefined ? "the end of the file" : ch < " " ? `a control character ${JSON.stringify(ch)}` : `'${ch}'`);
  return fail(`mcp.json:${line}:${column}: invalid JSON: expected ${expected}, found ${there}`);
}

/** 1-based line and column (in characters) of `offset`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

/** The first place where `text` is not JSON (RFC 8259), and what was expected there; undefined when it is JSON. */
export function findSyntaxError(text: string): SyntaxProblem | undefined {
  const scanner = new Scanner(text);
  try {
    scanner.document();
    return undefined;
  } catch (err) {
    if (err instanceof ScanError) return { offset: err.offset, expected: err.expected, found: err.found };
    throw err;
  }
}

class ScanError {
  constructor(
    readonly offset: number,
    readonly expected: string,
    readonly found?: string,
  ) {}
}

/** A recursive-descent reader of JSON that only finds where it breaks (JSON.parse builds the value). */
class Scanner {
  private i = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  document(): void {
    this.value();
    this.space();
    if (this.i < this.text.length) this.problem("the end of the file after the JSON value");
  }

  private problem(expected: string, found?: string): never {
    throw new ScanError(this.i, expected, found);
  }

  private space(): void {
    while (this.i < this.text.length && " \t\n\r".includes(this.text[this.i])) this.i++;
  }

  private value(): void {
    this.space();
    const ch = this.text[this.i];
    if (ch === "{") return this.members("}", true);
    if (ch === "[") return this.members("]", false);
    if (ch === '"') return this.string();
    if (ch === "t" || ch === "f" || ch === "n") return this.word(ch === "t" ? "true" : ch === "f" ? "false" : "null");
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.i));
    if (!m) this.problem("a JSON value (a string, a number, an object, an array, true, false or null)");
    this.i += m[0].length;
  }

  private word(w: string): void {
    for (const ch of w) {
      if (this.text[this.i] !== ch) this.problem(`"${w}"`);
      this.i++;
    }
  }

  private string(): void {
    const t = this.text;
    this.i++; // the opening quote
    while (t[this.i] !== '"') {
      if (this.i >= t.length || t.charCodeAt(this.i) < 0x20) this.problem("a closing '\"' (a string ends on its line; write a line break as \\n)");
      if (t[this.i++] !== "\\") continue;
      if ('"\\/bfnrt'.includes(t[this.i])) this.i++;
      else if (t[this.i] === "u" && /^[0-9A-Fa-f]{4}$/.test(t.slice(this.i + 1, this.i + 5))) this.i += 5;
      else this.problem('an escape: \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u followed by 4 hex digits');
    }
    this.i++;
  }

  /** The members of an object (`keyed`: `"key": value`) or the items of an array, up to `close`. */
  private members(close: string, keyed: boolean): void {
    const t = this.text;
    if (++this.depth > MAX_DEPTH) this.problem(`at most ${MAX_DEPTH} levels of nested objects and arrays`);
    this.i++;
    this.space();
    if (t[this.i] === close) return void (this.i++, this.depth--);
    const keys = new Map<string, number>();
    for (;;) {
      this.space();
      if (keyed) {
        if (t[this.i] !== '"') this.problem("a double-quoted key");
        const start = this.i;
        this.string();
        const key = JSON.parse(t.slice(start, this.i)) as string;
        const first = keys.get(key);
        if (first !== undefined) {
          const { line, column } = lineColumn(t, first);
          this.i = start;
          this.problem("each key once in an object (JSON.parse keeps only the last)", `${JSON.stringify(key)} again (first at ${line}:${column})`);
        }
        keys.set(key, start);
        this.space();
        if (t[this.i] !== ":") this.problem("':' after a key");
        this.i++;
      }
      this.value();
      this.space();
      if (t[this.i] === close) return void (this.i++, this.depth--);
      if (t[this.i] !== ",") this.problem(`',' or '${close}' after ${keyed ? "a property value" : "an item"}`);
      this.i++;
      this.space();
      if (t[this.i] === close) this.problem(`another ${keyed ? "key" : "item"} after ',' (JSON has no trailing commas)`);
    }
  }
}
