/**
 * Handler failures, over real child processes (stdio) and real HTTP on 127.0.0.1, in both eras: each is ONE record
 * through the server's logger, with its method, what the request named, the request id, the legacy session, the
 * principal's subject (never a token), the error's message and stack and an error id; the client gets what the spec
 * says (a tool's isError result, spec/2025-11-25/server/tools.mdx#error-handling, or the JSON-RPC error), with the
 * exception text only when exposeErrors is on, else "Internal error (id <errorId>)". Expectations are written by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./http-helpers.js";
import { LEGACY, MODERN, type Msg, type Peer, httpPeer, records, recordsOf, stdioPeer } from "./failures-helpers.js";

const ERROR_ID = /^[0-9a-f]{16}$/;
const hidden = (errorId: string) => `Internal error (id ${errorId})`;

/**
 * Each failure shape: the request, what names it in the record, and what the client is told with exposeErrors on
 * (`exposed`), written by hand. `tool` true: the answer is the tool's isError result, else a JSON-RPC error of `code`.
 */
interface Shape {
  title: string;
  method: string;
  params: Record<string, unknown>;
  named: Record<string, string>;
  code?: number;
  exposed: string;
  /** What the record's error says. */
  error: { message: string; stack: boolean };
}
const SHAPES: Shape[] = [
  {
    title: "a tool that throws an Error",
    method: "tools/call",
    params: { name: "throws", arguments: {} },
    named: { tool: "throws" },
    exposed: "the weather API key is missing",
    error: { message: "the weather API key is missing", stack: true },
  },
  {
    title: "a tool that throws a string",
    method: "tools/call",
    params: { name: "throws_string", arguments: {} },
    named: { tool: "throws_string" },
    exposed: "a string was thrown",
    error: { message: "a string was thrown", stack: false },
  },
  {
    title: "a tool that rejects after an await",
    method: "tools/call",
    params: { name: "rejects", arguments: {} },
    named: { tool: "rejects" },
    exposed: "rejected after an await",
    error: { message: "rejected after an await", stack: true },
  },
  {
    title: "a tool whose content is not an array",
    method: "tools/call",
    params: { name: "not_array", arguments: {} },
    named: { tool: "not_array" },
    code: -32603,
    exposed: "tool not_array returned no content array",
    error: { message: "tool not_array returned no content array", stack: true },
  },
  {
    title: "a tool whose structuredContent fails its outputSchema",
    method: "tools/call",
    params: { name: "bad_output", arguments: {} },
    named: { tool: "bad_output" },
    code: -32603,
    exposed: "tool bad_output returned structuredContent that does not match its outputSchema: /sum must be number",
    error: { message: "tool bad_output returned structuredContent that does not match its outputSchema: /sum must be number", stack: true },
  },
  {
    title: "a prompt that throws",
    method: "prompts/get",
    params: { name: "prompt_throws" },
    named: { prompt: "prompt_throws" },
    code: -32603,
    exposed: "Internal error: prompt secret text",
    error: { message: "prompt secret text", stack: true },
  },
  {
    title: "a prompt without messages",
    method: "prompts/get",
    params: { name: "no_messages" },
    named: { prompt: "no_messages" },
    code: -32603,
    exposed: "prompt no_messages returned no messages array",
    error: { message: "prompt no_messages returned no messages array", stack: true },
  },
  {
    title: "a resource that rejects",
    method: "resources/read",
    params: { uri: "res://throws" },
    named: { uri: "res://throws" },
    code: -32603,
    exposed: "Internal error: resource secret text",
    error: { message: "resource secret text", stack: true },
  },
  {
    title: "a completer that throws",
    method: "completion/complete",
    params: { ref: { type: "ref/prompt", name: "prompt_throws" }, argument: { name: "topic", value: "x" } },
    named: { prompt: "prompt_throws" },
    code: -32603,
    exposed: "Internal error: completer secret text",
    error: { message: "completer secret text", stack: true },
  },
];

/**
 * The one record of request `id`, checked field by field. Stderr and the answer travel apart (another pipe, or the
 * HTTP response), so its record is waited for (bounded); `settled` checks later that no second one followed.
 */
async function oneRecord(peer: Peer, id: number, method: string): Promise<Msg> {
  await waitFor(() => recordsOf(peer, id).length > 0);
  const mine = recordsOf(peer, id);
  expect(mine, `records of request ${id}: ${JSON.stringify(mine)}`).toHaveLength(1);
  const [r] = mine;
  expect(r.method).toBe(method);
  expect(r.errorId).toMatch(ERROR_ID);
  return r;
}

