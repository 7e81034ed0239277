// The inbound classifier as a truth table: every rung of the ladder, in the spec's order, for stdio and HTTP and for
// dual-era, legacy-only and modern-only servers. Expectations are written by hand from the spec pages cited.
import { describe, expect, it } from "vitest";
import { classify, classifyBatch, type Classification, type InboundFacts, type InboundMessage, type ServedRevisions } from "../../runtime/src/protocol/classify.js";

const DUAL: ServedRevisions = { legacy: ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"], modern: ["2026-07-28"] };
const LEGACY_ONLY: ServedRevisions = { legacy: ["2025-06-18", "2025-11-25"], modern: [] };
const MODERN_ONLY: ServedRevisions = { legacy: [], modern: ["2026-07-28"] };

const CAPS = { "io.modelcontextprotocol/clientCapabilities": {} };
const meta = (version: unknown, extra: Record<string, unknown> = CAPS) => ({ _meta: { "io.modelcontextprotocol/protocolVersion": version, ...extra } });
const req = (method: string, params?: Record<string, unknown>): InboundMessage => ({ kind: "request", method, params });
const note = (method: string): InboundMessage => ({ kind: "notification", method });
const headers = (h: Record<string, string>) => (name: string) => h[name];
const MODERN_HEADERS = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" };

/** The part of a classification a row states: kind, revision, and for rejections code and status. */
function summary(c: Classification): string {
  if (c.kind === "reject") return `reject ${c.error.code} ${c.status}`;
  if (c.kind === "modern") return `modern ${c.revision}${c.meta ? "" : " (no meta)"}`;
  return `legacy ${c.revision ?? "(handshake)"}`;
}

type Row = [name: string, message: InboundMessage, facts: Omit<InboundFacts, "served"> & { served?: ServedRevisions }, expected: string];

const stdio = { transport: "stdio" as const };
const http = (h: Record<string, string> = {}, session?: InboundFacts["session"]) => ({ transport: "http" as const, header: headers(h), session });

// spec/2026-07-28/basic/versioning.mdx#backward-compatibility-with-initialization-based-versions
const STDIO: Row[] = [
  ["an initialized pipe is legacy, whatever the body claims", req("tools/list", meta("2026-07-28")), { ...stdio, session: { revision: "2025-06-18" } }, "legacy 2025-06-18"],
  ["initialize selects the legacy handshake", req("initialize", { protocolVersion: "2025-11-25" }), stdio, "legacy (handshake)"],
  ["initialize to a modern-only server: -32602 naming the versions", req("initialize", { protocolVersion: "2025-11-25" }), { ...stdio, served: MODERN_ONLY }, "reject -32602 400"],
  ["a modern claim is modern", req("tools/list", meta("2026-07-28")), stdio, "modern 2026-07-28"],
  ["initialize with a modern claim is a modern request (then -32601)", req("initialize", meta("2026-07-28")), stdio, "modern 2026-07-28"],
  ["ping before initialize is legacy", req("ping"), stdio, "legacy (handshake)"],
  ["a notification before initialize is legacy", note("notifications/cancelled"), stdio, "legacy (handshake)"],
  ["no claim, dual-era: modern, failing its _meta rung", req("tools/list"), stdio, "reject -32602 400"],
  ["no claim, legacy-only: legacy (not initialized)", req("tools/list"), { ...stdio, served: LEGACY_ONLY }, "legacy (handshake)"],
  ["a modern claim to a legacy-only server is legacy", req("tools/list", meta("2026-07-28")), { ...stdio, served: LEGACY_ONLY }, "legacy (handshake)"],
  ["_meta without clientCapabilities: -32602", req("tools/list", meta("2026-07-28", {})), stdio, "reject -32602 400"],
  ["_meta with a non-string version: -32602", req("tools/list", meta(20260728)), stdio, "reject -32602 400"],
  ["an unknown version: -32022", req("tools/list", meta("1900-01-01")), stdio, "reject -32022 400"],
  ["a legacy version in _meta: -32022", req("tools/list", meta("2025-11-25")), stdio, "reject -32022 400"],
];

// spec/2026-07-28/basic/transports/streamable-http.mdx#server-validation, spec/2025-11-25/basic/transports.mdx#session-management
const HTTP: Row[] = [
  ["a known session is legacy", req("tools/list"), http({}, { revision: "2025-03-26" }), "legacy 2025-03-26"],
  ["an unknown session id: 404", req("tools/list"), http({}, "unknown"), "reject -32600 404"],
  ["a session with its revision's header", req("tools/list"), http({ "mcp-protocol-version": "2025-11-25" }, { revision: "2025-11-25" }), "legacy 2025-11-25"],
  ["a session with an unsupported version header: 400", req("tools/list"), http({ "mcp-protocol-version": "1999-01-01" }, { revision: "2025-11-25" }), "reject -32600 400"],
  ["a session with a modern version header: 400", req("tools/list"), http({ "mcp-protocol-version": "2026-07-28" }, { revision: "2025-11-25" }), "reject -32600 400"],
  ["a legacy version in _meta inside a session is the session's, not a modern claim", req("tools/list", meta("2025-11-25")), http({}, { revision: "2025-11-25" }), "legacy 2025-11-25"],
  ["a session id on a modern request is ignored (body-primary)", req("tools/list", meta("2026-07-28")), http(MODERN_HEADERS, "unknown"), "modern 2026-07-28"],
  ["a modern-only server ignores Mcp-Session-Id", req("tools/list", meta("2026-07-28")), { ...http(MODERN_HEADERS, "unknown"), served: MODERN_ONLY }, "modern 2026-07-28"],
  ["initialize without a session mints one", req("initialize", { protocolVersion: "2025-11-25" }), http(), "legacy (handshake)"],
  ["initialize to a modern-only server: -32602 naming the versions, 400", req("initialize", { protocolVersion: "2025-11-25" }), { ...http(), served: MODERN_ONLY }, "reject -32602 400"],
  ["no session, no modern marker: 400, the session is required", req("tools/list"), http(), "reject -32600 400"],
  ["no session, a legacy version header: 400, the session is required", req("tools/list"), http({ "mcp-protocol-version": "2025-06-18" }), "reject -32600 400"],
  ["a notification without a session: 400", note("notifications/initialized"), http(), "reject -32600 400"],
  ["a modern notification: accepted", note("notifications/cancelled"), http(MODERN_HEADERS), "modern 2026-07-28 (no meta)"],
  ["a response from a modern client: 400", { kind: "response" }, http(MODERN_HEADERS), "reject -32600 400"],
  // The modern rungs, in order.
  ["rung 1: MCP-Protocol-Version missing: -32020", req("tools/list", meta("2026-07-28")), http({ "mcp-method": "tools/list" }), "reject -32020 400"],
  [
    "rung 1 before rung 2: header missing and _meta missing: -32020",
    req("tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }),
    http({ "mcp-method": "tools/list" }),
    "reject -32020 400",
  ],
  ["modern headers without _meta: -32602", req("tools/list"), http(MODERN_HEADERS), "reject -32602 400"],
  ["rung 2 before rung 3: _meta missing and Mcp-Method wrong: -32602", req("tools/call", { name: "x" }), http(MODERN_HEADERS), "reject -32602 400"],
  ["rung 3: version header ≠ body: -32020", req("tools/list", meta("2026-07-28")), http({ "mcp-protocol-version": "2025-11-25", "mcp-method": "tools/list" }), "reject -32020 400"],
  ["rung 3: Mcp-Method missing: -32020", req("tools/list", meta("2026-07-28")), http({ "mcp-protocol-version": "2026-07-28" }), "reject -32020 400"],
  ["rung 3: Mcp-Method ≠ body: -32020", req("tools/list", meta("2026-07-28")), http({ "mcp-protocol-version": "2026-07-28", "mcp-method": "prompts/list" }), "reject -32020 400"],
  [
    "rung 3: Mcp-Name missing for tools/call: -32020",
    req("tools/call", { name: "echo", ...meta("2026-07-28") }),
    http({ "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call" }),
    "reject -32020 400",
  ],
  [
    "rung 3: Mcp-Name ≠ body: -32020",
    req("tools/call", { name: "echo", ...meta("2026-07-28") }),
    http({ "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "other" }),
    "reject -32020 400",
  ],
  [
    "rung 3: Mcp-Name base64-encoded and equal",
    req("tools/call", { name: "echo", ...meta("2026-07-28") }),
    http({ "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "=?base64?ZWNobw==?=" }),
    "modern 2026-07-28",
  ],
  [
    "rung 3 before rung 4: unsupported version with mismatched headers: -32020",
    req("tools/list", meta("1900-01-01")),
    http({ "mcp-protocol-version": "1900-01-02", "mcp-method": "tools/list" }),
    "reject -32020 400",
  ],
  ["rung 4: unsupported version: -32022", req("tools/list", meta("1900-01-01")), http({ "mcp-protocol-version": "1900-01-01", "mcp-method": "tools/list" }), "reject -32022 400"],
  ["all rungs passed: modern", req("tools/list", meta("2026-07-28")), http(MODERN_HEADERS), "modern 2026-07-28"],
  [
    "legacy-only: a modern claim without a session is 400 (not a recognized modern error)",
    req("tools/list", meta("2026-07-28")),
    { ...http(MODERN_HEADERS), served: LEGACY_ONLY },
    "reject -32600 400",
  ],
];

describe("classify: stdio", () => {
  it.each(STDIO)("%s", (_name, message, facts, expected) => {
    expect(summary(classify(message, { served: DUAL, ...facts }))).toBe(expected);
  });
});

describe("classify: Streamable HTTP", () => {
  it.each(HTTP)("%s", (_name, message, facts, expected) => {
    expect(summary(classify(message, { served: DUAL, ...facts }))).toBe(expected);
  });

  it("checks the Mcp-Param headers a tool declares", () => {
    const paramHeaders = () => [{ name: "Region", header: "mcp-param-region", path: ["region"] }];
    const message = req("tools/call", { name: "t", arguments: { region: "eu" }, ...meta("2026-07-28") });
    const base = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "t" };
    expect(summary(classify(message, { served: DUAL, ...http(base), paramHeaders }))).toBe("reject -32020 400");
    expect(summary(classify(message, { served: DUAL, ...http({ ...base, "mcp-param-region": "eu" }), paramHeaders }))).toBe("modern 2026-07-28");
    expect(summary(classify(message, { served: DUAL, ...http({ ...base, "mcp-param-region": "us" }), paramHeaders }))).toBe("reject -32020 400");
  });
});

describe("classify: what a rejection carries", () => {
  it("a modern-only server names its versions to initialize, with a code legacy peers know, on every transport", () => {
    for (const facts of [stdio, http()]) {
      const c = classify(req("initialize", { protocolVersion: "2025-06-18" }), { ...facts, served: MODERN_ONLY });
      expect(c).toMatchObject({ kind: "reject", status: 400, error: { code: -32602, data: { supported: ["2026-07-28"], requested: "2025-06-18" } } });
    }
  });

  it("an unsupported version names the supported ones, newest first, and the requested one", () => {
    const c = classify(req("tools/list", meta("1900-01-01")), { ...stdio, served: DUAL });
    expect(c).toMatchObject({ error: { code: -32022, data: { supported: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"], requested: "1900-01-01" } } });
  });

  it("a modern route carries the request's _meta fields", () => {
    const info = { name: "c", version: "1" };
    const c = classify(req("tools/list", meta("2026-07-28", { "io.modelcontextprotocol/clientCapabilities": { roots: {} }, "io.modelcontextprotocol/clientInfo": info })), { ...stdio, served: DUAL });
    expect(c).toMatchObject({ kind: "modern", revision: "2026-07-28", meta: { protocolVersion: "2026-07-28", clientCapabilities: { roots: {} }, clientInfo: info } });
  });
});

describe("classifyBatch", () => {
  it("is legacy in a session, 404 for an unknown one, and 400 without one", () => {
    expect(summary(classifyBatch({ transport: "http", session: { revision: "2025-03-26" }, served: DUAL }))).toBe("legacy 2025-03-26");
    expect(summary(classifyBatch({ transport: "http", session: "unknown", served: DUAL }))).toBe("reject -32600 404");
    expect(summary(classifyBatch({ transport: "http", served: DUAL }))).toBe("reject -32600 400");
    expect(summary(classifyBatch({ transport: "http", served: MODERN_ONLY }))).toBe("reject -32600 400");
  });
});
