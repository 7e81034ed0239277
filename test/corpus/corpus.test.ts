/**
 * The wire corpus (after the Go SDK's conformance files): test/corpus/<revision>/<case>.txt, each a header comment
 * naming the rule and its spec page, an optional `-- config --` line (fixture options, see fixture.ts), then
 * `-- client --` sections (one JSON-RPC message per line) alternating with `-- server --` sections (the exact messages
 * the server sends in answer, in order). The expectations are written by hand from the spec, never computed from the
 * rules module, so that the generated rules have an independent oracle. Everything runs in process against the
 * protocol core (Connection) with a capturing sink: no child process, no pipe.
 *
 * Client lines:
 *   {…}        sent and awaited (the message is answered, or, for a notification, handled)
 *   & {…}      sent without waiting for its answer (a listen, a long tool, a request waiting for the client)
 *   !eof       the client can no longer answer and its subscriptions end (what stdin EOF does on stdio)
 *   other text is not JSON: a parse error (what stdio does with such a line)
 *   `${name}` in a client line is replaced by the string captured as name (JSON-escaped, without quotes)
 * Server lines are compared with the parsed actual messages structurally; placeholders, kept rare, stand for values
 * the spec leaves to the server: "<any>", "<string>" (e.g. an error's message), "<number>", and "<capture:name>"
 * (a string, e.g. a sealed requestState, remembered for later client lines).
 * After each client section the runner waits for the following section's count (bounded), then a moment for extras;
 * at the end for every request to be answered (bounded). Extra or missing messages fail the case.
 *
 * CORPUS_UPDATE=1 npx vitest run test/corpus rewrites the server sections from the actual output (placeholders that
 * still match are kept, comments kept), for review with git diff. A case listed in KNOWN_FAILURES (a runtime bug, with
 * its spec citation) runs as it.fails: the suite stays green, the hand-written expectation stays.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Connection, type McpServer, rules } from "../../runtime/dist/index.js";
import { isSynced, synced } from "../helpers.js";
import { buildFixture, type FixtureConfig } from "./fixture.js";

const DIR = new URL(".", import.meta.url).pathname;
const UPDATE = process.env.CORPUS_UPDATE === "1";
/** How long a message may take to appear (in process every answer is due within a few ms; this bounds a hang). */
const WAIT_MS = 2000;

// ---- driving the protocol core: the only code that knows the runtime's in-process API ----

interface Driver {
  out: unknown[];
  /** Deliver one client line: a parsed message, or text that is not JSON. Resolves when it is answered. */
  send(line: { value: unknown } | { text: string; error: string }): Promise<void>;
  eof(): void;
  idle(): Promise<void>;
  close(): void;
}

function drive(server: McpServer): Driver {
  const out: unknown[] = [];
  const c = new Connection(server, { send: (m) => void out.push(m) }, { transport: "stdio" });
  return {
    out,
    send: (line) => ("value" in line ? c.receive(line.value) : c.parseError(line.error)),
    eof: () => {
      c.rejectClientRequests("stdin closed: the client can no longer answer");
      c.endSubscriptions();
    },
    idle: () => c.idle(),
    close: () => c.close(),
  };
}

// ---- the file format ----

type Section = { kind: "config" | "client" | "server"; lines: string[] };
interface Case {
  header: string[];
  sections: Section[];
}

function parse(text: string): Case {
  const header: string[] = [];
  const sections: Section[] = [];
  for (const line of text.replace(/\n$/, "").split("\n")) {
    const marker = /^-- (config|client|server) --$/.exec(line);
    if (marker) sections.push({ kind: marker[1] as Section["kind"], lines: [] });
    else if (sections.length) sections.at(-1)!.lines.push(line);
    else header.push(line);
  }
  return { header, sections };
}

const isMessageLine = (l: string) => l.trim() !== "" && !l.startsWith("#");

