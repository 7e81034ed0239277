/**
 * Schema errata (SCHEMA_ERRATA in generator/overlay.ts): the failing inputs of the issue now validate, a changed
 * upstream value stops generation with one line, every erratum cites a declaration that exists in its revision's
 * schema.ts and a spec section that exists, and an audit of every definition of every revision finds no
 * difference between schema.json and schema.ts left besides the reviewed, intended integers.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Project } from "ts-morph";
import { afterAll, describe, expect, it } from "vitest";
import { auditSchema, type AuditFinding } from "../../generator/audit.js";
import { applyErrata, errataFor } from "../../generator/errata.js";
import { render } from "../../generator/render.js";
import { SCHEMA_FILES, loadManifest } from "../../generator/manifest.js";
import { SCHEMA_ERRATA } from "../../generator/overlay.js";
import { sha256 } from "../../generator/sync.js";
import { OUT, ROOT, synced } from "../helpers.js";

type Validator = ((d: unknown) => boolean) & { errors?: unknown };
const manifest = loadManifest(join(ROOT, "schemas", "manifest.json"));
const revisions = manifest.revisions.map((r) => r.id);
const upstream = (rev: string, file: string) => readFileSync(synced(`${rev}/${file}`), "utf8");
const all = async (rev: string) => (await import(join(OUT, rev, "validators.js"))) as Record<string, Validator>;
const dispatch = async (rev: string) => (await import(join(OUT, rev, "dispatch-validators.js"))) as Record<string, Record<string, Validator>>;
/** The revisions whose ElicitResult the issue names; each must have elicitation. */
const elicitingRevisions = [...new Set(SCHEMA_ERRATA.filter((e) => e.pointer.includes("/ElicitResult/")).map((e) => e.revision))];

describe("the issue's failing inputs validate after the errata", () => {
  it("names the three revisions with a fractional elicitation answer", () => {
    expect(elicitingRevisions).toEqual(["2025-06-18", "2025-11-25", "2026-07-28"]);
  });

  it.each(elicitingRevisions)("%s: an elicitation answer {score: 0.7} for a number field is accepted, as the client's answer too", async (rev) => {
    const answer = { action: "accept", content: { score: 0.7 } };
    const { validateElicitResult } = await all(rev);
    expect(validateElicitResult(answer), JSON.stringify(validateElicitResult.errors)).toBe(true);
    // What the runtime checks a client's answer with (legacy: the elicitation/create result; modern: the input response).
    const { answerValidators } = await dispatch(rev);
    expect(answerValidators["elicitation/create"](answer)).toBe(true);
    // The erratum widens integer to number, nothing more: an object or a null answer is still rejected.
    expect(validateElicitResult({ action: "accept", content: { score: { value: 0.7 } } })).toBe(false);
    expect(validateElicitResult({ action: "accept", content: { score: null } })).toBe(false);
  });

  it("2026-07-28: a request whose clientCapabilities.experimental holds a decimal or a null passes the dispatch validator", async () => {
    const { clientRequestValidators } = await dispatch("2026-07-28");
    const request = (experimental: unknown) => ({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": { experimental },
        },
      },
    });
    const validate = clientRequestValidators["tools/list"];
    expect(validate(request({ rateLimit: { perSecond: 2.5, burst: null, tags: [0.5, null] } })), JSON.stringify(validate.errors)).toBe(true);
    // schema.ts still says { [key: string]: JSONObject }: a bare decimal or null is no capability object.
    expect(validate(request({ rateLimit: 2.5 }))).toBe(false);
    expect(validate(request({ rateLimit: null }))).toBe(false);
  });
});

