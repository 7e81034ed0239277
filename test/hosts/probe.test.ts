/**
 * The runtime loads and dispatches in each host (step zero, before any HTTP entry point): the probe (probe.ts)
 * answers server/discover and a modern tools/call of `echo` through the in-process Connection API, in Node, Bun,
 * Deno and workerd.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { makeServer } from "./app.js";
import { bundleWorker, type Bundle } from "./bundle.js";
import { BUN, DENO, HOSTS_DIR, TMP, run, startWorkerd } from "./hosts.js";
import { PROBE_VERSION, probe, type ProbeResult } from "./probe.js";

const PROBE_MAIN = join(HOSTS_DIR, "probe-main.ts");

function expectAnswered(result: ProbeResult): void {
  expect(result.discover).toHaveLength(1);
  expect(result.discover[0]).toMatchObject({ jsonrpc: "2.0", id: 1, result: { _meta: { "io.modelcontextprotocol/serverInfo": { name: "hosts-fixture" } } } });
  expect((result.discover[0] as unknown as { result: { supportedVersions: string[] } }).result.supportedVersions).toContain(PROBE_VERSION);
  expect(result.echo).toEqual([expect.objectContaining({ id: 2, result: expect.objectContaining({ content: [{ type: "text", text: "hi" }] }) })]);
}

/** The probe's JSON line from a host's stdout (the runtime may also write to stderr). */
function parseProbe(stdout: string, stderr: string): ProbeResult {
  const line = stdout.trim().split("\n").pop();
  if (!line) throw new Error(`no output; stderr:\n${stderr}`);
  return JSON.parse(line) as ProbeResult;
}

describe("the runtime loads in each host (in-process Connection API)", () => {
  it("Node (this process)", async () => {
    expectAnswered(await probe(makeServer()));
  });

  it("Bun: runs the dist ESM and the TypeScript probe as they are", async () => {
    const r = await run(BUN, ["run", PROBE_MAIN]);
    expect(r.code, r.stderr).toBe(0);
    expectAnswered(parseProbe(r.stdout, r.stderr));
  });

  it("Deno with no permissions at all: env reads refused read as unset, the validator imports are static", async () => {
    // --no-prompt turns each permission Deno would ask for into a refusal: process.env reads throw NotCapable, and a
    // computed import() specifier would need --allow-read. The runtime needs neither.
    const r = await run(DENO, ["run", "--no-prompt", PROBE_MAIN]);
    expect(r.code, r.stderr).toBe(0);
    expectAnswered(parseProbe(r.stdout, r.stderr));
  });

  describe("workerd (miniflare, nodejs_compat), bundled by esbuild", () => {
    let bundle: Bundle;
    let result: { compiled: ProbeResult; precompiled: ProbeResult };
    beforeAll(async () => {
      mkdirSync(TMP, { recursive: true });
      bundle = await bundleWorker(join(HOSTS_DIR, "probe-worker.ts"), join(TMP, "probe-worker.js"));
      const host = await startWorkerd(bundle.outfile);
      try {
        const res = await fetch(`${host.origin}/`);
        expect(res.status, `${await res.clone().text()}\n${host.logs()}`).toBe(200);
        result = (await res.json()) as typeof result;
      } finally {
        await host.stop();
        rmSync(bundle.outfile, { force: true }); // under the checkout (workerd loads no module outside its cwd)
      }
    });

    it("answers with the built runtime bundled as it is (validators precompiled at bundle time)", () => {
      expectAnswered(result.precompiled);
      console.info(`workerd bundle: ${(bundle.bytes / 1048576).toFixed(1)} MiB`);
    });

    it("a tool schema left to the runtime cannot be compiled there: one clear -32603 line naming the remedy", () => {
      expect(result.compiled.discover).toEqual(result.precompiled.discover);
      expect(result.compiled.echo).toEqual([expect.objectContaining({ id: 2, error: expect.objectContaining({ code: -32603 }) })]);
      const message = (result.compiled.echo[0] as unknown as { error: { message: string } }).error.message;
      expect(message).toMatch(/^Internal error: this host cannot compile JSON Schemas at run time \(Code generation from strings disallowed[^)]*\): pass the tool a precompiled validateInput/);
      expect(message).not.toContain("\n");
    });
  });
});
