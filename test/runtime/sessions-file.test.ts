/**
 * The session file of one restarting process (runtime/src/state/sessions-file.ts, env MCP_SESSION_STORE=file:<path>):
 * what one process stored, the next one reads; expired sessions are not carried over; a file that is not a session
 * file is started afresh with one warning; another MCP_SESSION_STORE value stops the endpoint's creation.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createServer, FileSessions } from "../../runtime/dist/index.js";

const dir = mkdtempSync(join(tmpdir(), "cms-session-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("FileSessions", () => {
  it("a session stored, changed and touched by one process is read by the next; a deleted or expired one is not", async () => {
    const path = join(dir, "a.json");
    const first = new FileSessions(path);
    const record = { id: "s-1", revision: "2025-11-25", clientCapabilities: { sampling: {} }, initialized: false, subscriptions: [], principal: { subject: "alice" } };
    await first.put(record, 60_000);
    await first.update("s-1", { initialized: true }, 60_000);
    await first.update("s-1", { subscribe: "app://about" }, 60_000);
    await first.put({ ...record, id: "s-2" }, 60_000);
    await first.delete("s-2");
    await first.put({ ...record, id: "s-3" }, 50);
    await first.close();
    await sleep(200);
    const next = new FileSessions(path);
    expect(await next.get("s-1")).toEqual({ ...record, initialized: true, subscriptions: ["app://about"] });
    expect([await next.has("s-2"), await next.has("s-3"), next.size]).toEqual([false, false, 1]);
    // The expired one is gone from the file too.
    expect(Object.keys(JSON.parse(readFileSync(path, "utf8")))).toEqual(["s-1"]);
  });

  it("a file that is not a session file: one warning line, and no sessions", () => {
    const path = join(dir, "b.json");
    writeFileSync(path, "{ not json");
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(new FileSessions(path).size).toBe(0);
      expect(write.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringMatching(new RegExp(`^mcp runtime: ${path}: not a session file \\(.*\\); starting with no sessions\\n$`))]);
    } finally {
      write.mockRestore();
    }
    expect(readFileSync(path, "utf8")).toBe("{}");
  });

  it("MCP_SESSION_STORE other than file:<path> stops the start (createServer) with a TypeError naming it", () => {
    const before = process.env.MCP_SESSION_STORE;
    process.env.MCP_SESSION_STORE = "redis";
    try {
      expect(() => createServer({ name: "t", version: "1.0.0" })).toThrow(new TypeError("MCP_SESSION_STORE=redis: expected file:<path> (or unset: memory, or Redis with MCP_REDIS_URL)"));
    } finally {
      if (before === undefined) delete process.env.MCP_SESSION_STORE;
      else process.env.MCP_SESSION_STORE = before;
    }
  });
});
