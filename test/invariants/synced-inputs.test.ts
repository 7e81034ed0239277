/**
 * Invariant: no test reads the upstream mirror. The tests read what `schemas sync` provides (test/helpers.ts:
 * synced() and its kin), so a clone that ran `npm run sync` passes with no mirror at all; one that reaches for
 * ../shared or MCP_SCHEMA_MIRROR passes only on machines laid out as CI is. Passing MCP_SCHEMA_MIRROR to a child
 * (a mirror the test made of the synced copy) is not reading it, and stays allowed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

const TEST = join(ROOT, "test");
/** global-setup.ts removes the variable for the workers; this file names the patterns. */
const EXEMPT = new Set(["test/global-setup.ts", "test/invariants/synced-inputs.test.ts"]);
const READS_MIRROR = [/process\.env\.MCP_SCHEMA_MIRROR|process\.env\[["'`]MCP_SCHEMA_MIRROR/, /\.\.\/shared\b/, /(^|[^\w-])shared\/(schemas|spec)\b/, /\/work\/shared\b/, /MANIFEST\.json/];

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== "node_modules") yield* sources(p);
    } else if (/\.(ts|mts|js|mjs|cjs)$/.test(e.name)) yield p;
  }
}

describe("the tests read the synced copy, never the mirror", () => {
  it("no test file reads MCP_SCHEMA_MIRROR, ../shared or the mirror's MANIFEST.json", () => {
    const found: string[] = [];
    let scanned = 0;
    for (const file of sources(TEST)) {
      const where = relative(ROOT, file);
      if (EXEMPT.has(where)) continue;
      scanned++;
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          for (const re of READS_MIRROR) if (re.test(line)) found.push(`${where}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(scanned).toBeGreaterThan(50);
    expect(found).toEqual([]);
  });

  it("the workers do not see MCP_SCHEMA_MIRROR (test/global-setup.ts removes it)", () => {
    expect(process.env.MCP_SCHEMA_MIRROR).toBeUndefined();
  });
});
