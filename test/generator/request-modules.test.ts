/**
 * One validator module per client request method (generator/request-modules.ts): which methods get one, where it
 * lives, what it checks (inputResponses only as an object: its entries are validated when a handler uses them,
 * spec/2026-07-28/basic/patterns/mrtr.mdx#error-handling), and the runtime loading a method's module on its first call.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { applyErrata } from "../../generator/errata.js";
import { extractModel, parseSchemaJson } from "../../generator/extract.js";
import { clientRequestMethods, requestModulePath, sharedModule } from "../../generator/request-modules.js";
import { emitValidators } from "../../generator/validators.js";
import { requestValidatorFor, type Validator } from "../../runtime/src/rules.js";
import { OUT, synced } from "../helpers.js";

const scratch = mkdtempSync(join(tmpdir(), "request-modules-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const call = (params: Record<string, unknown>) => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: {}, _meta: meta, ...params } });

describe("clientRequestMethods and requestModulePath", () => {
  it("name the methods of schema.json's ClientRequest union, sorted, and a file for each", () => {
    const schema = {
      $defs: {
        ClientRequest: { anyOf: [{ $ref: "#/$defs/ListThings" }, { $ref: "#/$defs/Call" }, { $ref: "#/$defs/NoMethod" }] },
        ListThings: { properties: { method: { const: "things/templates/list" } } },
        Call: { properties: { method: { const: "tools/call" } } },
        NoMethod: { properties: {} },
      },
    };
    expect(clientRequestMethods(schema)).toEqual(["things/templates/list", "tools/call"]);
    expect(clientRequestMethods({ definitions: {} })).toEqual([]);
    expect(clientRequestMethods(null)).toEqual([]);
    expect(requestModulePath("resources/templates/list")).toBe("requests/resources-templates-list.js");
  });

  it("find two methods that would be one file, also where file names ignore case", () => {
    expect(sharedModule(["tools/call", "tools/list", "resources/templates/list"])).toBeUndefined();
    expect(sharedModule(["tools/call", "tools/list", "tools-call"])).toEqual(["tools/call", "tools-call"]);
    // One file on macOS and Windows: the second would overwrite the first there.
    expect(sharedModule(["tools/call", "Tools/Call"])).toEqual(["tools/call", "Tools/Call"]);
  });

  it("out/ has a module for each 2026-07-28 client request, loaded through a static specifier", () => {
    const loaders = readFileSync(join(OUT, "loaders.ts"), "utf8");
    const methods = [
      "completion/complete",
      "prompts/get",
      "prompts/list",
      "resources/list",
      "resources/read",
      "resources/templates/list",
      "server/discover",
      "subscriptions/listen",
      "tools/call",
      "tools/list",
    ];
    for (const m of methods) {
      const file = `requests/${m.split("/").join("-")}.js`;
      expect(readFileSync(join(OUT, "2026-07-28", file), "utf8")).not.toMatch(/\brequire\(|createRequire|import\.meta/);
      expect(loaders).toContain(`${JSON.stringify(m)}: () => import(${JSON.stringify(`./2026-07-28/${file}`)})`);
    }
    // Not a 2026-07-28 client request: no module.
    expect(loaders).not.toContain("./2026-07-28/requests/initialize.js");
    expect(loaders).toContain('initialize: () => import("./2025-11-25/requests/initialize.js")');
  });
});

describe("a request module's validator", () => {
  it("2026-07-28 tools/call: checks the request, and that inputResponses is an object, not its entries (emitted now)", async () => {
    const jsonPath = synced("2026-07-28/schema.json");
    const tsPath = synced("2026-07-28/schema.ts");
    const json = applyErrata("2026-07-28", parseSchemaJson(jsonPath, readFileSync(jsonPath, "utf8")), jsonPath);
    const model = extractModel(tsPath, readFileSync(tsPath, "utf8"), jsonPath, json);
    const module = emitValidators(jsonPath, json, model).requestModules.find((m) => m.method === "tools/call")!;
    expect(module.path).toBe("requests/tools-call.js");
    const file = join(scratch, "tools-call.mjs");
    writeFileSync(file, module.js);
    const { validate } = (await import(pathToFileURL(file).href)) as { validate: Validator };
    expect(validate(call({}))).toBe(true);
    expect(validate(call({ inputResponses: { "elicitation-1": { action: "bogus" }, other: 5 } }))).toBe(true);
    expect(validate(call({ inputResponses: "not an object" }))).toBe(false);
    expect(validate(call({ name: 7 }))).toBe(false);
    expect(validate({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { arguments: {}, _meta: meta } })).toBe(false);
  });

  it("the runtime loads a method's module on its first call, then answers synchronously; a method the revision lacks has none", async () => {
    expect(requestValidatorFor("2026-07-28", "initialize")).toBeUndefined();
    expect(requestValidatorFor("2025-11-25", "server/discover")).toBeUndefined();
    const first = requestValidatorFor("2025-11-25", "ping");
    expect(first).toBeInstanceOf(Promise);
    const loaded = await first;
    expect(requestValidatorFor("2025-11-25", "ping")).toBe(loaded);
    expect(loaded!({ jsonrpc: "2.0", id: 1, method: "ping" })).toBe(true);
    expect(loaded!({ jsonrpc: "2.0", id: 1, method: "ping", params: "x" })).toBe(false);
    const init = (await requestValidatorFor("2025-11-25", "initialize"))!;
    expect(init({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } } })).toBe(true);
    expect(init({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {} } })).toBe(false);
  });
});
