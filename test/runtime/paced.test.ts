/** PacedOutput (runtime/src/paced.ts): a response waits SETTLE_MS after a progress notification written before it; nothing else waits. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PacedOutput, SETTLE_MS } from "../../runtime/dist/runtime/src/transport/paced.js";

const progress = (n: number) => ({ jsonrpc: "2.0" as const, method: "notifications/progress", params: { progressToken: 1, progress: n } });
const log = { jsonrpc: "2.0" as const, method: "notifications/message", params: { level: "info", data: "x" } };
const response = (id: number) => ({ jsonrpc: "2.0" as const, id, result: {} });
const line = (m: object) => JSON.stringify(m) + "\n";

describe("PacedOutput", () => {
  let writes: { at: number; text: string }[];
  const writer = (chunk: string) => void writes.push({ at: performance.now(), text: chunk });
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "performance"] });
    writes = [];
  });
  afterEach(() => vi.useRealTimers());

  it("batches a tick's responses eight to a write when no progress precedes them, the rest at the tick's end (the pipelined path)", () => {
    const out = new PacedOutput(writer, true);
    for (let id = 1; id <= 7; id++) out.push(line(response(id)), response(id));
    expect(writes).toEqual([]);
    out.push(line(response(8)), response(8));
    expect(writes.map((w) => w.text)).toEqual([[1, 2, 3, 4, 5, 6, 7, 8].map((id) => line(response(id))).join("")]);
    for (let id = 9; id <= 64; id++) out.push(line(response(id)), response(id));
    out.push(line(log), log);
    expect(writes).toHaveLength(8);
    expect(writes[7].text).toBe([57, 58, 59, 60, 61, 62, 63, 64].map((id) => line(response(id))).join(""));
    vi.advanceTimersToNextTimer();
    expect(writes).toHaveLength(9);
    expect(writes[8].text).toBe(line(log));
  });

  it("writes progress of one tick at once and the response after it SETTLE_MS later, in a write of its own", async () => {
    const out = new PacedOutput(writer, true);
    for (const n of [0, 50, 100]) out.push(line(progress(n)), progress(n));
    out.push(line(response(1)), response(1));
    const idle = out.idle();
    vi.advanceTimersToNextTimer();
    expect(writes.map((w) => w.text)).toEqual([line(progress(0)) + line(progress(50)) + line(progress(100))]);
    vi.advanceTimersByTime(SETTLE_MS - 1);
    expect(writes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(writes.map((w) => w.text)).toEqual([line(progress(0)) + line(progress(50)) + line(progress(100)), line(response(1))]);
    expect(writes[1].at - writes[0].at).toBeGreaterThanOrEqual(SETTLE_MS);
    await idle;
  });

  it("lets notifications pass a waiting response, and later progress does not hold it longer", () => {
    const out = new PacedOutput(writer, false);
    out.push(line(progress(1)), progress(1));
    vi.advanceTimersByTime(5);
    out.push(line(response(1)), response(1));
    vi.advanceTimersByTime(5);
    out.push(line(log), log);
    out.push(line(progress(2)), progress(2));
    expect(writes.map((w) => w.text)).toEqual([line(progress(1)), line(log), line(progress(2))]);
    // Due SETTLE_MS after progress(1), not after progress(2): progress written after a response is not its request's.
    vi.advanceTimersByTime(SETTLE_MS - 10);
    expect(writes.map((w) => w.text)).toEqual([line(progress(1)), line(log), line(progress(2)), line(response(1))]);
    expect(writes[3].at - writes[0].at).toBe(SETTLE_MS);
  });

  it("keeps responses in order: one queued behind a waiting response waits behind it", () => {
    const out = new PacedOutput(writer, false);
    out.push(line(progress(1)), progress(1));
    out.push(line(response(1)), response(1));
    vi.advanceTimersByTime(SETTLE_MS + 5);
    out.push(line(response(2)), response(2));
    expect(writes.map((w) => w.text)).toEqual([line(progress(1)), line(response(1)), line(response(2))]);
  });

  it("writes nothing after close, and idle() resolves", async () => {
    const out = new PacedOutput(writer, false);
    out.push(line(progress(1)), progress(1));
    out.push(line(response(1)), response(1));
    const idle = out.idle();
    out.close();
    await idle;
    vi.advanceTimersByTime(SETTLE_MS * 2);
    out.push(line(response(2)), response(2));
    expect(writes.map((w) => w.text)).toEqual([line(progress(1))]);
  });
});
