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

describe("rules from the prose", () => {
  const table = (f: (r: (typeof ALL)[number]) => unknown) => ALL.map(f);
  it.each([
    ["supportsBatches", rules.supportsBatches, [false, true, false, false, false]],
    ["parseErrorOmitsId", rules.parseErrorOmitsId, [false, false, false, true, true]],
    ["toolInputErrorsAsResult", rules.toolInputErrorsAsResult, [false, false, false, true, true]],
    ["structuredContentMustBeObject", rules.structuredContentMustBeObject, [false, false, true, true, false]],
    ["reservesMetaPrefix", rules.reservesMetaPrefix, [false, false, false, true, true]],
    ["hasSessions", rules.hasSessions, [false, true, true, true, false]],
    ["disconnectIsCancellation", rules.disconnectIsCancellation, [false, false, false, false, true]],
    ["unknownMethodHttpStatus", rules.unknownMethodHttpStatus, [200, 200, 200, 200, 404]],
    ["serverMaySendRequests", rules.serverMaySendRequests, [true, true, true, true, false]],
    ["isModern", rules.isModern, [false, false, false, false, true]],
  ] as const)("%s", (_name, predicate, expected) => {
    expect(table(predicate as (r: (typeof ALL)[number]) => unknown)).toEqual(expected);
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
