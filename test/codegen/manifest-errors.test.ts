/**
 * Mistakes in mcp.json, through the real `create-mcp-server-generate` on temporary projects: each is one line on
 * stderr naming the file, the JSON pointer (line:column for a syntax error) and what is expected; exit 1; no stack
 * trace; nothing written to generated/.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generate, makeProject, minimalManifest, workDir } from "./support.js";

const work = workDir("errors");
afterAll(() => work.remove());

const KNOWN = "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28";

/** A manifest from the minimal one with `change` applied. */
const changed = (change: (m: Record<string, any>) => void) => {
  const m = minimalManifest();
  change(m);
  return m;
};

const cases: [string, object | string, string[]][] = [
  [
    "a JSON syntax error: line and column, not a byte position",
    '{\n  "name": "demo",\n  "version": "1.0.0"\n  "tools": []\n}\n',
    ["mcp.json:4:3: invalid JSON: expected ',' or '}' after a property value, found '\"'"],
  ],
  ["a trailing comma", '{ "name": "demo", "version": "1.0.0", }', ["mcp.json:1:39: invalid JSON: expected another key after ',' (JSON has no trailing commas), found '}'"]],
  [
    "a file cut short",
    '{ "name": "demo",\n  "tools": [',
    ["mcp.json:2:13: invalid JSON: expected a JSON value (a string, a number, an object, an array, true, false or null), found the end of the file"],
  ],
  ["an unknown top-level key, with the key it resembles", changed((m) => (m.tool = [])), ['mcp.json: /tool: unknown key; did you mean "tools"?']],
  ["an unknown key in a tool, with the key it resembles", changed((m) => (m.tools[0].inputschema = {})), ['mcp.json: /tools/0/inputschema: tool "echo": unknown key; did you mean "inputSchema"?']],
  [
    "a required key misspelt: one line, the did-you-mean, not also its absence",
    changed((m) => {
      m.tools[0].inputSchma = m.tools[0].inputSchema;
      delete m.tools[0].inputSchema;
    }),
    ['mcp.json: /tools/0/inputSchma: tool "echo": unknown key; did you mean "inputSchema"?'],
  ],
  [
    "an unknown key that resembles none: the keys there are listed",
    changed((m) => (m.resources = [{ uri: "app://a", name: "a", handler: "./a.js" }])),
    ['mcp.json: /resources/0/handler: resource "a": unknown key; expected one of "uri", "name", "title", "description", "mimeType", "size", "annotations", "icons", "_meta", "scopes" or "revisions"'],
  ],
  [
    "a revision the installed runtime does not know (the server would die at start)",
    changed((m) => (m.revisions = ["2025-11-25", "2099-01-01"])),
    [`mcp.json: /revisions/1: unknown revision "2099-01-01"; the installed @create-mcp-server/runtime 0.1.0 knows ${KNOWN}`],
  ],
  [
    "an unknown revision of one tool",
    changed((m) => (m.tools[0].revisions = ["2025-13-01"])),
    [`mcp.json: /tools/0/revisions/0: unknown revision "2025-13-01"; the installed @create-mcp-server/runtime 0.1.0 knows ${KNOWN}`],
  ],
  [
    "an invalid JSON Schema in a tool's inputSchema: the tool, the pointer inside mcp.json and the keyword",
    changed((m) => {
      m.tools.push({ name: "add", inputSchema: { type: "object" } });
      m.tools.push({ name: "lookup", inputSchema: { type: "object", properties: { x: { type: "strng" } } } });
    }),
    [
      'mcp.json: /tools/2/inputSchema/properties/x/type: tool "lookup": inputSchema is not a valid JSON Schema (2020-12): keyword "type" must be "array", "boolean", "integer", "null", "number", "object" or "string", not "strng"',
    ],
  ],
  [
    "an invalid draft-07 outputSchema",
    changed((m) => (m.tools[0].outputSchema = { $schema: "http://json-schema.org/draft-07/schema#", type: "object", required: "text" })),
    ['mcp.json: /tools/0/outputSchema/required: tool "echo": outputSchema is not a valid JSON Schema (draft-07): keyword "required" must be array, not "text"'],
  ],
  ["an inputSchema that is not an object schema", changed((m) => (m.tools[0].inputSchema = { type: "string" })), ['mcp.json: /tools/0/inputSchema/type: tool "echo": must be "object", not "string"']],
  ["a missing required key", changed((m) => delete m.tools[0].inputSchema), ['mcp.json: /tools/0: missing "inputSchema", which is required']],
  ["a value of the wrong type", changed((m) => (m.version = 1)), ["mcp.json: /version: must be a string, not the number 1"]],
  [
    "a taskSupport that is none of the three",
    changed((m) => (m.tools[0].taskSupport = "sometimes")),
    ['mcp.json: /tools/0/taskSupport: tool "echo": must be "forbidden", "optional" or "required", not "sometimes"'],
  ],
  [
    "a tool name the runtime's rule refuses (a slash)",
    changed((m) => (m.tools[0].name = "files/read")),
    ['mcp.json: /tools/0/name: must be 1-128 characters of A-Z, a-z, 0-9, _, - and ., not "files/read"'],
  ],
  ["a tool name of 129 characters", changed((m) => (m.tools[0].name = "t".repeat(129))), [`mcp.json: /tools/0/name: must be 1-128 characters of A-Z, a-z, 0-9, _, - and ., not "${"t".repeat(129)}"`]],
  [
    "two tools that would share a handler file",
    changed((m) => m.tools.push({ name: "e.cho", inputSchema: { type: "object" } }, { name: "e-cho", inputSchema: { type: "object" } })),
    ['mcp.json: /tools/2/name: tool "e-cho" clashes with "e.cho" (/tools/1/name): both make the type name "ECho"'],
  ],
  ["a tool declared twice", changed((m) => m.tools.push({ ...m.tools[0] })), ['mcp.json: /tools/1/name: tool "echo" is declared twice (also /tools/0/name)']],
  [
    "a completed variable the URI template does not have",
    changed((m) => (m.resourceTemplates = [{ uriTemplate: "app://greetings/{name}", name: "greeting", complete: ["nam"] }])),
    ['mcp.json: /resourceTemplates/0/complete/0: "nam" is not a variable of app://greetings/{name}; its variables: name'],
  ],
  [
    "a resource URI declared twice",
    changed(
      (m) =>
        (m.resources = [
          { uri: "app://a", name: "a" },
          { uri: "app://a", name: "b" },
        ]),
    ),
    ['mcp.json: /resources/1/uri: resource "app://a" is declared twice (also /resources/0)'],
  ],
  [
    "a scope with a space",
    changed((m) => (m.tools[0].scopes = ["tools read"])),
    ['mcp.json: /tools/0/scopes/0: tool "echo": must be an OAuth scope (printable ASCII, no spaces, quotes or backslashes), not "tools read"'],
  ],
  [
    "nesting too deep for the checks (once a stack overflow with its trace), even where the JSON is broken further on",
    `{ "name": "demo", "version": "1.0.0", "_meta": ${"[".repeat(20000)} }`,
    ["mcp.json:1:303: invalid JSON: expected at most 256 levels of nested objects and arrays, found '['"],
  ],
  [
    "a key given twice (JSON.parse would silently keep only the last)",
    '{\n  "name": "demo",\n  "version": "1.0.0",\n  "tools": [],\n  "tools": []\n}\n',
    ['mcp.json:5:3: invalid JSON: expected each key once in an object (JSON.parse keeps only the last), found "tools" again (first at 4:3)'],
  ],
  [
    "a $schema of a draft the generator does not have (once a stack trace)",
    changed((m) => (m.tools[0].inputSchema.$schema = "https://json-schema.org/draft/2019-09/schema")),
    [
      'mcp.json: /tools/0/inputSchema/$schema: tool "echo": inputSchema is not a valid JSON Schema: keyword "$schema" must be "http://json-schema.org/draft-07/schema#" (draft-07) or "https://json-schema.org/draft/2020-12/schema" (2020-12), not "https://json-schema.org/draft/2019-09/schema"',
    ],
  ],
  [
    "a $ref to another document (the generators would fetch it)",
    changed((m) => (m.tools[0].inputSchema.properties.text = { $ref: "http://127.0.0.1:9/text.json" })),
    [
      'mcp.json: /tools/0/inputSchema/properties/text/$ref: tool "echo": inputSchema is not a valid JSON Schema (2020-12): keyword "$ref" must point inside this schema (#/$defs/… or #/definitions/…), not to another document "http://127.0.0.1:9/text.json"',
    ],
  ],
  [
    "a tool whose result type is a name handlers.ts imports from the runtime",
    changed((m) => m.tools.push({ name: "tool", inputSchema: { type: "object" }, outputSchema: { type: "object" } })),
    ['mcp.json: /tools/1/name: tool "tool" makes the type "ToolResult" of generated/handlers.ts, a name generated/handlers.ts already imports from @create-mcp-server/runtime; rename the tool'],
  ],
  [
    "a tool and a prompt that make the same type",
    changed((m) => {
      m.tools[0].name = "echoPrompt";
      m.prompts = [{ name: "echo" }];
    }),
    ['mcp.json: /prompts/0/name: prompt "echo" makes the type "EchoPromptArgs" of generated/handlers.ts, as does tool "echoPrompt" (/tools/0/name); rename the prompt'],
  ],
  [
    "every mistake of the file at once, one line each",
    changed((m) => {
      delete m.name;
      m.tool = [];
      m.transports = ["stdio", "carrier-pigeon"];
      m.prompts = [{ name: "summarize", arguments: [{ name: "2nd" }] }];
    }),
    [
      'mcp.json: missing "name", which is required',
      'mcp.json: /tool: unknown key; did you mean "tools"?',
      'mcp.json: /transports/1: must be "stdio" or "http", not "carrier-pigeon"',
      'mcp.json: /prompts/0/arguments/0/name: prompt "summarize": must be an identifier (A-Z, a-z, 0-9, _ and $, not starting with a digit), not "2nd"',
    ],
  ],
];

