import { Builder, type Program, run } from "./uri-match.js";

/**
 * Matching URIs against RFC 6570 URI templates (resources/templates/list): the reverse of expansion, for every
 * operator of the RFC (level 4). spec/2025-11-25/server/resources.mdx#resource-templates
 *
 * - `{var}`, `{+var}`: one value of at least one character (`{var}`: no `/`, `?` or `#`); several variables:
 *   comma-separated, each possibly empty;
 * - `{#var}`: optional, after a `#`;
 * - `{.var}`, `{/var}`, `{;var}`: each variable optional, with its prefix (`{.var}` holds no `.`, `{/path*}` takes
 *   every segment, `{;x}` alone is x = "");
 * - `{?a,b}`, `{&c}`: query parameters, in any order, each optional, the first of a repeated one winning; they end
 *   the template (`{&c}` first continues a query the template's text begins).
 *
 * Values are percent-decoded. Modifiers (`:n` prefixes, `*` explode) are accepted; an exploded value is returned as
 * the expanded text without its first prefix (e.g. "a/b" for `{/path*}` matching "/a/b"). A template with another
 * operator (`=`, `,`, `!`, `@`, `|`), a malformed name, or text after its query never matches.
 *
 * Where a URI splits in several ways, expressions are read left to right: a `{var}` or `{+var}` value takes the
 * fewest characters that let the rest match (so `{name}.{ext}` splits "a.tar.gz" at the first `.`: name "a", ext
 * "tar.gz", as the regex this replaced did), an optional part (`{.x}`, `{/x}`, `{;x}`, `{#x}`) is taken whenever the
 * rest still matches, and its value takes the most (so `{name}{.ext}` gives name "a.tar", ext "gz": the form for a
 * file extension).
 *
 * Cost: time O(n·k) for a URI of n characters and a template of k characters, whatever the URI (a backtracking search
 * that never enters a branch twice at the same position); memory one bit per character per branch of the template.
 */
export class UriTemplate {
  private readonly program: Program | undefined;

  constructor(readonly template: string) {
    this.program = compile(template);
  }

  /** The variables of `uri` when it matches, else undefined. */
  match(uri: string): Record<string, string> | undefined {
    const program = this.program;
    // The template's first and last text, checked first: most URIs of other templates stop here.
    if (!program || !uri.startsWith(program.prefix) || !uri.endsWith(program.suffix)) return undefined;
    const slots = run(program, uri);
    if (!slots) return undefined;
    const vars: Record<string, string> = {};
    program.names.forEach((n, i) => {
      if (slots[2 * i] >= 0) vars[n] = decode(uri.slice(slots[2 * i], slots[2 * i + 1]));
    });
    const q = 2 * program.names.length;
    if (program.queryNames.length && slots[q + 1] > slots[q]) readQuery(uri.slice(slots[q], slots[q + 1]), program.queryNames, vars);
    return vars;
  }
}

/** Into `vars`, the first value of each parameter of `query` ("a=1&b&c=") that `names` lists and `vars` lacks. */
function readQuery(query: string, names: string[], vars: Record<string, string>): void {
  let wanted = new Set(names.filter((n) => !Object.hasOwn(vars, n))).size;
  for (let start = 0; wanted && start <= query.length;) {
    const end = query.indexOf("&", start) < 0 ? query.length : query.indexOf("&", start);
    const pair = query.slice(start, end);
    const eq = pair.indexOf("=");
    const name = decode(eq < 0 ? pair : pair.slice(0, eq));
    if (names.includes(name) && !Object.hasOwn(vars, name)) {
      vars[name] = eq < 0 ? "" : decode(pair.slice(eq + 1));
      wanted--;
    }
    start = end + 1;
  }
}

/** The characters a value may not hold, per kind of value. */
const SIMPLE = "/?#";
const SIMPLE_ITEM = "/?#,";
const ANY = "";
const ITEM = ",";
const LABEL = "/?#.";
const SEGMENTS = "?#";
const PARAMETER = ";/?#";
const QUERY = "#";

interface Variable {
  name: string;
  explode: boolean;
}
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;

/** The program of `template`, or undefined when the template can never match (see UriTemplate). */
function compile(template: string): Program | undefined {
  const b = new Builder();
  const queryNames: string[] = [];
  let query = ""; // the first query expression's operator, once seen
  let last = 0;
  let prefix: string | undefined;
  for (const m of template.matchAll(/\{([^}]*)\}/g)) {
    const literal = template.slice(last, m.index);
    prefix ??= literal;
    // Text after a query expression would sit inside the query: not supported.
    if (query && literal) return undefined;
    b.literal(literal);
    last = (m.index ?? 0) + m[0].length;
    const op = /^[+#./;?&]/.test(m[1]) ? m[1][0] : "";
    const vars = (op ? m[1].slice(1) : m[1]).split(",").map((v) => ({ name: v.replace(/(\*|:\d+)$/, ""), explode: v.endsWith("*") }));
    if (vars.some((v) => !VARNAME.test(v.name))) return undefined;
    if (op === "?" || op === "&") {
      query ||= op;
      queryNames.push(...vars.map((v) => v.name));
    } else if (query) return undefined;
    else expression(b, op, vars);
  }
  const tail = template.slice(last);
  if (query && tail) return undefined;
  b.literal(tail);
  // The query part: optional, its parameters split apart after matching. Its slots follow the variables'.
  const querySlot = 2 * b.names.length;
  if (query) b.either(query, () => b.capture(querySlot, QUERY, { min: 0, lazy: false }));
  return b.finish(queryNames, prefix === undefined ? { prefix: template, suffix: "" } : { prefix, suffix: tail });
}

/** The instructions of one expression other than a query's. RFC 6570 §3.2 */
function expression(b: Builder, op: string, vars: Variable[]): void {
  const list = vars.length > 1;
  const commaList = (set: string, run: { min: 0 | 1; lazy: boolean }) =>
    vars.forEach((v, i) => {
      if (i) b.literal(",");
      b.capture(b.slot(v.name), set, run);
    });
  // Simple and reserved values are lazy, so that a following `{.ext}` takes the extension.
  if (op === "") commaList(list ? SIMPLE_ITEM : SIMPLE, { min: list ? 0 : 1, lazy: true });
  else if (op === "+") commaList(list ? ITEM : ANY, { min: list ? 0 : 1, lazy: true });
  else if (op === "#") b.either("#", () => commaList(list ? ITEM : ANY, { min: 0, lazy: false }));
  for (const v of op === "." || op === "/" || op === ";" ? vars : []) {
    const slot = b.slot(v.name);
    const greedy = { min: 0, lazy: false } as const;
    if (op === ".") b.either(".", () => b.capture(slot, v.explode ? SIMPLE : LABEL, greedy));
    if (op === "/") b.either("/", () => b.capture(slot, v.explode ? SEGMENTS : SIMPLE, greedy));
    // `;x=value`, or `;x` for an empty value (RFC 6570 §3.2.7).
    if (op === ";") {
      const value = () =>
        b.either(
          "=",
          () => b.capture(slot, PARAMETER, greedy),
          () => b.empty(slot),
        );
      b.either(`;${v.name}`, value);
    }
  }
}

function decode(s: string): string {
  // Nothing to decode (the usual value): the string as it is, not a copy (2 ms for a 512 KiB name).
  if (!s.includes("%")) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
