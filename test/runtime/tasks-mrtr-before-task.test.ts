/**
 * 2026-07-28 tasks extension + MRTR: a task-capable tool that asks before any work answers input_required at once
 * (round 1, no task), and the retry with the answer becomes a task. Over real HTTP on 127.0.0.1.
 * spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#task-creation
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type HttpHandle } from "../../runtime/dist/index.js";

const MODERN = "2026-07-28";
const EXT = "io.modelcontextprotocol/tasks";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("tasks extension: an MRTR ask before the task exists", () => {
  let handle: HttpHandle;
  let url: string;
  let n = 0;
  const post = async (method: string, params: Record<string, unknown>) => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, extensions: { [EXT]: {} } },
    };
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN, "mcp-method": method };
    const name = (params.name ?? params.taskId) as string | undefined;
    if (name) headers["mcp-name"] = name;
    const r = await fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: ++n, method, params: { ...params, _meta: meta } }) });
    return (await r.json()) as { result?: Record<string, any>; error?: { code: number; message: string } };
  };

  beforeAll(async () => {
    const server = createServer({ name: "mrtr-task", version: "1.0.0" });
    server.tool({
      name: "ask_first",
      taskSupport: "required",
      inputSchema: { type: "object" },
      handler: async (_args, ctx) => {
        const a = await ctx.elicit({ message: "name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }, { key: "who" });
        await sleep(20);
        return { content: [{ type: "text", text: `hi ${(a.content as { name: string }).name} (task ${ctx.task ? "yes" : "no"})` }] };
      },
    });
    handle = await server.serveHttp({ host: "127.0.0.1", port: 0 });
    url = handle.url;
  });
  afterAll(() => handle.close());

  it("round 1 is input_required (no task); round 2 with the answer is a task that completes", async () => {
    const first = await post("tools/call", { name: "ask_first", arguments: {} });
    expect(first.error).toBeUndefined();
    expect(first.result).toMatchObject({ resultType: "input_required", inputRequests: { who: { method: "elicitation/create" } } });
    expect(first.result!.taskId).toBeUndefined();
    const second = await post("tools/call", { name: "ask_first", arguments: {}, inputResponses: { who: { action: "accept", content: { name: "Alice" } } }, requestState: first.result!.requestState });
    expect(second.result).toMatchObject({ resultType: "task", status: "working" });
    expect(second.result!.requestState).toBeUndefined();
    let got;
    do got = await post("tasks/get", { taskId: second.result!.taskId });
    while (got.result?.status === "working");
    expect(got.result).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "hi Alice (task yes)" }] } });
  });
});
