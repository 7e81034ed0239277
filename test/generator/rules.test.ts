/** Table-driven checks of the generated revision rules module against facts of the five revisions. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diffRules } from "../../generator/diff.js";
import type { RulesData } from "../../generator/rules.js";
import * as rules from "../../out/rules.js";
import { OUT } from "../helpers.js";

const data = JSON.parse(readFileSync(join(OUT, "rules.json"), "utf8")) as RulesData;
const ALL = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const;
const LEGACY = ALL.slice(0, 4);

describe("revisions", () => {
  it("are in declaration order with their era", () => {
    expect(rules.REVISIONS).toEqual(ALL);
    expect(ALL.map((r) => rules.ERA[r])).toEqual(["legacy", "legacy", "legacy", "legacy", "modern"]);
    expect(rules.LATEST_LEGACY).toBe("2025-11-25");
    expect(rules.LATEST_MODERN).toBe("2026-07-28");
    expect(rules.compareRevisions("2025-03-26", "2026-07-28")).toBeLessThan(0);
    expect(rules.isRevision("2026-07-28")).toBe(true);
    expect(rules.isRevision("2026-07-29")).toBe(false);
    expect(rules.isRevision("__proto__")).toBe(false);
  });
});

const exists = (method: string) => ALL.filter((r) => rules.hasMethod(r, method));

describe("methods", () => {
  it.each([
    ["initialize", LEGACY],
    ["ping", LEGACY],
    ["logging/setLevel", LEGACY],
    ["resources/subscribe", LEGACY],
    ["resources/unsubscribe", LEGACY],
    ["notifications/initialized", LEGACY],
    ["server/discover", ["2026-07-28"]],
    ["subscriptions/listen", ["2026-07-28"]],
    ["notifications/subscriptions/acknowledged", ["2026-07-28"]],
    ["elicitation/create", ["2025-06-18", "2025-11-25", "2026-07-28"]],
    ["tasks/get", ["2025-11-25"]],
    ["tasks/result", ["2025-11-25"]],
    ["tasks/list", ["2025-11-25"]],
    ["tasks/cancel", ["2025-11-25"]],
    ["notifications/tasks/status", ["2025-11-25"]],
    ["completion/complete", ALL],
    ["tools/call", ALL],
  ] as const)("%s exists in %j", (method, revisions) => {
    expect(exists(method)).toEqual(revisions);
    expect(data.methods[method].revisions).toEqual(revisions);
  });

  it("sampling, roots and elicitation are server→client requests in legacy and input requests in 2026-07-28", () => {
    for (const m of ["sampling/createMessage", "roots/list", "elicitation/create"]) {
      expect(rules.methodKind("2026-07-28", m)).toBe("inputRequest");
      expect(rules.methodFlows("2026-07-28", m, "server→client")).toBe(true);
      for (const r of LEGACY) if (rules.hasMethod(r, m)) expect(rules.methodKind(r, m)).toBe("request");
      expect(rules.methodFlows("2025-11-25", m, "server→client")).toBe(true);
      expect(rules.methodFlows("2025-11-25", m, "client→server")).toBe(false);
    }
  });

  it("ping flows both ways in legacy; notifications/progress only server→client in 2026-07-28", () => {
    expect(rules.methodFlows("2025-03-26", "ping", "client→server")).toBe(true);
    expect(rules.methodFlows("2025-03-26", "ping", "server→client")).toBe(true);
    expect(rules.methodFlows("2025-11-25", "notifications/progress", "client→server")).toBe(true);
    expect(rules.methodFlows("2026-07-28", "notifications/progress", "client→server")).toBe(false);
    expect(rules.methodKind("2026-07-28", "notifications/cancelled")).toBe("notification");
  });
});

describe("error codes", () => {
  it.each([
    ["URL_ELICITATION_REQUIRED", -32042, ["2025-11-25"]],
    ["HEADER_MISMATCH", -32020, ["2026-07-28"]],
    ["MISSING_REQUIRED_CLIENT_CAPABILITY", -32021, ["2026-07-28"]],
    ["UNSUPPORTED_PROTOCOL_VERSION", -32022, ["2026-07-28"]],
    ["INVALID_PARAMS", -32602, ALL],
    ["METHOD_NOT_FOUND", -32601, ALL],
    ["PARSE_ERROR", -32700, ALL],
  ] as const)("%s is %d only in %j", (name, code, revisions) => {
    expect(ALL.filter((r) => rules.errorCode(r, name) === code)).toEqual(revisions);
    expect(ALL.filter((r) => rules.definesErrorCode(r, code))).toEqual(revisions);
  });

  it("resource not found is -32002 in legacy and -32602 in 2026-07-28", () => {
    expect(ALL.map((r) => rules.resourceNotFoundCode(r))).toEqual([-32002, -32002, -32002, -32002, -32602]);
    expect(ALL.map((r) => rules.errorCode(r, "RESOURCE_NOT_FOUND"))).toEqual([-32002, -32002, -32002, -32002, -32602]);
    expect(rules.definesErrorCode("2026-07-28", -32002)).toBe(false);
    expect(data.errorCodes.RESOURCE_NOT_FOUND.find((c) => c.code === -32002)?.source).toBe("spec/2024-11-05/server/resources.mdx#error-handling");
  });
});

/**
 * Every prose rule of generator/overlay.ts, as literal values per revision in the order of ALL, written by hand from
 * the spec pages (spec/<revision>/...), never read from the overlay: a change of the overlay
 * that the spec does not back fails here. Lists are compared as sets (their order carries no rule).
 */
