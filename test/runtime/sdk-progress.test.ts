/**
 * The official SDK clients see every progress notification of a request, even when the tool reports its progress and
 * returns in the same tick (`progress_burst`: 0, 50, 100, then the result). The SDKs run a notification's handler a
 * microtask after the read that carried it, but handle a response at once and drop its progress handler then, so the
 * runtime must not let a progress notification share a read with the response after it (runtime/src/paced.ts).
 * spec/2025-11-25/basic/utilities/progress.mdx#progress-flow, spec/2026-07-28/basic/patterns/progress.mdx#progress-flow
 *
 * stdio and HTTP+SSE (2024-11-05) failed without the pacing; Streamable HTTP is covered too, to keep it so.
 */
import { join } from "node:path";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport as Sse1 } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport as Stdio1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as Http1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as Client2, SSEClientTransport as Sse2, StreamableHTTPClientTransport as Http2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as Stdio2 } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";
import { MODERN, startFixture, type Fixture } from "./http-helpers.js";

const CALLS = 5;
const stdio = { command: process.execPath, args: [join(ROOT, "test", "fixtures", "stdio-fixture.mjs")], stderr: "pipe" as const };

type Transport = Parameters<Client1["connect"]>[0] & Parameters<Client2["connect"]>[0];
type Progress = { progress: number };

/** Connect, call progress_burst CALLS times in a row, and return what each call's onprogress saw, and any client error. */
async function burst(client: Client1 | Client2, transport: Transport): Promise<{ seen: number[][]; errors: string[] }> {
  const errors: string[] = [];
  client.onerror = (e) => errors.push(String(e));
  await client.connect(transport);
  const seen: number[][] = [];
  try {
    // One call first, its progress not counted: around its first call a client's event loop can be blocked for longer
    // than the pacing's margin (runtime/src/transport/paced.ts: SETTLE_MS, a margin, not a guarantee), the more so on a
    // loaded machine; what is checked is a client that reads as it goes.
    await client.callTool({ name: "progress_burst", arguments: {} });
    for (let i = 0; i < CALLS; i++) {
      const got: number[] = [];
      const onprogress = (p: Progress) => got.push(p.progress);
      const params = { name: "progress_burst", arguments: {} };
      // 1.x: callTool(params, resultSchema, options); 2.x: callTool(params, options).
      const result = client instanceof Client1 ? await client.callTool(params, undefined, { onprogress }) : await client.callTool(params, { onprogress });
      expect(result).toMatchObject({ content: [{ type: "text", text: "burst done" }] });
      seen.push(got);
    }
  } finally {
    await client.close();
  }
  return { seen, errors };
}

const all = Array.from({ length: CALLS }, () => [0, 50, 100]);

describe("progress reported in the same tick as the result reaches the official clients", () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture({ FIXTURE_LEGACY_SSE: "1" });
  });
  afterAll(async () => {
    await fx?.stop();
  });

  const cases: [string, () => Client1 | Client2, () => Transport][] = [
    ["stdio, sdk 1.x", () => new Client1({ name: "p1", version: "1" }), () => new Stdio1(stdio)],
    ["stdio, sdk 2.x legacy", () => new Client2({ name: "p2", version: "2" }), () => new Stdio2(stdio) as Transport],
    [`stdio, sdk 2.x ${MODERN}`, () => new Client2({ name: "p2", version: "2" }, { versionNegotiation: { mode: { pin: MODERN } } }), () => new Stdio2(stdio) as Transport],
    ["HTTP+SSE, sdk 1.x", () => new Client1({ name: "p1", version: "1" }), () => new Sse1(new URL("/sse", fx.url))],
    ["HTTP+SSE, sdk 2.x", () => new Client2({ name: "p2", version: "2" }), () => new Sse2(new URL("/sse", fx.url)) as Transport],
    ["Streamable HTTP, sdk 1.x", () => new Client1({ name: "p1", version: "1" }), () => new Http1(new URL(fx.url))],
    ["Streamable HTTP, sdk 2.x legacy", () => new Client2({ name: "p2", version: "2" }), () => new Http2(new URL(fx.url)) as Transport],
    [`Streamable HTTP, sdk 2.x ${MODERN}`, () => new Client2({ name: "p2", version: "2" }, { versionNegotiation: { mode: { pin: MODERN } } }), () => new Http2(new URL(fx.url)) as Transport],
  ];
  // Retried: the pacing is a margin (SETTLE_MS), not a guarantee, and on a loaded machine a client's event loop can
  // stall past it; a runtime without the pacing fails every attempt (each call's progress shares the response's read).
  it.each(cases)("%s: every call sees 0, 50 and 100", { retry: 2 }, async (_label, client, transport) => {
    const { seen, errors } = await burst(client(), transport());
    expect(seen).toEqual(all);
    expect(errors.filter((e) => /progress/i.test(e))).toEqual([]);
  });
});
