// What a server declares follows its registrations, in both eras: the last tool removed leaves no `tools` (nor `tasks`,
// nor the tasks extension) in `initialize` and `server/discover`, and every change to a list (a resource template
// too) is a list_changed for the legacy sessions told `listChanged` and the subscriptions/listen streams that asked.
// In process against the protocol core (Connection), as the wire corpus does; expectations written by hand. Last, the
// cache defaults createServer checks (a server's ttlMs MUST be >= 0).
// spec/2025-11-25/server/tools.mdx#list-changed-notification, spec/2025-11-25/server/resources.mdx#list-changed-notification,
// spec/2026-07-28/server/discover.mdx#response, spec/2026-07-28/basic/patterns/subscriptions.mdx#acknowledgment
import { describe, expect, it } from "vitest";
import { createServer, type McpServer } from "../../runtime/dist/index.js";
import { inProcessLink } from "./in-process.js";

const LEGACY = "2025-11-25";
const MODERN = "2026-07-28";
const meta = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} };

/** A link to `server` in process: what it was sent, and a way to send it a message. */
const link = (server: McpServer) => inProcessLink(server);

async function initialize(server: McpServer, revision = LEGACY): Promise<{ out: any[]; send: (m: Record<string, unknown>) => Promise<void>; capabilities: unknown }> {
  const l = link(server);
  await l.send({ id: 0, method: "initialize", params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: "t", version: "1" } } });
  await l.send({ method: "notifications/initialized" });
  const capabilities = l.out.shift().result.capabilities;
  return { ...l, capabilities };
}

async function discover(server: McpServer): Promise<unknown> {
  const l = link(server);
  await l.send({ id: 1, method: "server/discover", params: { _meta: meta } });
  return l.out[0].result.capabilities;
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
};

function withTaskTool(): McpServer {
  const server = createServer({ name: "registration", version: "1.0.0" });
  return server.tool({ name: "job", inputSchema: { type: "object" }, taskSupport: "optional", handler: () => ({ content: [] }) });
}

describe("removeTool: what is declared after the last tool goes", () => {
  it("legacy initialize: tools and tasks declared, then neither once the last tool is removed", async () => {
    const server = withTaskTool();
    expect((await initialize(server)).capabilities).toEqual({ tools: { listChanged: true }, logging: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } });
    expect(server.removeTool("job")).toBe(true);
    expect((await initialize(server)).capabilities).toEqual({ logging: {} });
  });

  it("modern server/discover: tools and the tasks extension declared, then neither once the last tool is removed", async () => {
    const server = withTaskTool();
    expect(await discover(server)).toEqual({ tools: { listChanged: true }, logging: {}, extensions: { "io.modelcontextprotocol/tasks": {} } });
    server.removeTool("job");
    expect(await discover(server)).toEqual({ logging: {} });
  });

  it("a legacy session told tools.listChanged hears the last tool go, and keeps its tools/list and tasks/list (and a later tool() is declared again)", async () => {
    const server = withTaskTool();
    const session = await initialize(server);
    server.removeTool("job");
    await until(() => session.out.length > 0);
    expect(session.out.splice(0)).toEqual([{ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: {} }]);
    // It keeps what it was told at initialize (spec/2025-11-25/basic/lifecycle.mdx#capability-negotiation): tools/list
    // and tasks/list answer empty lists, not -32601.
    await session.send({ id: 2, method: "tools/list", params: {} });
    await session.send({ id: 3, method: "tasks/list", params: {} });
    await until(() => session.out.length >= 2);
    expect(session.out.splice(0)).toEqual([
      { jsonrpc: "2.0", id: 2, result: { tools: [] } },
      { jsonrpc: "2.0", id: 3, result: { tasks: [] } },
    ]);
    server.tool({ name: "plain", inputSchema: { type: "object" }, handler: () => ({ content: [] }) });
    expect((await initialize(server)).capabilities).toEqual({ tools: { listChanged: true }, logging: {} });
  });
});

