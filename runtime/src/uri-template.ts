/**
 * Matching URIs against RFC 6570 URI templates (resources/templates/list).
 * Supports simple `{var}` and reserved `{+var}` expressions, which is what
 * resource templates use; other operators never match.
 */
export class UriTemplate {
  private readonly regex: RegExp | null;
  private readonly names: string[] = [];

  constructor(readonly template: string) {
    let pattern = "^";
    let ok = true;
    let last = 0;
    for (const m of template.matchAll(/\{([^}]*)\}/g)) {
      pattern += escape(template.slice(last, m.index));
      const expr = m[1];
      const reserved = expr.startsWith("+");
      const name = reserved ? expr.slice(1) : expr;
      if (!/^[A-Za-z0-9_.%]+$/.test(name)) ok = false;
      this.names.push(name);
      // Simple expansion cannot produce "/" ,"?" or "#" unencoded; reserved expansion can.
      pattern += reserved ? "(.+?)" : "([^/?#]+)";
      last = (m.index ?? 0) + m[0].length;
    }
    pattern += escape(template.slice(last)) + "$";
    this.regex = ok ? new RegExp(pattern) : null;
  }

  /** The variables of `uri` when it matches, else undefined. */
  match(uri: string): Record<string, string> | undefined {
    const m = this.regex?.exec(uri);
    if (!m) return undefined;
    const vars: Record<string, string> = {};
    this.names.forEach((n, i) => {
      try {
        vars[n] = decodeURIComponent(m[i + 1]);
      } catch {
        vars[n] = m[i + 1];
      }
    });
    return vars;
  }
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
