/**
 * The requestedSchemas an elicitation's answer is checked against (protocol/handler-host.ts formValidator, matching) are
 * compiled apart from the tools' schemas and not kept by ajv: an `$id` one form uses neither breaks a tool that uses
 * it too nor shadows another form's, and a requestedSchema that does not compile fails the ask as a server bug.
 * Legacy session in process; expectations written by hand. spec/2025-11-25/client/elicitation.mdx#security-considerations
 */
import { expect, it } from "vitest";
import { createServer } from "../../runtime/dist/index.js";
import { inProcessLink } from "./in-process.js";

const ID = "https://example.com/user.json";

it("forms that share an $id are each checked by their own schema, and a tool's schema with that $id still compiles", async () => {
  const server = createServer({ name: "forms", version: "1" });
  server.tool({
    name: "form",
    inputSchema: { type: "object", properties: { max: { type: "number" } }, required: ["max"] },
    handler: async ({ max }, ctx) => {
      const requestedSchema = { $id: ID, type: "object", properties: { n: { type: "number", maximum: max as number } }, required: ["n"] };
      const r = await ctx.elicit({ message: "n?", requestedSchema: requestedSchema as never });
      return { content: [{ type: "text", text: `got ${JSON.stringify(r.content)}` }] };
    },
  });
  server.tool({
    name: "broken",
    inputSchema: { type: "object" },
    handler: async (_args, ctx) => {
      await ctx.elicit({ message: "x?", requestedSchema: { type: "object", properties: { x: { type: "nonsense" } } } as never });
      return { content: [{ type: "text", text: "unreachable" }] };
    },
  });
  server.tool({ name: "typed", inputSchema: { $id: ID, type: "object", properties: { x: { type: "string" } } } as never, handler: () => ({ content: [{ type: "text", text: "typed ok" }] }) });
  let answer: unknown;
  const c = inProcessLink(server, () => answer);
  await c.initialize("2025-11-25", { elicitation: {} });
  const call = async (id: number, name: string, args: Record<string, unknown>, content?: unknown) => {
    answer = { action: "accept", content };
    await c.send({ id, method: "tools/call", params: { name, arguments: args } });
    await c.idle();
    return c.out.find((m) => m.id === id);
  };
  expect((await call(1, "form", { max: 10 }, { n: 5 })).result.content[0].text).toBe('got {"n":5}');
  // The same $id, another maximum: the second form's own schema decides (5 > 3).
  expect((await call(2, "form", { max: 3 }, { n: 5 })).result).toMatchObject({ isError: true });
  expect((await call(3, "form", { max: 3 }, { n: 2 })).result.content[0].text).toBe('got {"n":2}');
  expect((await call(4, "typed", { x: "a" })).result.content[0].text).toBe("typed ok");
  // A form whose schema does not compile fails the ask before the user is asked anything.
  const sent = c.asked.length;
  const broken = (await call(5, "broken", {}, { x: 1 })).result;
  expect(broken.isError).toBe(true);
  expect(c.asked.length).toBe(sent);
  c.close();
});

it("format email is RFC 5321's Mailbox: root@localhost, a quoted local part and an address literal are taken", async () => {
  const server = createServer({ name: "mail", version: "1" });
  server.tool({
    name: "mail",
    inputSchema: { type: "object" },
    handler: async (_args, ctx) => {
      const r = await ctx.elicit({ message: "mail?", requestedSchema: { type: "object", properties: { to: { type: "string", format: "email" } }, required: ["to"] } });
      return { content: [{ type: "text", text: String((r.content as { to: string }).to) }] };
    },
  });
  let answer: unknown;
  const c = inProcessLink(server, () => answer);
  await c.initialize("2025-11-25", { elicitation: {} });
  let id = 0;
  const outcome = async (to: string) => {
    answer = { action: "accept", content: { to } };
    await c.send({ id: ++id, method: "tools/call", params: { name: "mail", arguments: {} } });
    await c.idle();
    const r = c.out.find((m) => m.id === id).result;
    return r.isError ? "refused" : r.content[0].text;
  };
  for (const to of ["root@localhost", '"john doe"@example.com', "user@[192.168.0.1]", "a@example.com"]) expect(await outcome(to)).toBe(to);
  for (const to of ["no-at-sign", "@example.com", "a@", "a b@example.com", "a@exa mple.com"]) expect(await outcome(to), to).toBe("refused");
  c.close();
});

it("2026-07-28 tasks extension: an answer given in tasks/update that does not match the form fails the task with -32602", async () => {
  // spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md (a JSON-RPC error: failed)
  const server = createServer({ name: "task-form", version: "1" });
  server.tool({
    name: "ask_later",
    taskSupport: "optional",
    inputSchema: { type: "object" },
    handler: async (_args, ctx) => {
      await new Promise((r) => setTimeout(r, 20));
      const r = await ctx.elicit({ message: "ok?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } }, { key: "ok" });
      return { content: [{ type: "text", text: `ok=${JSON.stringify(r.content)}` }] };
    },
  });
  const c = inProcessLink(server);
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } } };
  let id = 0;
  const request = async (method: string, params: Record<string, unknown>) => {
    const n = ++id;
    await c.send({ id: n, method, params: { ...params, _meta: meta } });
    return c.out.find((m) => m.id === n);
  };
  const created = (await request("tools/call", { name: "ask_later", arguments: {} })).result;
  expect(created.resultType).toBe("task");
  let task: any;
  for (let i = 0; i < 100 && task?.status !== "input_required"; i++) {
    await new Promise((r) => setTimeout(r, 10));
    task = (await request("tasks/get", { taskId: created.taskId })).result;
  }
  expect(Object.keys(task.inputRequests)).toEqual(["ok"]);
  await request("tasks/update", { taskId: created.taskId, inputResponses: { ok: { action: "accept", content: { ok: "yes" } } } });
  for (let i = 0; i < 100 && !["completed", "failed"].includes(task?.status); i++) {
    await new Promise((r) => setTimeout(r, 10));
    task = (await request("tasks/get", { taskId: created.taskId })).result;
  }
  expect(task).toMatchObject({ status: "failed", error: { code: -32602 } });
  c.close();
});
