// A modern request whose client went away while it waited to run (here: its method's validator loading, on the
// method's first call in this process) is not started and leaves nothing behind. Its own file, so that the methods'
// validators are usually not loaded yet; when a load wins the race, the request starts before the client is seen gone
// and is cancelled then, which passes too: what must never happen is a handler started for a client already gone.
// spec/2026-07-28/basic/transports/streamable-http.mdx#cancellation
import { describe, expect, it } from "vitest";
import { createServer } from "../../runtime/dist/index.js";

const MODERN = "2026-07-28";
const meta = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} };
const post = (id: number, method: string, params: Record<string, unknown>, signal?: AbortSignal): Request =>
  new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }),
    signal,
  });

describe("a client gone while its request waited to run", () => {
  it("no handler starts for it (a tool's, a subscriptions/listen), and nothing stays registered", async () => {
    const server = createServer({ name: "gone-fixture", version: "1.0.0" });
    let started = 0;
    let startedGone = 0;
    server.tool({
      name: "slow",
      inputSchema: { type: "object" },
      handler: (_args, ctx) => {
        started++;
        if (ctx.signal.aborted) startedGone++;
        return new Promise((resolve) => setTimeout(() => resolve({ content: [] }), 200));
      },
    });
    const h = server.fetchHandler();
    const listeners = () => (server as unknown as { listeners: Set<unknown> }).listeners.size;
    const before = listeners();
    const gone = AbortSignal.abort();
    expect((await h(post(1, "tools/call", { name: "slow", arguments: {} }, gone))).status).toBe(499);
    // 499, or 200 when the listen won the race and opened its stream before the client was seen gone (then it ends).
    await h(post(2, "subscriptions/listen", { notifications: { toolsListChanged: true } }, gone));
    await new Promise((r) => setTimeout(r, 50));
    expect(startedGone).toBe(0);
    expect(listeners()).toBe(before);
    // A client that stays is served.
    const res = await h(post(3, "tools/call", { name: "slow", arguments: {} }));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"id":3');
    expect(startedGone).toBe(0);
    expect(started).toBeGreaterThanOrEqual(1);
    await h.close();
  });
});
