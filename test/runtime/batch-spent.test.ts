/**
 * A 2025-03-26 batch's members after its synchronous start are timed and told to the sink (Sink.spent), which HTTP
 * charges to the caller's share of the event loop (runtime/src/protocol/batch.ts, transport/http/cpu-share.ts):
 * without it a batch of 100 was charged for about 40 % of what it cost the loop (the soak, #20). In-process.
 */
import { expect, it, vi } from "vitest";
import { runBatch } from "../../runtime/src/protocol/batch.js";
import type { Sink } from "../../runtime/src/protocol/request.js";

/** Hold the event loop for `ms` (a synchronous handler's work). */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

const limits = { batchMembers: 100, batchConcurrency: 10, responseBytes: 1024 * 1024 };
const batch = Array.from({ length: 30 }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "tools/call" }));

it("every member started after the first is timed and told to the sink (each at least its own 2 ms); the answer has all 30", async () => {
  const spent: number[] = [];
  const answers: unknown[] = [];
  const sink: Sink = { send: (m) => void answers.push(m), spent: (ms) => void spent.push(ms) };
  await runBatch(batch, {
    // The only revision with batches (spec/2025-03-26/basic/index.mdx#batching), by hand.
    revision: "2025-03-26" as never,
    sink,
    release: () => {},
    limits,
    member: (m, to, admit) => {
      admit();
      spin(2);
      to.send({ jsonrpc: "2.0", id: (m as { id: number }).id, result: {} });
    },
  });
  expect(answers).toHaveLength(1);
  expect(answers[0]).toHaveLength(30);
  // Members 2 to 30 start after the first one's await: 29 timings, none under the 2 ms its member spun.
  expect(spent).toHaveLength(29);
  for (const ms of spent) expect(ms).toBeGreaterThanOrEqual(2);
});

it("a member's response kept later (its handler awaited) is timed too; its start, during the request's own start, is not", async () => {
  const spent: number[] = [];
  const sink: Sink = { send: () => {}, spent: (ms) => void spent.push(ms) };
  await runBatch(batch.slice(0, 1), {
    revision: "2025-03-26" as never,
    sink,
    release: () => {},
    limits,
    member: async (m, to, admit) => {
      admit();
      await Promise.resolve();
      to.send({ jsonrpc: "2.0", id: (m as { id: number }).id, result: { text: "x".repeat(100_000) } });
    },
  });
  expect(spent).toHaveLength(1);
});

it("over HTTP, the members' time is charged to the caller (Exchange.spent): a charge per member after the first", async () => {
  const { createServer } = await import("../../runtime/src/index.js");
  const { CpuShare } = await import("../../runtime/src/transport/http/cpu-share.js");
  const server = createServer({ name: "batches", version: "1.0.0" });
  server.tool({
    name: "spin",
    inputSchema: { type: "object" },
    handler: () => {
      spin(2);
      return { content: [{ type: "text", text: "spun" }] };
    },
  });
  const handle = await server.serveHttp({ port: 0, quiet: true, limits: { cpuShareFactor: 4 } });
  // Each charge of a caller: its number (the window of the POST, its answer's write, one per member timed later).
  const charged = new Map<string, number[]>();
  const charge = vi.spyOn(CpuShare.prototype, "charge").mockImplementation(function (this: unknown, caller, ms) {
    if (caller !== undefined) charged.set(caller, [...(charged.get(caller) ?? []), ms]);
  });
  try {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const post = (h: Record<string, string>, body: unknown) => fetch(handle.url, { method: "POST", headers: { ...headers, ...h }, body: JSON.stringify(body) });
    const init = await post({}, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
    await init.text();
    const session = { "mcp-session-id": init.headers.get("mcp-session-id")! };
    await (await post(session, { jsonrpc: "2.0", method: "notifications/initialized" })).text();
    const members = Array.from({ length: 30 }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { name: "spin", arguments: {} } }));
    // Once first: the first call compiles what it needs (schemas), which is charged too.
    await (await post(session, members)).json();
    charged.clear();
    const answer = await (await post(session, members)).json();
    expect(answer).toHaveLength(30);
    expect([...charged.keys()]).toEqual(["address 127.0.0.1"]);
    // The POST's own start and its answer's write are two charges; each member started or answered after them is
    // one more (without Exchange.spent: none).
    const charges = charged.get("address 127.0.0.1")!;
    expect(charges.length).toBeGreaterThanOrEqual(2 + 29);
  } finally {
    charge.mockRestore();
    await handle.close();
  }
});

it("a batch's members start in slices of about 1 ms of the event loop: I/O waiting since the batch's start is served between (protocol/turns.ts)", async () => {
  const order: string[] = [];
  // Due after the next poll, as a request that arrived during the batch's start would be.
  setImmediate(() => order.push("other request"));
  await runBatch(batch, {
    revision: "2025-03-26" as never,
    sink: { send: () => {} },
    release: () => {},
    limits,
    member: (m, to, admit) => {
      admit();
      // 0.4 ms each: 30 members hold the loop 12 ms, about 12 slices.
      spin(0.4);
      order.push(`member ${(m as { id: number }).id}`);
      to.send({ jsonrpc: "2.0", id: (m as { id: number }).id, result: {} });
    },
  });
  const other = order.indexOf("other request");
  // Served within the first slices (about 3 members each), long before the last member.
  expect(other).toBeGreaterThan(0);
  expect(other).toBeLessThan(10);
  expect(order.filter((o) => o.startsWith("member"))).toHaveLength(30);
});
