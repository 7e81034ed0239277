/**
 * Resolving `spec/<revision>/<page>.mdx#<anchor>` citations against the spec pages `schemas sync` pins and provides
 * (`schemas/spec/`). Shared by the overlay test (every prose rule's cite) and the invariant test over every citation
 * in the source.
 */
import { readFileSync } from "node:fs";
import { isSynced, synced } from "./helpers.js";

/**
 * The anchor of a heading as the spec site renders it: lowercase, inline code and emphasis markers dropped, link
 * text kept, other punctuation dropped, whitespace runs to one '-'.
 */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/[`*]/g, "")
    .replace(/[^a-z0-9 _-]/g, "")
    .trim()
    .replace(/\s+/g, "-");
}

const slugCache = new Map<string, Set<string>>();

/** Anchors of every Markdown heading on a page; lines inside fenced code blocks are not headings. */
export function headingSlugs(file: string): Set<string> {
  let slugs = slugCache.get(file);
  if (slugs) return slugs;
  slugs = new Set();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const f = /^\s*(```|~~~)/.exec(line)?.[1];
    if (f && (fence === undefined || fence === f)) {
      fence = fence === undefined ? f : undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const s = slug(h[1]);
    // A repeated heading gets a numeric suffix on the rendered page (`-1`, `-2`, ...).
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    slugs.add(n === 0 ? s : `${s}-${n}`);
  }
  slugCache.set(file, slugs);
  return slugs;
}

/** A revision (or other top-level folder such as `extensions`) written out, not a placeholder like `<revision>` or `${r}`. */
export const isConcreteSegment = (segment: string): boolean => /^[\w.-]+$/.test(segment);

/**
 * Why `cite` (`spec/<revision>/<path>[.mdx][#anchor]`) does not resolve, or undefined when it does. A path without
 * `.mdx` names `<path>.mdx` or `<path>/index.mdx`. The extensions' pages (`spec/extensions/...`) are Markdown (`.md`),
 * as their repositories publish them.
 */
export function citationProblem(cite: string): string | undefined {
  const m = /^spec\/([^#]+?)(?:#(.*))?$/.exec(cite);
  if (!m) return `not a spec citation`;
  const [, path, anchor] = m;
  const page = path.endsWith(".mdx") || (path.startsWith("extensions/") && path.endsWith(".md"));
  const candidates = page ? [path] : /\.\w+$/.test(path) ? [] : [`${path}.mdx`, `${path}/index.mdx`];
  if (!candidates.length) return `${path} is not a spec page (.mdx)`;
  const found = candidates.find((c) => isSynced(`spec/${c}`));
  if (!found) return `no page ${candidates.join(" or ")} among the spec pages pinned in schemas/manifest.json`;
  const file = synced(`spec/${found}`);
  if (anchor !== undefined && !headingSlugs(file).has(anchor)) {
    return `no heading #${anchor} on ${file}; its anchors: ${[...headingSlugs(file)].join(", ")}`;
  }
  return undefined;
}
