// The mapping rules of docs/openapi.md, each on a small hand-written document with its expectation written by hand.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { pascal as codegenPascal } from "../../codegen/src/names.js";
import { buildImport } from "../../generator/openapi/build.js";
import { loadDocument } from "../../generator/openapi/load.js";
import { argNames, annotations, cut } from "../../generator/openapi/map.js";
import { envStem, methodPathName, pascal, uniqueNames, validName } from "../../generator/openapi/names.js";
import { SchemaConverter } from "../../generator/openapi/schema.js";
import { securitySchemes } from "../../generator/openapi/security.js";
import { tempDir } from "../scaffold/support.js";

async function importOf(doc: Record<string, unknown>, filters = {}) {
  const file = join(tempDir("openapi-unit"), "doc.json");
  writeFileSync(file, JSON.stringify({ openapi: "3.0.3", info: { title: "T", version: "1" }, ...doc }));
  return buildImport(await loadDocument(file), filters);
}
const ok = { responses: { "204": { description: "none" } } };

describe("names", () => {
  it("tool names: valid characters only, 128 at most, method and path without an operationId", () => {
    expect(validName("pets/list all")).toBe("pets_list_all");
    expect(validName("x".repeat(200))).toHaveLength(128);
    expect(methodPathName("get", "/pets/{petId}/photos")).toBe("get_pets_petId_photos");
  });
  it("unique names: -2, -3 in order, also against collisions of type names and reserved names", () => {
    expect(uniqueNames(["getPet", "get_pet", "GetPet", "other"])).toEqual(["getPet", "get_pet-2", "GetPet-3", "other"]);
    expect(uniqueNames(["echo"], ["echo"])).toEqual(["echo-2"]);
  });
  it("the type name stem is the codegen's", () => {
    for (const n of ["get-pet", "a.b_c", "1st", "__", "listPets-2"]) expect(pascal(n)).toBe(codegenPascal(n));
  });
  it("argument names: a collision keeps both apart by location; body is reserved when there is a body", () => {
    expect(
      argNames(
        [
          { name: "id", in: "path" },
          { name: "id", in: "query" },
          { name: "q", in: "query" },
        ],
        false,
      ),
    ).toEqual(["path_id", "query_id", "q"]);
    expect(argNames([{ name: "body", in: "query" }], true)).toEqual(["query_body"]);
    expect(argNames([{ name: "filter[name]", in: "query" }], false)).toEqual(["filter_name"]);
  });
  it("environment stems", () => {
    expect(envStem("petstore_auth")).toBe("PETSTORE_AUTH");
    expect(envStem("ApiKeyAuth")).toBe("API_KEY_AUTH");
    expect(envStem("x-api-key")).toBe("X_API_KEY");
  });
  it("descriptions cut at a sentence end", () => {
    expect(cut(`${"a".repeat(60)}. ${"b".repeat(60)}`, 100)).toBe(`${"a".repeat(60)}. …`);
  });
});

describe("annotations", () => {
  it("GET/HEAD read only, DELETE destructive and idempotent, PUT idempotent, all open world", () => {
    expect(annotations("get")).toEqual({ readOnlyHint: true, openWorldHint: true });
    expect(annotations("head")).toEqual({ readOnlyHint: true, openWorldHint: true });
    expect(annotations("delete")).toEqual({ destructiveHint: true, idempotentHint: true, openWorldHint: true });
    expect(annotations("put")).toEqual({ idempotentHint: true, openWorldHint: true });
    expect(annotations("post")).toEqual({ openWorldHint: true });
  });
});