const PEERS: [string, (env: Record<string, string>) => Promise<Peer>][] = [
  [`stdio ${LEGACY}`, (env) => stdioPeer(LEGACY, env)],
  [`stdio ${MODERN}`, (env) => stdioPeer(MODERN, env)],
  [`HTTP ${LEGACY} (session)`, (env) => httpPeer(LEGACY, env)],
  [`HTTP ${MODERN}`, (env) => httpPeer(MODERN, env)],
];

for (const [where, open] of PEERS) {
  for (const expose of [true, false]) {
    describe(`${where}, exposeErrors ${expose}`, () => {
      let peer: Peer;
      beforeAll(async () => {
        peer = await open({ FIXTURE_EXPOSE: expose ? "1" : "0" });
      });
      afterAll(() => peer?.stop());

      for (const shape of SHAPES) {
        it(`${shape.title}: one error record; the client is told ${expose ? "its text" : "only the error id"}`, async () => {
          const { id, response } = await peer.call(shape.method, shape.params);
          const r = await oneRecord(peer, id, shape.method);
          expect(r).toMatchObject({ level: "error", msg: "handler failed", requestId: id, ...shape.named });
          expect(r.error.message).toBe(shape.error.message);
          if (shape.error.stack) expect(r.error.stack).toContain(shape.error.message);
          else expect(r.error.stack).toBeUndefined();
          if (peer.session) expect(r.session).toBe(peer.session.slice(0, 8));
          else expect(r.session).toBeUndefined();
          const told = expose ? shape.exposed : hidden(r.errorId);
          // (2026-07-28 results also carry resultType and _meta.)
          if (shape.code === undefined) expect(response.result).toMatchObject({ content: [{ type: "text", text: told }], isError: true });
          else expect(response.error).toEqual({ code: shape.code, message: told });
          if (!expose) expect(JSON.stringify(response)).not.toContain(shape.error.message);
        });
      }

      it("a protocol error a handler throws keeps its message and is logged at info", async () => {
        const { id, response } = await peer.call("tools/call", { name: "refuses", arguments: {} });
        expect(response.error).toEqual({ code: -32602, message: "this city is not served" });
        expect(await oneRecord(peer, id, "tools/call")).toMatchObject({ level: "info", tool: "refuses", error: { message: "this city is not served" } });
      });

      it("ResourceNotFoundError is the revision's not-found, logged at info", async () => {
        const { id, response } = await peer.call("resources/read", { uri: "res://gone" });
        // -32002 up to 2025-11-25, -32602 in 2026-07-28: spec/2025-11-25/server/resources.mdx#error-handling, spec/2026-07-28/server/resources.mdx#error-handling
        expect(response.error).toEqual({ code: where.includes(MODERN) ? -32602 : -32002, message: "Resource not found: res://gone", data: { uri: "res://gone" } });
        expect(await oneRecord(peer, id, "resources/read")).toMatchObject({ level: "info", uri: "res://gone" });
      });

      it("an unknown tool is the runtime's answer, not a handler failure: no record", async () => {
        const { id, response } = await peer.call("tools/call", { name: "no_such_tool", arguments: {} });
        expect(response.error.code).toBe(-32602);
        // A later failure's record is there: one for this request would have come before it.
        const later = await peer.call("tools/call", { name: "throws", arguments: {} });
        await oneRecord(peer, later.id, "tools/call");
        expect(recordsOf(peer, id)).toEqual([]);
      });

      it("no request had a second record", () => {
        const ids = records(peer).map((r) => r.requestId);
        expect(ids.length).toBeGreaterThan(0);
        expect(new Set(ids).size).toBe(ids.length);
      });
    });
  }
}

describe("stdio: stdout carries protocol lines only", () => {
  it("every byte on stdout is a JSON-RPC message, with failures logged on stderr", async () => {
    const peer = await stdioPeer(LEGACY, { FIXTURE_LOGGER: "default", FIXTURE_EXPOSE: "0" });
    for (const shape of SHAPES) await peer.call(shape.method, shape.params);
    await peer.stop();
    const lines = peer.stdout().split("\n");
    expect(lines.pop()).toBe("");
    for (const line of lines) expect(JSON.parse(line).jsonrpc, line).toBe("2.0");
    // The default logger: one JSON line per error record on stderr, with its time.
    const logged = peer
      .stderr()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l));
    expect(logged).toHaveLength(SHAPES.length);
    for (const l of logged) expect(l).toMatchObject({ level: "error", msg: "handler failed", time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
  });

  it("the default logger leaves out info records (a protocol error a handler threw)", async () => {
    const peer = await stdioPeer(LEGACY, { FIXTURE_LOGGER: "default" });
    await peer.call("tools/call", { name: "refuses", arguments: {} });
    await peer.stop();
    expect(peer.stderr()).toBe("");
  });
});

