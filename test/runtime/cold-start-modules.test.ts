/**
 * What a stdio server's start loads of Node, measured on a real child process: serving a legacy session (initialize,
 * then a tools/call) or a 2026-07-28 tools/call without progress or OpenTelemetry must not load perf_hooks. The first
 * read of `performance` loads it (0.6-0.9 ms of a cold start on a 2-core machine); the output pacing reads the clock
 * only once progress is in play, and a session's start time is taken only for OpenTelemetry (bench/README.md, cold
 * start). A progress notification does read it, which shows the check sees the module when it loads.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

const runtime = pathToFileURL(join(ROOT, "runtime", "dist", "index.js")).href;
const SERVER = `
import { createServer } from ${JSON.stringify(runtime)};
process.on("exit", () => process.stderr.write("perf_hooks " + process.moduleLoadList.includes("NativeModule perf_hooks") + "\\n"));
const server = createServer({ name: "cold", version: "1.0.0" });
server.tool({
  name: "echo",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  handler: ({ text }, ctx) => {
    if (text === "with progress") ctx.progress(1, 2);
    return { content: [{ type: "text", text }] };
  },
});
await server.serveStdio();
`;

/** Run the server on `lines` (then EOF): its stdout lines and whether perf_hooks was loaded when it exited. */
function serve(lines: object[]): Promise<{ out: unknown[]; perfHooks: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", SERVER], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", () => {
      const flag = /^perf_hooks (true|false)$/m.exec(err);
      if (!flag) return reject(new Error(`no perf_hooks line; stderr: ${err}`));
      resolve({
        out: out
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
        perfHooks: flag[1] === "true",
      });
    });
    // One line at a time, each after the answer to the one before (a client waits for initialize's result).
    let sent = 0;
    const next = () => {
      if (sent === lines.length) return void child.stdin.end();
      child.stdin.write(JSON.stringify(lines[sent++]) + "\n");
    };
    child.stdout.on("data", () => setImmediate(next));
    next();
  });
}

const call = (id: number, text: string, meta?: object) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text }, ...(meta ? { _meta: meta } : {}) } });
const modernMeta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

describe("a stdio server's cold start", () => {
  it("serves a legacy session and a 2026-07-28 call without loading perf_hooks", async () => {
    const legacy = await serve([{ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } }, call(1, "hi")]);
    expect(legacy.out.map((m) => (m as { id: number }).id)).toEqual([0, 1]);
    expect(legacy.perfHooks).toBe(false);

    const modern = await serve([call(1, "hi", modernMeta)]);
    expect((modern.out[0] as { result: { content: unknown } }).result.content).toEqual([{ type: "text", text: "hi" }]);
    expect(modern.perfHooks).toBe(false);
  });

  it("loads it once a progress notification is in play (the check sees it)", async () => {
    const r = await serve([call(1, "with progress", { ...modernMeta, progressToken: "p" })]);
    expect(r.out.map((m) => (m as { method?: string }).method ?? "response")).toEqual(["notifications/progress", "response"]);
    expect(r.perfHooks).toBe(true);
  });
});