describe("OpenAPI 3.0 schemas → JSON Schema 2020-12", () => {
  const c = () => new SchemaConverter("3.0");
  it("nullable, example, boolean exclusiveMinimum, discriminator/xml/externalDocs dropped", () => {
    expect(c().convert({ type: "string", nullable: true, example: "x", xml: { name: "a" }, externalDocs: { url: "u" } }, "input")).toEqual({ type: ["string", "null"], examples: ["x"] });
    expect(c().convert({ type: "integer", minimum: 0, exclusiveMinimum: true }, "input")).toEqual({ type: "integer", exclusiveMinimum: 0 });
    expect(c().convert({ oneOf: [{ type: "string" }], discriminator: { propertyName: "k" } }, "input")).toEqual({ oneOf: [{ type: "string" }] });
    expect(c().convert({ enum: ["a"], nullable: true }, "input")).toEqual({ enum: ["a", null] });
  });
  it("readOnly properties out of what is sent, writeOnly out of what is received", () => {
    const s = { type: "object", required: ["id", "pw"], properties: { id: { type: "integer", readOnly: true }, pw: { type: "string", writeOnly: true } } };
    expect(c().convert(s, "input")).toEqual({ type: "object", required: ["pw"], properties: { pw: { type: "string", writeOnly: true } } });
    expect(c().convert(s, "output")).toEqual({ type: "object", required: ["id"], properties: { id: { type: "integer", readOnly: true } } });
  });
  it("values a 2020-12 validator refuses are dropped, and the result compiles", () => {
    const out = c().convert({ type: "object", required: true, properties: { a: { type: "file", pattern: "\\p{", minLength: -1 } } }, "input");
    expect(out).toEqual({ type: "object", properties: { a: { type: "string", format: "binary" } } });
    expect(() => new Ajv2020({ strict: false }).compile(out)).not.toThrow();
  });
  it("a cycle is cut with a description naming the schema", () => {
    const conv = c();
    expect(conv.convert({ $ref: "#/components/schemas/Node" }, "output")).toEqual({ description: "Node (cyclic: the OpenAPI document's schema refers back to itself here; cut, any value accepted)" });
    expect([...conv.cuts]).toEqual(["Node"]);
  });
});

describe("a document's tools", () => {
  it("one input object of parameters and body, the first 2xx object schema as outputSchema", async () => {
    const b = await importOf({
      paths: {
        "/pets/{id}": {
          parameters: [{ name: "id", in: "path", schema: { type: "string" } }],
          put: {
            operationId: "updatePet",
            summary: "Update a pet",
            parameters: [
              { name: "id", in: "query", schema: { type: "integer" } },
              { name: "Accept", in: "header", schema: { type: "string" } },
            ],
            requestBody: { required: true, content: { "application/json": { schema: { type: "object", properties: { name: { type: "string" } } } } } },
            responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object", properties: { id: { type: "string" } } } } } } },
          },
        },
      },
    });
    const [t] = b.tools;
    expect(t.entry).toEqual({
      name: "updatePet",
      title: "Update a pet",
      description: "Update a pet",
      inputSchema: {
        type: "object",
        properties: { path_id: { type: "string" }, query_id: { type: "integer" }, body: { type: "object", properties: { name: { type: "string" } } } },
        required: ["path_id", "body"],
        additionalProperties: false,
      },
      outputSchema: { type: "object", properties: { id: { type: "string" } } },
      annotations: { idempotentHint: true, openWorldHint: true },
    });
    expect(t.descriptor.parameters.map((p) => [p.in, p.name, p.arg])).toEqual([
      ["path", "id", "path_id"],
      ["query", "id", "query_id"],
    ]);
    expect(t.descriptor).toMatchObject({ output: "body", body: { arg: "body", required: true, contentType: "application/json" } });
  });
  it("an array response is wrapped, none is text", async () => {
    const b = await importOf({
      paths: {
        "/a": { get: { responses: { "200": { description: "", content: { "application/json": { schema: { type: "array", items: { type: "string" } } } } } } } },
        "/b": { get: { responses: { "200": { description: "", content: { "text/plain": { schema: { type: "string" } } } } } } },
      },
    });
    expect(b.tools.map((t) => [t.entry.name, t.descriptor.output, t.entry.outputSchema])).toEqual([
      ["get_a", "wrapped", { type: "object", properties: { result: { type: "array", items: { type: "string" } } }, required: ["result"] }],
      ["get_b", "text", undefined],
    ]);
  });
  it("filters: --include-tags, --exclude-operations, x-mcp on the operation and at the root; unknown names noted", async () => {
    const paths = {
      "/a": { get: { operationId: "a", tags: ["x"], ...ok } },
      "/b": { get: { operationId: "b", tags: ["y"], ...ok } },
      "/c": { get: { operationId: "c", tags: ["y"], "x-mcp": { exclude: true }, ...ok } },
      "/d": { get: { operationId: "d", "x-mcp": { name: "dee", description: "D for agents" }, ...ok } },
    };
    expect((await importOf({ paths })).tools.map((t) => t.entry.name)).toEqual(["a", "b", "dee"]);
    expect((await importOf({ paths }, { includeTags: ["y"] })).tools.map((t) => t.entry.name)).toEqual(["b"]);
    const ex = await importOf({ paths }, { excludeOperations: ["a", "zz"] });
    expect(ex.tools.map((t) => t.entry.name)).toEqual(["b", "dee"]);
    expect(ex.notes).toEqual(['--exclude-operations: the document has no operation "zz"']);
    const rooted = await importOf({ "x-mcp": { exclude: true }, paths: { ...paths, "/e": { get: { operationId: "e", "x-mcp": { exclude: false }, ...ok } } } });
    expect(rooted.tools.map((t) => [t.entry.name, t.entry.description])).toEqual([["e", "GET /e"]]);
    expect((await importOf({ paths })).tools[2].entry.description).toBe("D for agents");
  });
  it("over 100 operations: a warning naming the count and how to select", async () => {
    const paths = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`/p${i}`, { get: { tags: ["t"], ...ok } }]));
    expect((await importOf({ paths })).notes).toEqual([
      "101 operations selected: an agent chooses better among fewer tools; select some with --include-tags <tag,…> or --exclude-operations <id,…>, or x-mcp in the document (docs/openapi.md); its tags include t (101)",
    ]);
  });
  it("servers: variables replaced by their defaults", async () => {
    const b = await importOf({ servers: [{ url: "https://{region}.example.com/v{v}", variables: { region: { default: "eu" }, v: { default: "2" } } }], paths: { "/a": { get: ok } } });
    expect(b.api.servers).toEqual(["https://eu.example.com/v2"]);
  });
});

