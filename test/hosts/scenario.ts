/**
 * The one scenario every host runs against its MCP endpoint, over real HTTP on 127.0.0.1:
 * a modern server/discover, a modern tools/call of `echo`, a modern multi round-trip `ask` (sealed requestState),
 * a legacy session (initialize → notifications/initialized
 * → tools/call → DELETE, then 404), and a foreign Origin refused with 403. Responses may be JSON or SSE
 * (raw() parses both, SSE with eventsource-parser).
 *
 * spec/2026-07-28/basic/transports/streamable-http.mdx#security--endpoint
 * spec/2025-11-25/basic/transports.mdx#session-management
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { MODERN, initializeBody, jsonPost, modernMeta, modernRequest, raw, sessionHeaders } from "../runtime/http-helpers.js";

/** The newest legacy revision that has Streamable HTTP (sessions, DELETE). */
export const LEGACY = "2025-11-25"; // by hand: spec/2025-11-25/basic/transports.mdx#streamable-http

export interface Endpoint {
  /** The MCP endpoint, e.g. http://127.0.0.1:PORT/api/mcp. */
  url: string;
  stop(): Promise<void>;
  /** What the host printed, for a failing test's message. */
  logs?(): string;
}

const echoCall = (id: number, text: string) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text } } });

/** Register the scenario's tests in the current describe block, against the endpoint that `start` serves. */
export function mcpScenario(start: () => Promise<Endpoint>): void {
  let endpoint: Endpoint | undefined;
  beforeAll(async () => {
    endpoint = await start();
  });
  afterAll(async () => {
    await endpoint?.stop();
  });
  const url = () => {
    if (!endpoint) throw new Error("the host did not start");
    return endpoint.url;
  };
  const logs = () => endpoint?.logs?.() ?? "";

  it("modern server/discover", async () => {
    const { body, headers } = modernRequest(1, "server/discover");
    const r = await raw(url(), { headers, body });
    expect(r.status, `${r.text}\n${logs()}`).toBe(200);
    expect(r.messages).toHaveLength(1);
    expect(r.messages[0]).toMatchObject({ jsonrpc: "2.0", id: 1, result: { _meta: { "io.modelcontextprotocol/serverInfo": { name: "hosts-fixture" } } } });
    expect(r.messages[0].result.supportedVersions).toContain(MODERN);
    // The modern era is stateless: no session is minted.
    expect(r.headers["mcp-session-id"]).toBeUndefined();
  });

  it("modern tools/call (echo)", async () => {
    const { body, headers } = modernRequest(2, "tools/call", { name: "echo", arguments: { text: "hi from a host" } });
    const r = await raw(url(), { headers, body });
    expect(r.status, `${r.text}\n${logs()}`).toBe(200);
    expect(r.messages).toEqual([expect.objectContaining({ id: 2, result: expect.objectContaining({ content: [{ type: "text", text: "hi from a host" }] }) })]);
  });

  it("modern multi round-trip request (ask): input_required with a sealed requestState, answered on retry", async () => {
    const meta = modernMeta(MODERN, { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } });
    const first = modernRequest(6, "tools/call", { name: "ask", arguments: {} }, meta);
    const r1 = await raw(url(), { headers: first.headers, body: first.body });
    expect(r1.status, `${r1.text}\n${logs()}`).toBe(200);
    const asked = r1.messages[0].result;
    expect(asked).toMatchObject({ resultType: "input_required", inputRequests: { "elicitation-1": { method: "elicitation/create" } } });
    expect(asked.requestState).toEqual(expect.any(String));
    const answers = { inputResponses: { "elicitation-1": { action: "accept", content: { name: "Ada" } } } };
    const retry = modernRequest(7, "tools/call", { name: "ask", arguments: {}, ...answers, requestState: asked.requestState }, meta);
    const r2 = await raw(url(), { headers: retry.headers, body: retry.body });
    expect(r2.messages, `${r2.text}\n${logs()}`).toEqual([expect.objectContaining({ id: 7, result: expect.objectContaining({ content: [{ type: "text", text: "hello Ada" }] }) })]);
    // The state is HMAC-sealed: one altered character and it is refused, -32602.
    // spec/2026-07-28/basic/patterns/mrtr.mdx#security-considerations
    const state: string = asked.requestState;
    const at = Math.floor(state.length / 2);
    const forged = `${state.slice(0, at)}${state[at] === "A" ? "B" : "A"}${state.slice(at + 1)}`;
    expect(forged).not.toBe(state);
    const bad = modernRequest(8, "tools/call", { name: "ask", arguments: {}, ...answers, requestState: forged }, meta);
    const r3 = await raw(url(), { headers: bad.headers, body: bad.body });
    expect(r3.messages).toEqual([expect.objectContaining({ id: 8, error: expect.objectContaining({ code: -32602 }) })]);
  });

  it(`legacy session (${LEGACY}): initialize → Mcp-Session-Id → initialized → tools/call → DELETE 200 → 404`, async () => {
    const init = await raw(url(), { headers: jsonPost(), body: initializeBody(LEGACY) });
    expect(init.status, `${init.text}\n${logs()}`).toBe(200);
    expect(init.messages[0].result.protocolVersion).toBe(LEGACY);
    const sid = init.headers["mcp-session-id"];
    // spec/2025-11-25/basic/transports.mdx#session-management: visible ASCII only.
    expect(sid).toMatch(/^[\x21-\x7e]+$/);
    const session = sessionHeaders(String(sid), LEGACY);
    const ack = await raw(url(), { headers: jsonPost(session), body: { jsonrpc: "2.0", method: "notifications/initialized" } });
    expect(ack.status).toBe(202);
    const call = await raw(url(), { headers: jsonPost(session), body: echoCall(3, "in a session") });
    expect(call.status, call.text).toBe(200);
    expect(call.messages).toEqual([expect.objectContaining({ id: 3, result: expect.objectContaining({ content: [{ type: "text", text: "in a session" }] }) })]);
    const del = await raw(url(), { method: "DELETE", headers: session });
    expect(del.status).toBe(200);
    // A terminated session is 404 on every later request.
    expect((await raw(url(), { headers: jsonPost(session), body: echoCall(4, "after") })).status).toBe(404);
    expect((await raw(url(), { method: "DELETE", headers: session })).status).toBe(404);
  });

  it("a foreign Origin is refused with 403 and a JSON-RPC error without id (both eras)", async () => {
    const modern = modernRequest(5, "server/discover");
    for (const [headers, body] of [
      [modern.headers, modern.body],
      [jsonPost(), initializeBody(LEGACY)],
    ] as const) {
      const r = await raw(url(), { headers: { ...headers, origin: "http://evil.example" }, body });
      expect(r.status, r.text).toBe(403);
      expect(r.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
      expect(r.json).not.toHaveProperty("id");
    }
  });
}