describe("resourceTemplate(): a change to the resource list", () => {
  const template = (n: number) => ({ uriTemplate: `test://t${n}/{id}`, name: `t${n}`, read: () => ({ contents: [] }) });

  it("a legacy session told resources.listChanged is sent notifications/resources/list_changed", async () => {
    const server = createServer({ name: "registration", version: "1.0.0" }).resourceTemplate(template(1));
    const session = await initialize(server);
    expect(session.capabilities).toEqual({ resources: { subscribe: true, listChanged: true }, logging: {} });
    // A subscribed session too: the subscription is to a resource, the list change is for every session.
    await session.send({ id: 2, method: "resources/subscribe", params: { uri: "test://t1/a" } });
    expect(session.out.splice(0)).toEqual([{ jsonrpc: "2.0", id: 2, result: {} }]);
    server.resourceTemplate(template(2));
    await until(() => session.out.length > 0);
    expect(session.out).toEqual([{ jsonrpc: "2.0", method: "notifications/resources/list_changed", params: {} }]);
  });

  it("a 2024-11-05 session is sent it as well (the notification is in every legacy revision)", async () => {
    const server = createServer({ name: "registration", version: "1.0.0" }).resourceTemplate(template(1));
    const session = await initialize(server, "2024-11-05");
    server.resourceTemplate(template(2));
    await until(() => session.out.length > 0);
    expect(session.out).toEqual([{ jsonrpc: "2.0", method: "notifications/resources/list_changed", params: {} }]);
  });

  it("a subscriptions/listen stream that asked for resourcesListChanged is sent it, tagged with its id", async () => {
    const server = createServer({ name: "registration", version: "1.0.0" }).resourceTemplate(template(1));
    const l = link(server);
    void l.send({ id: "L", method: "subscriptions/listen", params: { notifications: { resourcesListChanged: true }, _meta: meta } });
    await until(() => l.out.length > 0);
    expect(l.out.splice(0)).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: { resourcesListChanged: true }, _meta: { "io.modelcontextprotocol/subscriptionId": "L" } },
      },
    ]);
    server.resourceTemplate(template(2));
    await until(() => l.out.length > 0);
    expect(l.out).toEqual([{ jsonrpc: "2.0", method: "notifications/resources/list_changed", params: { _meta: { "io.modelcontextprotocol/subscriptionId": "L" } } }]);
  });
});

describe("createServer({ cache }): the defaults of the caching hints are checked at construction", () => {
  // Servers MUST provide a ttlMs >= 0; cacheScope is "public" or "private". spec/2026-07-28/server/utilities/caching.mdx
  it.each([
    [{ ttlMs: -5 }, "createServer: cache.ttlMs must be an integer >= 0 (ms), not -5"],
    [{ ttlMs: 1.5 }, "createServer: cache.ttlMs must be an integer >= 0 (ms), not 1.5"],
    [{ ttlMs: "60000" }, 'createServer: cache.ttlMs must be an integer >= 0 (ms), not "60000"'],
    [{ cacheScope: "bogus" }, 'createServer: cache.cacheScope must be "public" or "private", not "bogus"'],
    [null, "createServer: cache must be an object { ttlMs?, cacheScope? }"],
  ])("refuses %j", (cache, message) => {
    expect(() => createServer({ name: "s", version: "1", cache: cache as never })).toThrow(new TypeError(message));
  });

  it("takes ttlMs 0 and both scopes", () => {
    for (const cache of [{ ttlMs: 0 }, { ttlMs: 60_000, cacheScope: "public" as const }, { cacheScope: "private" as const }])
      expect(() => createServer({ name: "s", version: "1", cache })).not.toThrow();
  });
});

describe("registration checks a feature's callback when it is registered, not at its first call", () => {
  it.each([
    ["prompt", (s: McpServer) => s.prompt({ name: "p", handler: () => ({ messages: [] }) } as never), "prompt p: get must be a function (it has handler instead)"],
    ["tool", (s: McpServer) => s.tool({ name: "t", inputSchema: { type: "object" } } as never), "tool t: handler must be a function"],
    ["resource", (s: McpServer) => s.resource({ uri: "test://r", name: "r", get: () => ({}) } as never), "resource test://r: read must be a function (it has get instead)"],
    ["template", (s: McpServer) => s.resourceTemplate({ uriTemplate: "test://{x}", name: "x" } as never), "resource template test://{x}: read must be a function"],
  ])("%s", (_kind, register, message) => {
    expect(() => register(createServer({ name: "s", version: "1" }))).toThrow(new TypeError(message));
  });
});