describe("security schemes → descriptors and environment variables", () => {
  it("one rule per kind; unsupported flows; a taken variable gets _2", () => {
    const schemes = securitySchemes(
      {
        api_key: { type: "apiKey", in: "header", name: "X-Key" },
        ApiKeyAuth: { type: "apiKey", in: "query", name: "key" },
        bearer: { type: "http", scheme: "bearer" },
        basic: { type: "http", scheme: "Basic" },
        petstore_auth: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://a/token", scopes: { read: "" } }, implicit: { authorizationUrl: "https://a", scopes: {} } } },
        implicit_only: { type: "oauth2", flows: { implicit: { authorizationUrl: "https://a", scopes: {} } } },
        oidc: { type: "openIdConnect", openIdConnectUrl: "https://a/.well-known/openid-configuration" },
        tls: { type: "mutualTLS" },
        digest: { type: "http", scheme: "digest" },
        "api-key": { type: "apiKey", in: "cookie", name: "k" },
      },
      (u) => u,
    );
    expect(schemes).toEqual({
      api_key: { type: "apiKey", in: "header", name: "X-Key", env: { value: "API_KEY" } },
      ApiKeyAuth: { type: "apiKey", in: "query", name: "key", env: { value: "API_KEY_AUTH_KEY" } },
      bearer: { type: "http", scheme: "bearer", env: { token: "BEARER_TOKEN" } },
      basic: { type: "http", scheme: "basic", env: { username: "BASIC_USERNAME", password: "BASIC_PASSWORD" } },
      petstore_auth: {
        type: "oauth2",
        flow: "clientCredentials",
        tokenUrl: "https://a/token",
        scopes: ["read"],
        env: { clientId: "PETSTORE_AUTH_CLIENT_ID", clientSecret: "PETSTORE_AUTH_CLIENT_SECRET" },
      },
      implicit_only: { type: "unsupported", original: "oauth2 implicit", bearer: true, env: {} },
      oidc: { type: "unsupported", original: "openIdConnect", bearer: true, env: {} },
      tls: { type: "unsupported", original: "mutualTLS", bearer: false, env: {} },
      digest: { type: "unsupported", original: "http digest", bearer: false, env: {} },
      "api-key": { type: "apiKey", in: "cookie", name: "k", env: { value: "API_KEY_2_KEY" } },
    });
  });
});

describe("what is refused", () => {
  it("Swagger 2.0 in one line", async () => {
    const file = join(tempDir("openapi-unit"), "swagger.json");
    writeFileSync(file, JSON.stringify({ swagger: "2.0", info: { title: "T", version: "1" }, paths: {} }));
    await expect(loadDocument(file)).rejects.toThrow(`${file} is Swagger 2.0; convert it to OpenAPI 3 first (for example with swagger2openapi)`);
  });
});