describe("a changed upstream value fails loudly", () => {
  it.each(SCHEMA_ERRATA.map((e, i) => ({ ...e, i })))("$revision $pointer", (e) => {
    const json = JSON.parse(upstream(e.revision, "schema.json"));
    // Upstream as published: patched, and the input is left as it was.
    const patched = applyErrata(e.revision, json, "schema.json") as Record<string, unknown>;
    expect(valueAt(patched, e.pointer)).toEqual(e.replacement);
    expect(valueAt(json, e.pointer)).toEqual(e.expected);
    // Upstream changed the value (here: fixed it): one line naming the revision and the pointer.
    setAt(json, e.pointer, e.replacement);
    expect(() => applyErrata(e.revision, json, "schema.json")).toThrowError(
      new RegExp(`^schema\\.json: schema erratum ${e.revision} ${escapeRe(e.pointer)} no longer matches upstream: expected .*SCHEMA_ERRATA.*$`),
    );
    const message = (() => {
      try {
        applyErrata(e.revision, json, "schema.json");
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(message).not.toContain("\n");
  });

  it("a pointer that no longer exists is reported, not skipped", () => {
    const e = SCHEMA_ERRATA[0];
    const json = JSON.parse(upstream(e.revision, "schema.json"));
    const defs = json.$defs ?? json.definitions;
    delete defs.ElicitResult;
    expect(() => applyErrata(e.revision, json, "schema.json")).toThrowError(`schema.json: schema erratum ${e.revision} ${e.pointer} no longer exists upstream`);
  });

  const tmp = mkdtempSync(join(tmpdir(), "errata-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  it("generation stops when a newly pinned schema.json no longer has the defect", async () => {
    const e = SCHEMA_ERRATA.find((x) => x.pointer.includes("/JSONValue/"))!;
    const schemas = join(tmp, "schemas");
    mkdirSync(join(schemas, e.revision), { recursive: true });
    for (const f of SCHEMA_FILES) copyFileSync(synced(`${e.revision}/${f}`), join(schemas, e.revision, f));
    const json = JSON.parse(upstream(e.revision, "schema.json"));
    setAt(json, e.pointer, e.replacement);
    const text = JSON.stringify(json, null, 2);
    writeFileSync(join(schemas, e.revision, "schema.json"), text);
    const pinned = manifest.revisions.find((r) => r.id === e.revision)!;
    const files = { ...pinned.files, "schema.json": { ...pinned.files["schema.json"], sha256: sha256(text), bytes: Buffer.byteLength(text) } };
    writeFileSync(join(schemas, "manifest.json"), JSON.stringify({ ...manifest, revisions: [{ ...pinned, files }] }));
    await expect(render({ schemasDir: schemas })).rejects.toThrowError(`schema erratum ${e.revision} ${e.pointer} no longer matches upstream`);
  });
});

describe("every erratum cites a real declaration and spec section", () => {
  const CITE = /^schemas\/([^/]+)\/schema\.ts: (\w+)(?:\.(\w+))? is `(.+)`$/;
  it.each(SCHEMA_ERRATA)("$revision $pointer", (e) => {
    expect(revisions).toContain(e.revision);
    const m = CITE.exec(e.cite);
    expect(m, e.cite).not.toBeNull();
    const [, rev, name, field, tsType] = m!;
    expect(rev).toBe(e.revision);
    // The pointer patches the cited definition.
    expect(e.pointer).toMatch(new RegExp(`^/(\\$defs|definitions)/${name}/`));
    const sf = new Project({ useInMemoryFileSystem: true }).createSourceFile("/schema.ts", upstream(rev, "schema.ts"));
    const declared = field ? sf.getInterface(name)?.getProperty(field)?.getTypeNode()?.getText() : sf.getTypeAlias(name)?.getTypeNode()?.getText();
    expect(declared, `${name}${field ? `.${field}` : ""} not declared in ${rev}/schema.ts`).toBeDefined();
    expect(declared!.replace(/\s+/g, " ").trim()).toBe(tsType);
    // The spec section the reasoning cites exists.
    const spec = /spec\/(\S+\.mdx)#(\S+)$/.exec(e.why);
    expect(spec, e.why).not.toBeNull();
    const file = synced(`spec/${spec![1]}`);
    expect(existsSync(file), file).toBe(true);
    const slug = (h: string) =>
      h
        .toLowerCase()
        .replace(/[`*]/g, "")
        .replace(/[^a-z0-9 _-]/g, "")
        .trim()
        .replace(/\s+/g, "-");
    const headings = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) => slug(l.replace(/^#+ /, "")));
    expect(headings).toContain(spec![2]);
  });

  it("keys errata by pinned revision only, so an added revision (the draft) is used as published", () => {
    expect(errataFor("draft")).toEqual([]);
    const draft = JSON.parse(upstream("draft", "schema.json"));
    expect(applyErrata("draft", draft, "schema.json")).toBe(draft);
  });
});

/**
 * Differences between schema.json and schema.ts that are intended: upstream renders TypeScript `number` as JSON
 * `integer` by default (spec/2026-07-28/changelog.mdx#other-schema-changes), and for these the prose says, or the
 * meaning implies, an integer. Only "JSON rejects fractions" is accepted for them; nothing else.
 */
const INTENDED_INTEGERS: { test: (f: AuditFinding) => boolean; why: string }[] = [
  { test: (f) => /^(RequestId|ProgressToken)( \| undefined)?$/.test(f.tsType ?? ""), why: "ids and progress tokens MUST be a string or integer (basic/index.mdx#requests, progress.mdx)" },
  { test: (f) => /\/code$/.test(f.pointer), why: "error codes MUST be integers (basic/index.mdx#error-codes)" },
  { test: (f) => /\/ttlMs$/.test(f.pointer), why: "ttlMs is an integer value in milliseconds (2026-07-28 server/utilities/caching.mdx)" },
  { test: (f) => /\/(ttl|pollInterval)$/.test(f.pointer), why: "task durations in milliseconds" },
  { test: (f) => /\/(size|maxTokens|total|minLength|maxLength|minItems|maxItems)$/.test(f.pointer), why: "byte, token, item and character counts" },
];
const intended = (f: AuditFinding) => f.problem === "json-rejects" && f.kinds?.join() === "fraction" && INTENDED_INTEGERS.some((i) => i.test(f));

describe("audit of every definition of every revision: schema.json against schema.ts", () => {
  it.each(revisions)("%s: only reviewed differences remain once the errata are applied, and each erratum fixes one the audit found", (rev) => {
    const ts = upstream(rev, "schema.ts");
    const json = JSON.parse(upstream(rev, "schema.json"));
    const before = auditSchema(ts, json).filter((f) => !intended(f));
    const after = auditSchema(ts, applyErrata(rev, json, "schema.json")).filter((f) => !intended(f));
    expect(after.map((f) => `${f.pointer}: ${f.message}`)).toEqual([]);
    // Every defect found before is under the pointer of one of this revision's errata (or inherits one through a $ref).
    for (const e of errataFor(rev))
      expect(
        before.some((f) => e.pointer.startsWith(`${f.pointer}/`)),
        `${e.pointer} fixes nothing the audit found`,
      ).toBe(true);
    expect(before.length > 0).toBe(errataFor(rev).length > 0);
  });

  it("detects what it is meant to: a mutated schema.json yields one finding per kind of defect", () => {
    const rev = "2025-11-25";
    const json = JSON.parse(upstream(rev, "schema.json"));
    json.$defs.ProgressNotificationParams.properties.progress.type = "integer";
    json.$defs.Tool.required = json.$defs.Tool.required.filter((x: string) => x !== "name");
    json.$defs.CallToolRequestParams.properties.arguments.additionalProperties = { type: "object" };
    json.$defs.TextContent.properties.type.const = "txt";
    delete json.$defs.Root.properties.name;
    const found = auditSchema(upstream(rev, "schema.ts"), applyErrata(rev, json, "schema.json")).filter((f) => !intended(f));
    expect(found.map((f) => `${f.pointer} ${f.problem}`).sort()).toEqual([
      "/$defs/CallToolRequestParams/properties/arguments/additionalProperties json-rejects",
      "/$defs/ProgressNotificationParams/properties/progress json-rejects",
      "/$defs/Root/properties/name missing-property",
      "/$defs/TextContent/properties/type literals",
      "/$defs/Tool/required optional",
    ]);
  });
});

function tokens(pointer: string): string[] {
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}
function valueAt(doc: unknown, pointer: string): unknown {
  return tokens(pointer).reduce<unknown>((n, t) => (n as Record<string, unknown>)[t], doc);
}
function setAt(doc: unknown, pointer: string, value: unknown): void {
  const path = tokens(pointer);
  const last = path.pop()!;
  (path.reduce<unknown>((n, t) => (n as Record<string, unknown>)[t], doc) as Record<string, unknown>)[last] = value;
}
function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