describe("a failure after a cancellation", () => {
  it("is one record at debug, and no answer is sent", async () => {
    const peer = await stdioPeer(LEGACY, {});
    const id = peer.nextId();
    let answered = false;
    void peer.call("tools/call", { name: "waits", arguments: {} }).then(() => (answered = true));
    peer.notify("notifications/cancelled", { requestId: id, reason: "the user went away" });
    expect(await oneRecord(peer, id, "tools/call")).toMatchObject({ level: "debug", msg: "handler failed after its request was cancelled", tool: "waits", error: { message: "gave up waiting" } });
    await peer.stop();
    expect(answered).toBe(false);
  });
});

describe("a logger that throws", () => {
  it("does not change the answer; the record goes to stderr with what the logger threw", async () => {
    const peer = await stdioPeer(LEGACY, { FIXTURE_LOGGER: "throws", FIXTURE_EXPOSE: "1" });
    const { response } = await peer.call("tools/call", { name: "throws", arguments: {} });
    await peer.stop();
    expect(response.result).toEqual({ content: [{ type: "text", text: "the weather API key is missing" }], isError: true });
    const line = peer
      .stderr()
      .split("\n")
      .find((l) => l.startsWith("mcp runtime: the logger threw (the log service is down); the record was {"));
    expect(line).toBeDefined();
    expect(JSON.parse(line!.slice(line!.indexOf("{")))).toMatchObject({ level: "error", tool: "throws", error: { message: "the weather API key is missing" } });
  });
});

describe("exposeErrors by default", () => {
  it("is off under NODE_ENV=production", async () => {
    const peer = await stdioPeer(LEGACY, { NODE_ENV: "production" });
    const { id, response } = await peer.call("tools/call", { name: "throws", arguments: {} });
    await peer.stop();
    expect(response.result.content[0].text).toBe(hidden((await oneRecord(peer, id, "tools/call")).errorId));
  });

  it("is on otherwise (NODE_ENV=development)", async () => {
    const peer = await stdioPeer(LEGACY, { NODE_ENV: "development" });
    const { response } = await peer.call("tools/call", { name: "throws", arguments: {} });
    await peer.stop();
    expect(response.result.content[0].text).toBe("the weather API key is missing");
  });
});

describe("validateResults (MCP_RUNTIME_VALIDATE_RESULTS=1)", () => {
  it("a result the revision's schema refuses is one error record, the client told only its id", async () => {
    const peer = await stdioPeer(LEGACY, { MCP_RUNTIME_VALIDATE_RESULTS: "1", FIXTURE_EXPOSE: "0" });
    const { id, response } = await peer.call("tools/call", { name: "invalid_content", arguments: {} });
    await peer.stop();
    const r = await oneRecord(peer, id, "tools/call");
    expect(r).toMatchObject({ level: "error", msg: "handler failed", tool: "invalid_content" });
    expect(r.error.message).toMatch(/^server bug: tools\/call result does not match the 2025-11-25 schema: /);
    expect(response.error).toEqual({ code: -32603, message: hidden(r.errorId) });
  });
});

describe("a task run's failure (2025-11-25)", () => {
  it("is one record naming the task; tasks/result is the isError result with the error id", async () => {
    const peer = await stdioPeer(LEGACY, { FIXTURE_EXPOSE: "0" });
    const { response } = await peer.call("tools/call", { name: "as_task", arguments: {}, task: {} });
    const taskId = response.result.task.taskId as string;
    const { response: result } = await peer.call("tasks/result", { taskId });
    await peer.stop();
    const mine = records(peer).filter((r) => r.task === taskId);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ level: "error", method: "tools/call", tool: "as_task", requestId: 1, error: { message: "the task's secret failed" } });
    expect(result.result).toMatchObject({ content: [{ type: "text", text: hidden(mine[0].errorId) }], isError: true });
  });
});

describe("HTTP with authorization", () => {
  let peer: Peer;
  beforeAll(async () => {
    peer = await httpPeer(LEGACY, { FIXTURE_AUTH: "1", FIXTURE_EXPOSE: "1" }, "alice-token");
  });
  afterAll(() => peer?.stop());

  it("the record names the principal's subject, never the bearer token", async () => {
    const { id } = await peer.call("tools/call", { name: "throws", arguments: {} });
    expect(await oneRecord(peer, id, "tools/call")).toMatchObject({ subject: "alice", session: peer.session!.slice(0, 8) });
    expect(peer.stderr()).not.toContain("alice-token");
  });
});
