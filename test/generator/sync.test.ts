/**
 * `schemas sync` provides every pinned file (schemas, examples, spec pages) from a mirror laid out as CI's or from
 * the pinned URLs, and refuses a file whose sha256 differs, naming it and overwriting nothing; `schemas pin`
 * rebuilds the pins from a mirror. In temporary folders, with mirrors made of the synced copy and a loopback server.
 */
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Manifest, loadManifest, pinnedFiles } from "../../generator/manifest.js";
import { pinFiles, pinsFromMirror } from "../../generator/pin.js";
import { syncSchemas } from "../../generator/sync.js";
import { SYNCED, mirrorOfSynced, synced } from "../helpers.js";

const tmp = mkdtempSync(join(tmpdir(), "cms-sync-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const manifest = loadManifest(join(SYNCED, "manifest.json"));
const mirror = mirrorOfSynced(join(tmp, "mirror"));
const PAGE = "spec/2025-11-25/basic/transports.mdx";

/** A schemas folder holding only the manifest, as a fresh clone has it. */
function freshSchemas(name: string, m: Manifest = manifest): string {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(m));
  return dir;
}

describe("schemas sync from a mirror", () => {
  it("provides every pinned file, the spec pages from <mirror>/../spec, and a second sync writes nothing", async () => {
    const dir = freshSchemas("all");
    const first = await syncSchemas(manifest, { mirror, schemasDir: dir });
    expect(first.written.length).toBe(pinnedFiles(manifest).length);
    for (const path of [PAGE, "2026-07-28/examples/CallToolResult/result-with-structured-content.json", "draft/schema.ts"]) {
      expect(readFileSync(join(dir, path))).toEqual(readFileSync(synced(path)));
    }
    const again = await syncSchemas(manifest, { mirror, schemasDir: dir });
    expect([again.written.length, again.unchanged.length]).toEqual([0, first.written.length]);
  });

  it("refuses a tampered spec page, naming it, and overwrites nothing", async () => {
    const dir = freshSchemas("tampered");
    await syncSchemas(manifest, { mirror, schemasDir: dir });
    // What a later sync must repair or add: an edited example, removed pages (the tampered one among them).
    const example = join(dir, "2026-07-28", "examples", "CallToolRequest", "call-tool-request.json");
    writeFileSync(example, "{}\n");
    rmSync(join(dir, "spec", "2026-07-28", "server", "tools.mdx"));
    rmSync(join(dir, PAGE));
    const page = join(tmp, "mirror", PAGE);
    writeFileSync(page, readFileSync(page, "utf8").replace("MUST", "SHOULD"));
    try {
      await expect(syncSchemas(manifest, { mirror, schemasDir: dir })).rejects.toThrow(`${page}: sha256 mismatch: expected ${manifest.files![PAGE].sha256}`);
      expect(readFileSync(example, "utf8")).toBe("{}\n");
      expect(existsSync(join(dir, "spec", "2026-07-28", "server", "tools.mdx"))).toBe(false);
      expect(existsSync(join(dir, PAGE))).toBe(false);
    } finally {
      copyFileSync(synced(PAGE), page);
    }
  });

  it("names the file and the layout when the mirror has no spec pages beside it", async () => {
    const bare = join(tmp, "bare", "schemas");
    mkdirSync(join(bare, "2024-11-05"), { recursive: true });
    for (const f of ["schema.ts", "schema.json"]) copyFileSync(synced(`2024-11-05/${f}`), join(bare, "2024-11-05", f));
    const only = { ...manifest, revisions: manifest.revisions.slice(0, 1), files: { [PAGE]: manifest.files![PAGE] } };
    const dir = freshSchemas("bare", only);
    await expect(syncSchemas(only, { mirror: bare, schemasDir: dir })).rejects.toThrow(
      `${join(tmp, "bare", PAGE)}: missing (mirror ${bare} has no ${PAGE}; spec pages belong in ${join(tmp, "bare", "spec")}/)`,
    );
    expect(existsSync(join(dir, "2024-11-05"))).toBe(false);
  });
});

describe("schemas sync without a mirror", () => {
  it("downloads each pinned URL, and refuses a download whose sha256 differs", async () => {
    const paths = [PAGE, "spec/extensions/tasks/seps/2663-tasks-extension.md", "2026-07-28/examples/TextContent/text-content.json"];
    let tamper = true;
    const server = createServer((req, res) => {
      const path = decodeURIComponent(req.url!.slice(1));
      if (!paths.includes(path)) return void res.writeHead(404).end();
      const data = readFileSync(synced(path));
      res.end(tamper && path === PAGE ? Buffer.concat([data, Buffer.from("\n")]) : data);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const files = Object.fromEntries(paths.map((p) => [p, { ...manifest.files![p], url: `${base}/${p}` }]));
      const served: Manifest = { ...manifest, revisions: [], files };
      const dir = freshSchemas("download", served);
      await expect(syncSchemas(served, { schemasDir: dir })).rejects.toThrow(`${base}/${PAGE}: sha256 mismatch`);
      expect(existsSync(join(dir, "spec"))).toBe(false);
      tamper = false;
      const r = await syncSchemas(served, { schemasDir: dir });
      expect(r.written.length).toBe(3);
      for (const p of paths) expect(readFileSync(join(dir, p))).toEqual(readFileSync(synced(p)));
    } finally {
      server.close();
    }
  });
});

describe("schemas pin", () => {
  const TASKS = "spec/extensions/tasks";
  const listed = [`${TASKS}/seps/2663-tasks-extension.md`, `${TASKS}/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md`];
  const sourceMd = [
    "# Provenance",
    "",
    "| File (relative to this folder) | Upstream repo | Upstream path | Commit | Bytes |",
    "|---|---|---|---|---|",
    "| `seps/2663-tasks-extension.md` | modelcontextprotocol/experimental-ext-tasks | `seps/2663-tasks-extension.md` | `a95095993622bc5b0f1746bbaffa976e1247baca` | 48871 |",
    "| `modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md` (extra) | modelcontextprotocol/ext-tasks | `specification/2026-07-28/tasks.md` | `fb6108422063359769cda7a9dede17ca15e29ade` | 34148 |",
    "",
  ].join("\n");

  it("rebuilds the committed pins from a mirror: pages, examples and the draft by layout, an extension's files from its SOURCE.md", () => {
    const m = join(tmp, "pin-mirror");
    const schemasMirror = mirrorOfSynced(m);
    writeFileSync(join(m, TASKS, "SOURCE.md"), sourceMd);
    writeFileSync(join(m, TASKS, "NOTES.md"), "the mirror's own notes, not upstream's\n");
    const expected = Object.fromEntries(Object.entries(manifest.files!).filter(([p]) => !p.startsWith(`${TASKS}/`) || listed.includes(p)));
    expect(pinsFromMirror(manifest, schemasMirror)).toEqual(expected);
  });

  it("pins a new page of a revision in one command, and lists it", () => {
    const m = join(tmp, "pin-new");
    const schemasMirror = mirrorOfSynced(m);
    writeFileSync(join(m, TASKS, "SOURCE.md"), sourceMd);
    writeFileSync(join(m, "spec", "2026-07-28", "new-page.mdx"), "# New\n");
    const dir = freshSchemas("pin-new");
    const report = pinFiles({ schemasDir: dir, mirror: schemasMirror });
    expect(report).toContain("+ spec/2026-07-28/new-page.mdx");
    expect(report).toContain(`- ${TASKS}/README.md`);
    const pinned = loadManifest(join(dir, "manifest.json")).files!["spec/2026-07-28/new-page.mdx"];
    expect(pinned).toEqual({
      url: `https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol/${manifest.commit}/docs/specification/2026-07-28/new-page.mdx`,
      sha256: createHash("sha256").update("# New\n").digest("hex"),
      bytes: 6,
    });
  });
});