function format(c: Case, actualBySection: Map<Section, unknown[]>, expectedBySection: Map<Section, unknown[]>): string {
  const out = [...c.header];
  for (const s of c.sections) {
    out.push(`-- ${s.kind} --`);
    const actual = actualBySection.get(s);
    if (s.kind !== "server" || !actual) {
      out.push(...s.lines);
      continue;
    }
    const expected = expectedBySection.get(s) ?? [];
    out.push(...s.lines.filter((l) => l.startsWith("#")));
    out.push(...actual.map((m, i) => JSON.stringify(keepPlaceholders(expected[i], m))));
  }
  return out.join("\n") + "\n";
}

// ---- structural comparison with placeholders ----

type Captures = Map<string, string>;

function placeholder(e: unknown): string | undefined {
  return typeof e === "string" && /^<(any|string|number|capture:[\w-]+)>$/.test(e) ? e : undefined;
}

/** Whether actual matches expected; captures are recorded. */
function matches(expected: unknown, actual: unknown, captures: Captures): boolean {
  const p = placeholder(expected);
  if (p === "<any>") return actual !== undefined;
  if (p === "<string>") return typeof actual === "string";
  if (p === "<number>") return typeof actual === "number";
  if (p) {
    if (typeof actual !== "string") return false;
    captures.set(p.slice("<capture:".length, -1), actual);
    return true;
  }
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => matches(e, actual[i], captures));
  if (expected && typeof expected === "object") {
    if (!actual || typeof actual !== "object" || Array.isArray(actual)) return false;
    const ek = Object.keys(expected).sort();
    const ak = Object.keys(actual).sort();
    return ek.length === ak.length && ek.every((k, i) => k === ak[i] && matches((expected as Record<string, unknown>)[k], (actual as Record<string, unknown>)[k], captures));
  }
  return Object.is(expected, actual);
}

/** Update mode: the actual value, but with the expectation's placeholders wherever they still match. */
function keepPlaceholders(expected: unknown, actual: unknown): unknown {
  if (placeholder(expected) && matches(expected, actual, new Map())) return expected;
  if (Array.isArray(expected) && Array.isArray(actual)) return actual.map((a, i) => keepPlaceholders(expected[i], a));
  if (expected && actual && typeof expected === "object" && typeof actual === "object" && !Array.isArray(actual)) {
    return Object.fromEntries(Object.entries(actual).map(([k, v]) => [k, keepPlaceholders((expected as Record<string, unknown>)[k], v)]));
  }
  return actual;
}

// ---- the header's citations: spec/<revision>/<page>.mdx#<anchor> that exist ----

const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[`*]/g, "")
    .replace(/[^a-z0-9 _-]/g, "")
    .trim()
    .replace(/\s+/g, "-");

function checkCitations(file: string, header: string[]): void {
  const cites = header.join("\n").match(/spec\/[\w-]+\/[\w/.-]+\.mdx(#[\w-]+)?/g) ?? [];
  if (!cites.length) throw new Error(`${file}: the header must cite the spec page of the rule`);
  for (const cite of cites) {
    const [path, anchor] = cite.split("#");
    if (!isSynced(path)) throw new Error(`${file}: cites ${cite}, but schemas/manifest.json pins no page ${path}`);
    const page = synced(path);
    const headings = readFileSync(page, "utf8")
      .split("\n")
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) => slug(l.replace(/^#+ /, "")));
    if (anchor && !headings.includes(anchor)) throw new Error(`${file}: cites ${cite}, but the page has no heading #${anchor}`);
  }
}

// ---- running a case ----

