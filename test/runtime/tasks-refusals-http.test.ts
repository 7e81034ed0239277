/**
 * A task refused for a quota, and a task store that cannot be reached, over HTTP (#20: "HTTP 429 with Retry-After and
 * a JSON-RPC error naming the limit"; "every store outage: 503 with Retry-After on every method and entry"). Both
 * wire forms (2025-11-25 core tasks in a legacy session, the 2026-07-28 tasks extension), on serveHttp (node) and
 * fetchHandler. Two principals: one at its quota, the other unaffected. The outage is a real PostgreSQL task store
 * named on a port nothing listens on. Expectations by hand from docs/tasks.md#quotas.
 */
import { createServer as createTcpServer, type AddressInfo } from "node:net";
import { createParser } from "eventsource-parser";
import { afterAll, describe, expect, it } from "vitest";
import { createServer, type FetchHandler, type TaskOptions } from "../../runtime/dist/index.js";
import { initializeBody, jsonPost, modernMeta, modernRequest, raw, sessionHeaders } from "./http-helpers.js";

const CORE = "2025-11-25";
const MODERN = "2026-07-28";
const EXT = "io.modelcontextprotocol/tasks";
const PRINCIPALS: Record<string, { subject: string; clientId: string; scopes: string[]; claims: Record<string, unknown> }> = {
  alice: { subject: "alice", clientId: "app", scopes: [], claims: {} },
  bob: { subject: "bob", clientId: "app", scopes: [], claims: {} },
};

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c().catch(() => {});
});

interface Answer {
  status: number;
  retryAfter: string | null;
  message: any;
  sid?: string;
}

/** One POST to an entry: its status, Retry-After and its one JSON-RPC message (JSON or SSE). */
type Post = (headers: Record<string, string>, body: unknown) => Promise<Answer>;

/** A server whose `hold` tool runs as a task until cancelled (or 10 s), with these task options and bearer tokens. */
function taskServer(tasks: TaskOptions) {
  const server = createServer({ name: "refusals", version: "1", tasks });
  server.tool({
    name: "hold",
    taskSupport: "optional",
    inputSchema: { type: "object" },
    handler: (_a, ctx) =>
      new Promise((r) => {
        const done = () => r({ content: [{ type: "text" as const, text: "stopped" }] });
        const t = setTimeout(done, 10_000);
        ctx.signal.addEventListener("abort", () => (clearTimeout(t), done()), { once: true });
      }),
  });
  return server;
}
const authorization = { issuer: "https://issuer.invalid", verify: (token: string) => PRINCIPALS[token] };

async function nodeEntry(tasks: TaskOptions): Promise<Post> {
  const h = await taskServer(tasks).serveHttp({ port: 0, quiet: true, authorization });
  closers.push(() => h.close());
  return async (headers, body) => {
    const r = await raw(h.url, { headers, body: body as object });
    return { status: r.status, retryAfter: (r.headers["retry-after"] as string | undefined) ?? null, message: r.messages[0], sid: r.headers["mcp-session-id"] as string | undefined };
  };
}

async function fetchEntry(tasks: TaskOptions): Promise<Post> {
  const handler: FetchHandler = taskServer(tasks).fetchHandler({ authorization: { ...authorization, resource: "http://127.0.0.1:8787/mcp" } });
  closers.push(() => handler.close());
  return async (headers, body) => {
    const res = await handler(new Request("http://127.0.0.1:8787/mcp", { method: "POST", headers, body: JSON.stringify(body) }));
    const text = await res.text();
    const messages: any[] = [];
    if (res.headers.get("content-type")?.startsWith("text/event-stream")) createParser({ onEvent: (e) => e.data && messages.push(JSON.parse(e.data)) }).feed(text);
    else if (text) messages.push(JSON.parse(text));
    return { status: res.status, retryAfter: res.headers.get("retry-after"), message: messages[0], sid: res.headers.get("mcp-session-id") ?? undefined };
  };
}

