/**
 * Matching URIs against RFC 6570 URI templates (resources/templates/list): the
 * reverse of expansion, for every operator of the RFC (level 4).
 *
 * - `{var}`, `{+var}`, `{#var}`: one value (several variables: comma-separated);
 * - `{.var}`, `{/var}`, `{;var}`: each variable optional, with its prefix (`{/path*}` takes every segment);
 * - `{?a,b}`, `{&c}`: query parameters, in any order, each optional.
 *
 * Values are percent-decoded. Modifiers (`:n` prefixes, `*` explode) are accepted; an exploded value is returned as
 * the expanded text without its first prefix (e.g. "a/b" for `{/path*}` matching "/a/b").
 */
export class UriTemplate {
  private readonly regex: RegExp | null;
  /** Variable name of each regex group. */
  private readonly names: string[] = [];
  /** Variables expanded into the query (`{?…}`, `{&…}`). */
  private readonly queryNames: string[] = [];

  constructor(readonly template: string) {
    let pattern = "^";
    let ok = true;
    let last = 0;
    let query = false;
    for (const m of template.matchAll(/\{([^}]*)\}/g)) {
      const literal = template.slice(last, m.index);
      // Literal text after a query expression would sit inside the query: not supported (never matches).
      if (query && literal) ok = false;
      pattern += escape(literal);
      last = (m.index ?? 0) + m[0].length;
      const op = /^[+#./;?&]/.test(m[1]) ? m[1][0] : "";
      const vars = (op ? m[1].slice(1) : m[1]).split(",").map((v) => ({ name: v.replace(/(\*|:\d+)$/, ""), explode: v.endsWith("*") }));
      if (vars.some((v) => !/^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/.test(v.name))) ok = false;
      if (op === "?" || op === "&") {
        query = true;
        this.queryNames.push(...vars.map((v) => v.name));
        continue;
      }
      if (query) ok = false;
      pattern += expression(op, vars, this.names);
    }
    const tail = template.slice(last);
    if (query && tail) ok = false;
    pattern += escape(tail);
    // A query part, when the template expands one: optional, any parameters in any order.
    pattern += query ? "(?:\\?([^#]*))?$" : "$";
    this.regex = ok ? new RegExp(pattern) : null;
  }

  /** The variables of `uri` when it matches, else undefined. */
  match(uri: string): Record<string, string> | undefined {
    const m = this.regex?.exec(uri);
    if (!m) return undefined;
    const vars: Record<string, string> = {};
    this.names.forEach((n, i) => {
      if (m[i + 1] !== undefined) vars[n] = decode(m[i + 1]);
    });
    if (this.queryNames.length && m[this.names.length + 1]) {
      for (const pair of m[this.names.length + 1].split("&")) {
        const eq = pair.indexOf("=");
        const name = decode(eq < 0 ? pair : pair.slice(0, eq));
        if (this.queryNames.includes(name) && !(name in vars)) vars[name] = eq < 0 ? "" : decode(pair.slice(eq + 1));
      }
    }
    return vars;
  }
}

/** The regex of one non-query expression, pushing its variables' names in group order. */
function expression(op: string, vars: { name: string; explode: boolean }[], names: string[]): string {
  names.push(...vars.map((v) => v.name));
  switch (op) {
    case "":
      // Simple expansion encodes "/", "?", "#" (and "," separates variables). Lazy, so that a following `{.ext}`
      // takes the extension.
      return vars.length === 1 ? "([^/?#]+?)" : vars.map(() => "([^/?#,]*?)").join(",");
    case "+":
      return vars.length === 1 ? "(.+?)" : vars.map(() => "([^,]*?)").join(",");
    case "#":
      return `(?:#${vars.length === 1 ? "(.*)" : vars.map(() => "([^,]*)").join(",")})?`;
    case ".":
      return vars.map((v) => (v.explode ? "(?:\\.([^/?#]*))?" : "(?:\\.([^/?#.]*))?")).join("");
    case "/":
      return vars.map((v) => (v.explode ? "(?:/([^?#]*))?" : "(?:/([^/?#]*))?")).join("");
    case ";":
      return vars.map((v) => `(?:;${escape(v.name)}(?:=([^;/?#]*))?)?`).join("");
  }
  return "(?!)";
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