const F = false;
const T = true;
const PINS: Record<string, readonly unknown[]> = {
  // 2025-03-26/basic/index.mdx#batching (MUST support receiving batches); 2025-06-18/changelog.mdx#major-changes (removed).
  supportsBatches: [F, T, F, F, F],
  // 2025-11-25/schema.mdx#jsonrpcerrorresponse (id optional) and basic/index.mdx#error-responses; earlier: id null.
  parseErrorOmitsId: [F, F, F, T, T],
  // <rev>/server/resources.mdx#error-handling: -32002 up to 2025-11-25; -32602 in 2026-07-28 (and changelog.mdx#major-changes).
  resourceNotFoundCode: [-32002, -32002, -32002, -32002, -32602],
  // 2025-06-18/server/tools.mdx#error-handling (protocol error); 2025-11-25/server/tools.mdx#error-handling (isError result).
  toolInputErrorsAsResult: [F, F, F, T, T],
  // 2025-06-18/server/tools.mdx#structured-content (JSON object); 2026-07-28/server/tools.mdx#structured-content (any JSON value).
  structuredContentMustBeObject: [F, F, T, T, F],
  // 2025-11-25/basic/index.mdx#_meta (io.modelcontextprotocol/ prefix reserved); absent before.
  reservesMetaPrefix: [F, F, F, T, T],
  // 2024-11-05/basic/transports.mdx (stdio, #http-with-sse); 2025-03-26/basic/transports.mdx#streamable-http (replaces HTTP+SSE);
  // 2026-07-28/basic/transports/index.mdx (stdio, Streamable HTTP; HTTP+SSE only as deprecated backward compatibility).
  transports: [
    ["stdio", "http+sse"],
    ["stdio", "streamable-http"],
    ["stdio", "streamable-http"],
    ["stdio", "streamable-http"],
    ["stdio", "streamable-http"],
  ],
  // 2024-11-05: HTTP+SSE defines no header. 2025-03-26/basic/transports.mdx#session-management, #resumability-and-redelivery;
  // 2025-06-18/basic/transports.mdx#protocol-version-header; 2026-07-28/basic/transports/streamable-http.mdx#protocol-version-header,
  // #standard-request-headers, #custom-headers-from-tool-parameters, #earlier-streamable-http-revisions (no session, no Last-Event-ID).
  httpHeaders: [
    [],
    ["Mcp-Session-Id", "Last-Event-ID"],
    ["Mcp-Session-Id", "MCP-Protocol-Version", "Last-Event-ID"],
    ["Mcp-Session-Id", "MCP-Protocol-Version", "Last-Event-ID"],
    ["MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", "Mcp-Param-*"],
  ],
  // 2025-03-26/basic/transports.mdx#session-management; 2026-07-28/basic/transports/streamable-http.mdx#earlier-streamable-http-revisions.
  hasSessions: [F, T, T, T, F],
  // 2025-03-26 … 2025-11-25/basic/transports.mdx#resumability-and-redelivery; 2026-07-28/basic/transports/streamable-http.mdx#receiving-messages
  // ("Resumable SSE streams via Last-Event-ID are not supported").
  resumableStreams: [F, T, T, T, F],
  // 2025-11-25/basic/transports.mdx#sending-messages-to-the-server (SHOULD send an event id with empty data; MAY close the connection);
  // 2025-03-26 and 2025-06-18 #sending-messages-to-the-server (SHOULD NOT close before the response); 2026-07-28: no resumption.
  primesSseStreams: [F, F, F, T, F],
  // 2025-06-18/basic/transports.mdx#sending-messages-to-the-server (SHOULD NOT); 2026-07-28/basic/transports/streamable-http.mdx#cancellation (MUST).
  disconnectIsCancellation: [F, F, F, F, T],
  // 2026-07-28/basic/transports/streamable-http.mdx#protocol-version-header (404 with -32601); earlier: a JSON-RPC error in a 200.
  unknownMethodHttpStatus: [200, 200, 200, 200, 404],
  // 2026-07-28/basic/patterns/mrtr.mdx, basic/transports/index.mdx#messages (servers do not initiate requests).
  serverMaySendRequests: [T, T, T, T, F],
  // 2026-07-28/basic/transports/streamable-http.mdx#server-validation (-32020 400), #protocol-version-header (-32022 400),
  // #backward-compatibility (400 for MissingRequiredClientCapabilityError too); none before.
  httpErrorStatuses: [[], [], [], [], ["-32020:400", "-32021:400", "-32022:400"]],
  // 2026-07-28/basic/transports/streamable-http.mdx#standard-request-headers (tools/call, prompts/get name; resources/read uri);
  // extensions/tasks/.../2026-07-28/tasks.md#streamable-http-routing-headers (tasks/get, tasks/update, tasks/cancel taskId).
  nameHeaderSources: [[], [], [], [], ["tools/call:name", "prompts/get:name", "resources/read:uri", "tasks/get:taskId", "tasks/update:taskId", "tasks/cancel:taskId"]],
  // 2025-11-25/basic/utilities/tasks.mdx#capabilities (core); 2026-07-28/changelog.mdx#major-changes and tasks.md#capability-negotiation (extension).
  taskWireForm: ["none", "none", "none", "core", "extension"],
  // 2025-11-25/basic/utilities/tasks.mdx#protocol-messages; extensions/tasks/.../2026-07-28/tasks.md#task-polling, #task-update-requests,
  // #task-cancellation (no tasks/result; no tasks/list: #security-considerations).
  taskMethods: [[], [], [], ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"], ["tasks/get", "tasks/update", "tasks/cancel"]],
  // 2025-11-25/basic/utilities/tasks.mdx#task-cancellation (MUST reject with -32602); tasks.md#task-cancellation (MUST acknowledge).
  // Revisions without tasks take the overlay's default (no task can be cancelled there).
  cancelOfTerminalTask: ["invalid-params", "invalid-params", "invalid-params", "invalid-params", "acknowledge"],
  // 2025-11-25/basic/utilities/tasks.mdx#task-execution-errors (isError: true is failed); tasks.md#task-execution-errors (completed).
  toolErrorTaskStatus: ["failed", "failed", "failed", "failed", "completed"],
};

const asSet = (v: unknown) => (Array.isArray(v) ? [...v].sort() : v);

describe("rules from the prose", () => {
  const table = (f: (r: (typeof ALL)[number]) => unknown) => ALL.map(f);
  it("every prose rule of the overlay is pinned here, and nothing else", () => {
    expect(Object.keys(data.prose).sort()).toEqual(Object.keys(PINS).sort());
  });

  it.each(Object.entries(PINS))("%s: the predicate and rules.json give the hand-written values per revision", (name, expected) => {
    const predicate = (rules as unknown as Record<string, (r: (typeof ALL)[number]) => unknown>)[name];
    expect(typeof predicate, name).toBe("function");
    expect(table(predicate).map(asSet)).toEqual(expected.map(asSet));
    expect(ALL.map((r) => asSet(data.prose[name].byRevision[r]))).toEqual(expected.map(asSet));
  });

  it("isModern: only 2026-07-28", () => {
    expect(table(rules.isModern)).toEqual([F, F, F, F, T]);
  });

  it("headers: MCP-Protocol-Version from 2025-06-18, Mcp-Method/Mcp-Name only in 2026-07-28, sessions only legacy", () => {
    expect(table((r) => rules.hasHeader(r, "mcp-protocol-version"))).toEqual([false, false, true, true, true]);
    expect(table((r) => rules.hasHeader(r, "Mcp-Method"))).toEqual([false, false, false, false, true]);
    expect(table((r) => rules.hasHeader(r, "Mcp-Name"))).toEqual([false, false, false, false, true]);
    expect(table((r) => rules.hasHeader(r, "Mcp-Param-Region"))).toEqual([false, false, false, false, true]);
    expect(table((r) => rules.hasHeader(r, "Mcp-Session-Id"))).toEqual([false, true, true, true, false]);
  });

  it("cacheable results and input_required methods come from the 2026-07-28 schema", () => {
    const cacheable = ["server/discover", "tools/list", "resources/list", "resources/templates/list", "prompts/list", "resources/read"];
    for (const m of cacheable) expect(table((r) => rules.isCacheable(r, m))).toEqual([false, false, false, false, true]);
    expect(rules.isCacheable("2026-07-28", "tools/call")).toBe(false);
    expect(Object.keys(data.cacheableMethods).sort()).toEqual([...cacheable].sort());
    expect(Object.keys(data.inputRequiredMethods).sort()).toEqual(["prompts/get", "resources/read", "tools/call"]);
  });

  it("fields and capabilities per revision", () => {
    expect(table((r) => rules.hasField(r, "CallToolResult", "structuredContent"))).toEqual([false, false, true, true, true]);
    expect(table((r) => rules.hasField(r, "Result", "resultType"))).toEqual([false, false, false, false, true]);
    expect(table((r) => rules.hasCapability(r, "server", "completions"))).toEqual([false, true, true, true, true]);
    expect(table((r) => rules.hasCapability(r, "client", "elicitation"))).toEqual([false, false, true, true, true]);
    expect(table((r) => rules.hasMetaKey(r, "io.modelcontextprotocol/protocolVersion"))).toEqual([false, false, false, false, true]);
    expect(table((r) => rules.requestTypesIncludeEnvelope(r))).toEqual([false, false, false, true, true]);
  });
});

describe("rules diff 2025-11-25 → 2026-07-28", () => {
  const diff = diffRules(data, "2025-11-25", "2026-07-28");
  const names = (title: string, side: "added" | "removed") => diff.sections.find((s) => s.title === title)![side].map((x) => x.split(" ")[0]);
  it("removes exactly initialize, ping, logging/setLevel, resources/(un)subscribe and the tasks methods; adds server/discover and subscriptions/listen", () => {
    const removed = names("requests", "removed").filter((m) => !["elicitation/create", "roots/list", "sampling/createMessage"].includes(m));
    expect(removed).toEqual(["initialize", "logging/setLevel", "ping", "resources/subscribe", "resources/unsubscribe", "tasks/cancel", "tasks/get", "tasks/list", "tasks/result"]);
    expect(names("requests", "added")).toEqual(["server/discover", "subscriptions/listen"]);
    // The three server→client requests did not vanish: they became input requests.
    expect(names("input requests", "added")).toEqual(["elicitation/create", "roots/list", "sampling/createMessage"]);
  });
});
