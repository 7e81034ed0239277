/**
 * codegen/mcp.schema.json against the runtime's definition types (runtime/src/server/types.ts, read with ts-morph):
 * each kind's schema has exactly the keys its definition takes, less its code, so a key the runtime gains without the
 * schema (or the schema without the runtime) fails here. Also: the tool-name pattern is the runtime's TOOL_NAME, every
 * property is described for editors, and unknown keys are refused wherever they are mistakes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { Project, type Type } from "ts-morph";
import { describe, expect, it } from "vitest";
import { TOOL_NAME } from "../../runtime/src/server/server.js";
import { ROOT } from "../helpers.js";

type SchemaNode = { $ref?: string; properties?: Record<string, SchemaNode>; items?: SchemaNode; additionalProperties?: unknown; description?: string; [k: string]: unknown };
const schema = JSON.parse(readFileSync(join(ROOT, "codegen", "mcp.schema.json"), "utf8")) as SchemaNode & { definitions: Record<string, SchemaNode> };

const project = new Project({ tsConfigFilePath: join(ROOT, "runtime", "tsconfig.json"), skipAddingFilesFromTsConfig: true });
const types = project.addSourceFileAtPath(join(ROOT, "runtime", "src", "server", "types.ts"));
project.resolveSourceFileDependencies();

const keysOf = (t: Type) => t.getProperties().map((p) => p.getName());
const definition = (name: string) => types.getInterfaceOrThrow(name).getType();
/** The type of a definition's property, without `undefined` (and the element type of an array). */
function propertyType(owner: Type, key: string): Type {
  const t = owner.getPropertyOrThrow(key).getTypeAtLocation(types).getNonNullableType();
  return t.isArray() ? t.getArrayElementTypeOrThrow() : t;
}
/** A schema node with its $ref followed (and an array's items). */
function resolve(node: SchemaNode): SchemaNode {
  const target = node.$ref ? schema.definitions[node.$ref.replace("#/definitions/", "")] : node;
  return target.type === "array" && target.items ? resolve(target.items) : target;
}
const schemaKeys = (node: SchemaNode) => Object.keys(resolve(node).properties ?? {}).sort();

/** Each kind: its runtime definition, the keys that are code (not expressible in mcp.json), and the keys mcp.json adds. */
const KINDS: { kind: string; type: string; code: string[]; only?: string[] }[] = [
  { kind: "tool", type: "ToolDefinition", code: ["handler", "validateInput", "validateOutput"] },
  { kind: "prompt", type: "PromptDefinition", code: ["get", "complete"] },
  { kind: "resource", type: "ResourceDefinition", code: ["read"] },
  // A template's `complete` is the handler's completers in the runtime, and the names of the completed variables in mcp.json.
  { kind: "resourceTemplate", type: "ResourceTemplateDefinition", code: ["read"] },
];

describe("mcp.schema.json and the runtime's definition types", () => {
  for (const { kind, type, code } of KINDS) {
    it(`a ${kind} has the keys of ${type} other than its code`, () => {
      const runtime = keysOf(definition(type)).filter((k) => !code.includes(k));
      expect(schemaKeys(schema.definitions[kind])).toEqual(runtime.sort());
    });
  }

  it("the nested objects have the keys of their protocol types: tool annotations, resource annotations, icons, prompt arguments", () => {
    const tool = definition("ToolDefinition");
    expect(schemaKeys(schema.definitions.tool.properties!.annotations)).toEqual(keysOf(propertyType(tool, "annotations")).sort());
    expect(schemaKeys(schema.definitions.resource.properties!.annotations)).toEqual(keysOf(propertyType(definition("ResourceDefinition"), "annotations")).sort());
    expect(schemaKeys(schema.definitions.resourceTemplate.properties!.annotations)).toEqual(keysOf(propertyType(definition("ResourceTemplateDefinition"), "annotations")).sort());
    for (const owner of ["ToolDefinition", "PromptDefinition", "ResourceDefinition", "ResourceTemplateDefinition"]) {
      expect(schemaKeys(schema.definitions.icons), owner).toEqual(keysOf(propertyType(definition(owner), "icons")).sort());
    }
    // `complete` marks an argument the handler completes (the generator's, not the protocol's).
    expect(schemaKeys(schema.definitions.prompt.properties!.arguments)).toEqual([...keysOf(propertyType(definition("PromptDefinition"), "arguments")), "complete"].sort());
  });

  it("the server's keys are options of createServer, besides what only the project reads (transports, authorization, the lists)", () => {
    const options = keysOf(definition("ServerOptions"));
    const projectOnly = ["$schema", "transports", "authorization", "tools", "prompts", "resources", "resourceTemplates"];
    expect(Object.keys(schema.properties!).filter((k) => !projectOnly.includes(k) && !options.includes(k))).toEqual([]);
  });

  it("a tool name's pattern is the runtime's TOOL_NAME", () => {
    expect(schema.definitions.tool.properties!.name.pattern).toBe(TOOL_NAME.source);
  });
});

describe("mcp.schema.json for editors", () => {
  /** Every property schema under `node`, with its path. */
  function properties(node: SchemaNode, path: string): [string, SchemaNode][] {
    return Object.entries(node.properties ?? {}).flatMap(([k, v]) => [[`${path}/${k}`, v] as [string, SchemaNode], ...(v.items ? [[`${path}/${k}[]`, v.items] as [string, SchemaNode]] : [])]);
  }
  const all = [...properties(schema, ""), ...Object.entries(schema.definitions).flatMap(([name, d]) => [[`#${name}`, d] as [string, SchemaNode], ...properties(d, `#${name}`)])];

  it("is a valid draft-07 schema (with the editors' patternErrorMessage keyword)", () => {
    const ajv = new Ajv({ strict: true, allowUnionTypes: true, validateFormats: false });
    ajv.addKeyword({ keyword: "patternErrorMessage", schemaType: "string" });
    expect(() => ajv.compile(schema)).not.toThrow();
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
  });

  it("describes every property (a $ref takes its definition's description)", () => {
    expect(all.filter(([, node]) => !resolve(node).description && !node.description).map(([path]) => path)).toEqual([]);
  });

  it("refuses unknown keys in every object but the open ones (tool schemas, _meta)", () => {
    const open = ["#tool/inputSchema", "#tool/outputSchema", "#meta"];
    const objects = [["", schema] as [string, SchemaNode], ...all].filter(([path, node]) => node.type === "object" && !open.includes(path));
    expect(objects.filter(([, node]) => node.additionalProperties !== false).map(([path]) => path)).toEqual([]);
  });
});
