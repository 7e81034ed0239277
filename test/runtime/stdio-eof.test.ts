// stdin EOF with a handler that never settles: the server aborts it after eofGraceMs and finishes promptly
// (spec/2026-07-28/basic/transports/stdio.mdx#shutdown), in process over PassThrough streams.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createServer } from "../../runtime/dist/index.js";

describe("stdio EOF with a handler that never settles", () => {
  it("aborts the handler after the grace period and returns, with no response for it", async () => {
    const server = createServer({ name: "eof", version: "1.0.0" });
    let aborted = false;
    server.tool({
      name: "never",
      inputSchema: { type: "object" },
      handler: (_args, ctx) =>
        new Promise(() => {
          ctx.signal.addEventListener("abort", () => (aborted = true));
        }),
    });
    const input = new PassThrough();
    const output = new PassThrough();
    let written = "";
    output.on("data", (c: Buffer) => (written += c.toString("utf8")));
    const started = Date.now();
    const served = server.serveStdio({ input, output, exitOnEof: false, eofGraceMs: 200 });
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    input.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "never", arguments: {}, _meta: meta } }) + "\n");
    await served;
    const took = Date.now() - started;
    expect(aborted).toBe(true);
    expect(took).toBeGreaterThanOrEqual(200);
    expect(took).toBeLessThan(5000);
    // A cancelled request gets no response. spec/2026-07-28/basic/patterns/cancellation.mdx
    expect(written).toBe("");
  });
});
