/**
 * The requestedSchemas an elicitation's answer is checked against (protocol/handler-host.ts contentMismatch) are
 * compiled apart from the tools' schemas and not kept by ajv: an `$id` one form uses neither breaks a tool that uses
 * it too nor shadows another form's, and a requestedSchema that does not compile fails the ask as a server bug.
 * Legacy session in process; expectations written by hand. spec/2025-11-25/client/elicitation.mdx#security-considerations
 */
import { expect, it } from "vitest";
import { Connection, createServer } from "../../runtime/dist/index.js";

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
  const out: any[] = [];
  let answer: unknown;
  const c = new Connection(server, { send: (m: any) => (m.method === "elicitation/create" ? void c.receive({ jsonrpc: "2.0", id: m.id, result: answer }) : void out.push(m)) }, { transport: "stdio" });
  await c.receive({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "t", version: "1" } } });
  await c.receive({ jsonrpc: "2.0", method: "notifications/initialized" });
  const call = async (id: number, name: string, args: Record<string, unknown>, content?: unknown) => {
    answer = { action: "accept", content };
    await c.receive({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
    await c.idle();
    return out.find((m) => m.id === id);
  };
  expect((await call(1, "form", { max: 10 }, { n: 5 })).result.content[0].text).toBe('got {"n":5}');
  // The same $id, another maximum: the second form's own schema decides (5 > 3).
  expect((await call(2, "form", { max: 3 }, { n: 5 })).result).toMatchObject({ isError: true });
  expect((await call(3, "form", { max: 3 }, { n: 2 })).result.content[0].text).toBe('got {"n":2}');
  expect((await call(4, "typed", { x: "a" })).result.content[0].text).toBe("typed ok");
  const broken = (await call(5, "broken", {}, { x: 1 })).result;
  expect(broken.isError).toBe(true);
  c.close();
});