/** A caller of one wire form: `call(method, params)` as `token`'s principal (a legacy session of its own in 2025-11-25). */
async function caller(post: Post, wire: "core" | "extension", token: string): Promise<(method: string, params: Record<string, unknown>) => Promise<Answer>> {
  const bearer = { authorization: `Bearer ${token}` };
  let id = 1;
  if (wire === "extension") {
    const meta = modernMeta(MODERN, { "io.modelcontextprotocol/clientCapabilities": { extensions: { [EXT]: {} } } });
    return (method, params) => {
      const m = modernRequest(++id, method, params, meta);
      return post({ ...m.headers, ...bearer }, m.body);
    };
  }
  const init = await post(jsonPost(bearer), initializeBody(CORE, 1, token));
  expect(init.status, JSON.stringify(init.message)).toBe(200);
  const headers = jsonPost({ ...bearer, ...sessionHeaders(init.sid!, CORE) });
  expect((await post(headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
  return (method, params) => post(headers, { jsonrpc: "2.0", id: ++id, method, params });
}

/** tools/call of `hold` as a task, in the caller's wire form. */
const holdParams = (wire: "core" | "extension") => ({ name: "hold", arguments: {}, ...(wire === "core" ? { task: {} } : {}) });
const taskIdOf = (a: Answer, wire: "core" | "extension") => (wire === "core" ? a.message.result.task.taskId : a.message.result.taskId) as string;

const ENTRIES = [
  ["serveHttp", nodeEntry],
  ["fetchHandler", fetchEntry],
] as const;
const WIRES = [
  ["2025-11-25 core tasks", "core"],
  ["2026-07-28 tasks extension", "extension"],
] as const;

/** A closed port: bound, then released. */
async function closedPort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe.each(ENTRIES)("task quotas over HTTP: %s", (_name, entry) => {
  it.each(WIRES)("%s: a caller at maxStoredTasksPerOwner gets 429 with Retry-After and -32600 naming the limit; another caller still creates tasks", async (_w, wire) => {
    const post = await entry({ maxStoredTasksPerOwner: 2 });
    const [alice, bob] = [await caller(post, wire, "alice"), await caller(post, wire, "bob")];
    const held: [typeof alice, string][] = [];
    for (let i = 0; i < 2; i++) {
      const ok = await alice("tools/call", holdParams(wire));
      expect([ok.status, ok.retryAfter]).toEqual([200, null]);
      held.push([alice, taskIdOf(ok, wire)]);
    }
    const refused = await alice("tools/call", holdParams(wire));
    expect([refused.status, refused.retryAfter]).toEqual([429, "5"]);
    expect(refused.message.error).toEqual({
      code: -32600,
      message: "Too Many Requests: this caller has 2 stored tasks and none of this caller's is finished (limit tasks.maxStoredTasksPerOwner: 2); try again once one has finished",
      data: { limit: "tasks.maxStoredTasksPerOwner", max: 2 },
    });
    // Bob is not affected by Alice's quota.
    const other = await bob("tools/call", holdParams(wire));
    expect([other.status, other.retryAfter]).toEqual([200, null]);
    held.push([bob, taskIdOf(other, wire)]);
    // An ordinary request of Alice's is answered as before.
    const get = await alice("tasks/get", { taskId: held[0][1] });
    expect([get.status, get.message.result.status]).toEqual([200, "working"]);
    for (const [c, taskId] of held) expect((await c("tasks/cancel", { taskId })).status).toBe(200);
  });

  it("the process's bound (maxRunning) is 503 with Retry-After, naming it", async () => {
    const post = await entry({ maxRunning: 1 });
    const [alice, bob] = [await caller(post, "core", "alice"), await caller(post, "core", "bob")];
    const ok = await alice("tools/call", holdParams("core"));
    expect(ok.status).toBe(200);
    const refused = await bob("tools/call", holdParams("core"));
    expect([refused.status, refused.retryAfter]).toEqual([503, "5"]);
    expect(refused.message.error).toEqual({
      code: -32600,
      message: "Service Unavailable: 1 tasks running in this server already (limit tasks.maxRunning: 1); try again once one has finished",
      data: { limit: "tasks.maxRunning", max: 1 },
    });
    expect((await alice("tasks/cancel", { taskId: taskIdOf(ok, "core") })).status).toBe(200);
  });
});

describe.each(ENTRIES)("a task store that cannot be reached, over HTTP: %s", (_name, entry) => {
  const UNAVAILABLE = { code: -32603, message: "Internal error: the task store could not be reached; try again" };
  const METHODS = { core: ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"], extension: ["tasks/get", "tasks/update", "tasks/cancel"] } as const;

  it.each(WIRES)("%s: task creation and every task method answer 503 with Retry-After and -32603 saying so", async (_w, wire) => {
    const post = await entry({ store: "postgres", url: `postgres://mcp@127.0.0.1:${await closedPort()}/test` });
    const alice = await caller(post, wire, "alice");
    const created = await alice("tools/call", holdParams(wire));
    expect([created.status, created.retryAfter, created.message.error], "task creation").toEqual([503, "3", UNAVAILABLE]);
    for (const method of METHODS[wire]) {
      const params = method === "tasks/list" ? {} : method === "tasks/update" ? { taskId: "t1", inputResponses: {} } : { taskId: "t1" };
      const r = await alice(method, params);
      expect([r.status, r.retryAfter, r.message.error], method).toEqual([503, "3", UNAVAILABLE]);
    }
  });
});
