/**
 * `create-mcp-server rules diff <from> <to>`: what changed between two
 * revisions, read from the rules data: methods and notifications, error
 * codes, capabilities, `_meta` keys, definitions, and prose rules.
 */
import type { RulesData } from "./rules.js";

export interface RuleDiff {
  from: string;
  to: string;
  sections: { title: string; added: string[]; removed: string[] }[];
}

export function diffRules(data: RulesData, from: string, to: string): RuleDiff {
  const known = data.revisions.map((r) => r.id);
  for (const r of [from, to]) if (!known.includes(r)) throw new Error(`unknown revision ${r}; known: ${known.join(", ")}`);
  const section = (title: string, has: (rev: string) => Set<string>) => {
    const a = has(from);
    const b = has(to);
    return { title, added: [...b].filter((x) => !a.has(x)).sort(), removed: [...a].filter((x) => !b.has(x)).sort() };
  };
  const keysIn = (map: Record<string, string[]>) => (rev: string) => new Set(Object.keys(map).filter((k) => map[k].includes(rev)));
  const methodsOf = (kind: "request" | "notification" | "inputRequest") => (rev: string) =>
    new Set(
      Object.entries(data.methods)
        .filter(([, m]) => m.byRevision[rev]?.kind === kind)
        .map(([name, m]) => `${name} (${m.byRevision[rev].directions.join(", ")})`),
    );
  const codes = (rev: string) => new Set(Object.entries(data.errorCodes).flatMap(([name, list]) => list.filter((c) => c.revisions.includes(rev)).map((c) => `${name} ${c.code}`)));
  const defs = (rev: string) =>
    new Set(
      Object.entries(data.definitions)
        .filter(([, d]) => d.revisions.includes(rev))
        .map(([n]) => n),
    );
  const fields = (rev: string) =>
    new Set(
      Object.entries(data.definitions).flatMap(([n, d]) =>
        d.revisions.includes(from) && d.revisions.includes(to)
          ? Object.entries(d.fields)
              .filter(([, rs]) => rs.includes(rev))
              .map(([f]) => `${n}.${f}`)
          : [],
      ),
    );
  const prose = (rev: string) => new Set(Object.entries(data.prose).map(([n, p]) => `${n} = ${JSON.stringify(p.byRevision[rev])}`));
  return {
    from,
    to,
    sections: [
      section("requests", methodsOf("request")),
      section("input requests", methodsOf("inputRequest")),
      section("notifications", methodsOf("notification")),
      section("error codes", codes),
      section("server capabilities", keysIn(data.capabilities.server)),
      section("client capabilities", keysIn(data.capabilities.client)),
      section("_meta keys", keysIn(data.metaKeys)),
      section("cacheable methods", keysIn(data.cacheableMethods)),
      section("input_required methods", keysIn(data.inputRequiredMethods)),
      section("prose rules", prose),
      section("definitions", defs),
      section("fields of definitions in both", fields),
    ],
  };
}

export function formatDiff(diff: RuleDiff): string {
  const lines = [`rules diff ${diff.from} → ${diff.to}`];
  for (const s of diff.sections) {
    if (!s.added.length && !s.removed.length) continue;
    lines.push(`\n${s.title}:`);
    for (const r of s.removed) lines.push(`  - ${r}`);
    for (const a of s.added) lines.push(`  + ${a}`);
  }
  if (lines.length === 1) lines.push("  (no differences)");
  return lines.join("\n");
}
