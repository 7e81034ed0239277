/**
 * The official TypeScript SDK clients connect to a runtime server over real HTTP on 127.0.0.1:
 * `@modelcontextprotocol/sdk` 1.x StreamableHTTPClientTransport (legacy era, session) and SSEClientTransport
 * (2024-11-05 HTTP+SSE, with legacySse on), and the v2 client `@modelcontextprotocol/client` pinned to the modern era.
 * Each lists and calls tools, reads a resource and gets a prompt.
 */
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport as Sse1 } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport as Http1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as Client2, StreamableHTTPClientTransport as Http2 } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MODERN, startFixture, type Fixture } from "./http-helpers.js";

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture({ FIXTURE_LEGACY_SSE: "1" });
});
afterAll(async () => {
  await fx?.stop();
});

type AnyClient = {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(p: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  readResource(p: { uri: string }): Promise<{ contents: unknown[] }>;
  getPrompt(p: { name: string; arguments?: Record<string, string> }): Promise<{ messages: { content: unknown }[] }>;
};

async function exercise(client: AnyClient) {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["echo", "headers", "test_simple_text"]));
  expect(await client.callTool({ name: "echo", arguments: { text: "from the SDK" } })).toMatchObject({ content: [{ type: "text", text: "from the SDK" }] });
  expect(await client.callTool({ name: "test_image_content", arguments: {} })).toMatchObject({ content: [{ type: "image", mimeType: "image/png" }] });
  const read = await client.readResource({ uri: "test://template/123/data" });
  expect(read.contents).toEqual([{ uri: "test://template/123/data", mimeType: "application/json", text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}' }]);
  const prompt = await client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "x", arg2: "y" } });
  expect(prompt.messages[0].content).toEqual({ type: "text", text: "Prompt with arguments: arg1='x', arg2='y'" });
}

describe("@modelcontextprotocol/sdk 1.x", () => {
  it("StreamableHTTPClientTransport: a legacy session (initialize, Mcp-Session-Id, MCP-Protocol-Version), then DELETE", async () => {
    const transport = new Http1(new URL(fx.url));
    const client = new Client1({ name: "sdk1-http", version: "1.0.0" });
    await client.connect(transport);
    expect(transport.sessionId).toMatch(/^[\x21-\x7E]{32,}$/);
    expect(client.getServerVersion()).toMatchObject({ name: "http-fixture" });
    await exercise(client as unknown as AnyClient);
    // Progress notifications arrive on the POST's SSE stream.
    const progress: number[] = [];
    await client.callTool({ name: "test_tool_with_progress", arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([0, 50, 100]);
    await transport.terminateSession();
    expect(transport.sessionId).toBeUndefined();
    await client.close();
  });

  it("SSEClientTransport: the deprecated 2024-11-05 HTTP+SSE transport", async () => {
    const transport = new Sse1(new URL("/sse", fx.url));
    const client = new Client1({ name: "sdk1-sse", version: "1.0.0" });
    await client.connect(transport);
    expect(client.getServerVersion()).toMatchObject({ name: "http-fixture" });
    await exercise(client as unknown as AnyClient);
    await client.close();
  });
});

describe("@modelcontextprotocol/client 2.x (v2)", () => {
  it(`StreamableHTTPClientTransport pinned to ${MODERN}: stateless, per-request _meta and headers`, async () => {
    const transport = new Http2(new URL(fx.url));
    const client = new Client2({ name: "sdk2-http", version: "2.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(transport);
    expect(client.getProtocolEra()).toBe("modern");
    expect(transport.sessionId).toBeUndefined();
    await exercise(client as unknown as AnyClient);
    // x-mcp-header parameters are mirrored by the v2 client and validated by the server.
    expect(await client.callTool({ name: "headers", arguments: { region: "Zürich", count: 3 } })).toMatchObject({ content: [{ type: "text" }] });
    await client.close();
  });

  it("auto negotiation settles on the modern era against this dual-era server", async () => {
    const client = new Client2({ name: "sdk2-auto", version: "2.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(new Http2(new URL(fx.url)));
    expect((await client.listTools()).tools.length).toBeGreaterThan(3);
    await client.close();
  });
});
