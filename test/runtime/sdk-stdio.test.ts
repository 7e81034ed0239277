/** The official TypeScript SDK 1.x client connects to a runtime server over real stdio pipes. */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

describe("@modelcontextprotocol/sdk 1.x Client over stdio", () => {
  const client = new Client({ name: "sdk1-client", version: "1.0.0" });
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, "test", "fixtures", "stdio-fixture.mjs")], stderr: "pipe" });
  beforeAll(async () => {
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
  });

  it("negotiates a legacy revision and sees the server's identity", () => {
    expect(client.getServerVersion()).toMatchObject({ name: "stdio-fixture", version: "1.2.3" });
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true }, prompts: {}, logging: {} });
  });

  it("lists and calls tools, including structured output", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("echo");
    expect(await client.callTool({ name: "echo", arguments: { text: "from the SDK" } })).toMatchObject({ content: [{ type: "text", text: "from the SDK" }] });
    expect(await client.callTool({ name: "add", arguments: { a: 1, b: 2 } })).toMatchObject({ structuredContent: { sum: 3 } });
  });

  it("reads a resource and a templated resource", async () => {
    expect((await client.readResource({ uri: "test://static" })).contents).toEqual([{ uri: "test://static", mimeType: "text/plain", text: "static text" }]);
    expect((await client.listResourceTemplates()).resourceTemplates[0].uriTemplate).toBe("test://items/{id}");
    expect((await client.readResource({ uri: "test://items/3" })).contents[0]).toMatchObject({ text: '{"id":"3"}' });
  });

  it("gets a prompt and completes its argument", async () => {
    const p = await client.getPrompt({ name: "greet", arguments: { name: "SDK" } });
    expect(p.messages[0].content).toEqual({ type: "text", text: "Hello, SDK!" });
    const c = await client.complete({ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "zeta" } });
    expect(c.completion.values).toEqual(["zeta-name-1"]);
  });

  it("pings and sets the log level", async () => {
    expect(await client.ping()).toEqual({});
    expect(await client.setLoggingLevel("warning")).toEqual({});
  });
});