describe("create-mcp-server-generate on a mistaken mcp.json", () => {
  cases.forEach(([what, manifest, expected], i) => {
    it(`answers ${what}`, async () => {
      const project = makeProject(join(work.dir, `case-${i}`), manifest, { "src/tools/echo.ts": "export const handler = () => ({ content: [] });\n" });
      const r = await generate(project);
      expect({ status: r.status, stdout: r.stdout, stderr: r.stderr.split("\n").filter(Boolean) }).toEqual({ status: 1, stdout: "", stderr: expected });
      expect(existsSync(join(project, "generated")), "nothing is generated from a mistaken mcp.json").toBe(false);
    });
  });

  it("names the missing runtime, which it checks mcp.json against", async () => {
    const project = makeProject(join(work.dir, "no-runtime"), minimalManifest(), {}, { runtime: false });
    const r = await generate(project);
    expect([r.status, r.stderr]).toEqual([1, `generate: @create-mcp-server/runtime is not installed in ${project}: run npm install (mcp.json is checked against the revisions it knows)\n`]);
  });

  it("names the directory it searched when there is no mcp.json", async () => {
    const dir = join(work.dir, "not-a-project");
    makeProject(dir, "{}");
    rmSync(join(dir, "mcp.json"));
    const r = await generate(dir);
    expect([r.status, r.stderr]).toEqual([1, `generate: no mcp.json in ${dir} or above: run create-mcp-server-generate in a project\n`]);
  });
});