const servers = new Map<string, McpServer>();
function serverFor(config: FixtureConfig): McpServer {
  const key = JSON.stringify(config);
  if (!servers.has(key)) servers.set(key, buildFixture(config));
  return servers.get(key)!;
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function bounded(p: Promise<unknown>, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not answered within ${WAIT_MS} ms`)), WAIT_MS)));
  try {
    await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function runCase(file: string): Promise<void> {
  const text = readFileSync(file, "utf8");
  const c = parse(text);
  checkCitations(file, c.header);
  const configSection = c.sections.find((s) => s.kind === "config");
  const config = configSection ? (JSON.parse(configSection.lines.filter(isMessageLine).join("")) as FixtureConfig) : {};
  const d = drive(serverFor(config));
  const captures: Captures = new Map();
  const actualBySection = new Map<Section, unknown[]>();
  const expectedBySection = new Map<Section, unknown[]>();
  const failures: string[] = [];
  let seen = 0;
  try {
    const serverSections = c.sections.filter((s) => s.kind === "server");
    for (const [i, s] of c.sections.entries()) {
      if (s.kind === "client") {
        for (const raw of s.lines.filter(isMessageLine)) {
          if (raw === "!eof") {
            d.eof();
            continue;
          }
          const noWait = raw.startsWith("& ");
          const line = (noWait ? raw.slice(2) : raw).replace(/\$\{([\w-]+)\}/g, (_, name: string) => {
            if (!captures.has(name)) throw new Error(`${file}: \${${name}} used before it was captured`);
            return JSON.stringify(captures.get(name)).slice(1, -1);
          });
          let message: { value: unknown } | { text: string; error: string };
          try {
            message = { value: JSON.parse(line) };
          } catch (err) {
            message = { text: line, error: (err as Error).message };
          }
          const answered = d.send(message);
          if (!noWait) await bounded(answered, line);
        }
        // Wait for the section that follows (if any), then a moment for anything extra.
        const next = c.sections[i + 1];
        if (next?.kind === "server") {
          const want = seen + next.lines.filter(isMessageLine).length;
          for (const end = Date.now() + WAIT_MS; d.out.length < want && Date.now() < end;) await tick(1);
        }
        if (s === c.sections.filter((x) => x.kind === "client").at(-1)) await bounded(d.idle(), "every request answered").catch((e) => failures.push(String(e)));
        await tick(5);
      } else if (s.kind === "server") {
        const expected = s.lines.filter(isMessageLine).map((l, n) => {
          try {
            return JSON.parse(l) as unknown;
          } catch (err) {
            throw new Error(`${file}: server line ${n + 1} of section ${serverSections.indexOf(s) + 1} is not JSON: ${(err as Error).message}`, { cause: err });
          }
        });
        // Everything that arrived since the previous section belongs to this one (the next client lines are not sent yet).
        const actual = d.out.slice(seen);
        seen += actual.length;
        actualBySection.set(s, actual);
        expectedBySection.set(s, expected);
        const ok = actual.length === expected.length && expected.every((e, n) => matches(e, actual[n], captures));
        if (!ok)
          failures.push(`server section ${serverSections.indexOf(s) + 1}:\nexpected\n${expected.map((e) => JSON.stringify(e)).join("\n")}\nactual\n${actual.map((a) => JSON.stringify(a)).join("\n")}`);
      }
    }
    if (d.out.length > seen)
      failures.push(
        `unexpected messages after the last server section:\n${d.out
          .slice(seen)
          .map((m) => JSON.stringify(m))
          .join("\n")}`,
      );
  } finally {
    d.eof();
    d.close();
  }
  if (UPDATE && failures.length) writeFileSync(file, format(c, actualBySection, expectedBySection));
  expect(failures, failures.join("\n\n")).toEqual([]);
}

// ---- one test per file ----

const known = new Set(
  readFileSync(join(DIR, "KNOWN_FAILURES"), "utf8")
    .split("\n")
    .map((l) => l.replace(/#.*/, "").trim())
    .filter(Boolean),
);
const revisions = readdirSync(DIR, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

for (const revision of revisions) {
  describe(revision, () => {
    // The revision's validators load once per process (a large module): on a loaded machine that alone can exceed
    // WAIT_MS, which bounds answers, not module loading.
    beforeAll(async () => {
      await Promise.all([rules.validatorsFor(revision as rules.Revision), rules.allValidatorsFor(revision as rules.Revision)]);
    }, 60_000);
    for (const name of readdirSync(join(DIR, revision))
      .filter((f) => f.endsWith(".txt"))
      .sort()) {
      const id = `${revision}/${name}`;
      (known.has(id) && !UPDATE ? it.fails : it)(id, () => runCase(join(DIR, revision, name)));
    }
  });
}

it("every known failure names an existing case", () => {
  const cases = new Set(revisions.flatMap((r) => readdirSync(join(DIR, r)).map((f) => `${r}/${f}`)));
  expect([...known].filter((k) => !cases.has(k))).toEqual([]);
});
