// The OpenAPI client against a real mock of real documents: Prism 5.12 (@stoplight/prism-cli) serving the Petstore
// OpenAPI 3.0 and 3.1 documents and the 3.1 security examples of @readme/oas-examples, on 127.0.0.1, behind the
// recording proxy of the generated projects' tests (templates/_openapi/test/api-mock.ts). The descriptors are written
// here by hand from the documents; Prism enforces their security (401), validates requests (400/422) and answers the
// documented response `Prefer: code=<n>` names.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callOperation, callTool } from "../../templates/_openapi/src/api/client.ts";
import type { ApiDescriptor, OperationDescriptor } from "../../templates/_openapi/src/api/descriptor.ts";
import { startPrism, startRecordingProxy, type Mock, type RecordingProxy } from "../../templates/_openapi/test/api-mock.ts";

const examples = (path: string) => createRequire(import.meta.url).resolve(`@readme/oas-examples/${path}`);
const textOf = (r: { content: { type: string; text?: string }[] }) => r.content.map((c) => c.text ?? "").join("");

const ENV = ["API_BASE_URL", "API_FORWARD_MCP_TOKEN", "PETSTORE_API_KEY", "SEC_KEY", "SEC_USER", "SEC_PASSWORD", "SEC_TOKEN", "SEC_CLIENT_ID", "SEC_CLIENT_SECRET"];
const resetEnv = (proxy: RecordingProxy) => {
  for (const name of ENV) delete process.env[name];
  process.env.API_BASE_URL = proxy.url;
  proxy.requests.length = 0;
  proxy.override = undefined;
};

/** Schemas of the Petstore document (components.schemas), as the importer would convert them. */
const Tag = { type: "object", properties: { id: { type: "integer" }, name: { type: "string" } } };
const Pet = {
  type: "object",
  required: ["name", "photoUrls"],
  properties: {
    id: { type: "integer" },
    category: Tag,
    name: { type: "string" },
    photoUrls: { type: "array", items: { type: "string" } },
    tags: { type: "array", items: Tag },
    status: { enum: ["available", "pending", "sold"] },
  },
};
const Order = {
  type: "object",
  properties: {
    id: { type: "integer" },
    petId: { type: "integer" },
    quantity: { type: "integer" },
    shipDate: { type: "string", format: "date-time" },
    status: { enum: ["placed", "approved", "delivered"] },
    complete: { type: "boolean" },
  },
};
const petstore: ApiDescriptor = {
  title: "Swagger Petstore",
  version: "1.0.0",
  servers: ["http://petstore.swagger.io/v2"],
  security: [],
  securitySchemes: {
    api_key: { type: "apiKey", in: "header", name: "api_key", env: { value: "PETSTORE_API_KEY" } },
    petstore_auth: { type: "unsupported", original: "oauth2 implicit", bearer: true, env: {} },
  },
};
const prefer = { name: "Prefer", in: "header" as const, arg: "prefer", required: false };
const getPetById: OperationDescriptor = {
  tool: "get_pet_by_id",
  operationId: "getPetById",
  method: "get",
  path: "/pet/{petId}",
  parameters: [{ name: "petId", in: "path", arg: "petId", required: true, schema: { type: "integer" } }, prefer],
  responses: { "200": { contentType: "application/json", schema: Pet }, "400": {}, "404": {}, default: {} },
  output: "body",
  security: [{ api_key: [] }],
};
const findPetsByStatus: OperationDescriptor = {
  tool: "find_pets_by_status",
  operationId: "findPetsByStatus",
  method: "get",
  path: "/pet/findByStatus",
  parameters: [{ name: "status", in: "query", arg: "status", required: true, explode: true, schema: { type: "array", items: { type: "string" } } }],
  responses: { "200": { contentType: "application/json", schema: { type: "array", items: Pet } }, "400": {} },
  output: "wrapped",
  security: [{ petstore_auth: ["write:pets", "read:pets"] }],
};
const placeOrder = (schema?: Record<string, unknown>): OperationDescriptor => ({
  tool: "place_order",
  operationId: "placeOrder",
  method: "post",
  path: "/store/order",
  parameters: [],
  body: { arg: "body", required: false, contentType: "application/json", ...(schema ? { schema } : {}) },
  responses: { "200": { contentType: "application/json", schema: Order }, "400": {} },
  output: "body",
});
const createUser: OperationDescriptor = {
  tool: "create_user",
  operationId: "createUser",
  method: "post",
  path: "/user",
  parameters: [],
  body: { arg: "body", required: true, contentType: "application/json" },
  responses: { default: {} },
  output: "text",
};

for (const [label, doc] of [
  ["Petstore, OpenAPI 3.0", "3.0/json/petstore.json"],
  ["Petstore, OpenAPI 3.1", "3.1/yaml/petstore.yaml"],
] as const) {
  describe(label, () => {
    let prism: Mock;
    let proxy: RecordingProxy;
    beforeAll(async () => {
      prism = await startPrism(examples(doc));
      proxy = await startRecordingProxy(prism.url);
    });
    afterAll(async () => {
      await proxy?.stop();
      await prism?.stop();
    });
    beforeEach(() => resetEnv(proxy));

    it("security enforced: without PETSTORE_API_KEY a 401 tool error naming it; with it, the pet, checked against its schema", async () => {
      const refused = await callTool(petstore, getPetById, { petId: 7 });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe("HTTP 401 Unauthorized from GET /pet/{petId} (the API needs credentials: set PETSTORE_API_KEY (scheme api_key))");
      expect(proxy.requests[0].headers.api_key).toBeUndefined();
      process.env.PETSTORE_API_KEY = "special-key";
      const r = await callTool<Record<string, unknown>>(petstore, getPetById, { petId: 7 });
      expect(r.isError).toBeFalsy();
      if (r.isError) return;
      expect(r.structuredContent).toMatchObject({ name: "doggie", photoUrls: expect.any(Array) });
      expect(JSON.parse(textOf(r))).toEqual(r.structuredContent);
      const sent = proxy.requests[1];
      expect([sent.method, sent.path, sent.query, sent.headers.api_key, sent.status]).toEqual(["GET", "/pet/7", "", "special-key", 200]);
    });

    it("requests validated: a path parameter that is not an integer is a 400 (the document's 400, not a guess)", async () => {
      process.env.PETSTORE_API_KEY = "special-key";
      const r = await callOperation(petstore, getPetById, { petId: "seven" });
      expect(r.status).toBe(400);
      expect(r.headers["sl-violations"]).toContain("Request path parameter petid must be integer");
      expect(proxy.requests[0].path).toBe("/pet/seven");
    });

    it("a body outside the document: 400 where the document has a 400, 422 where it documents none", async () => {
      // The descriptor here has no body schema, so the client sends what it is given and Prism judges.
      const order = await callTool(petstore, placeOrder(), { body: { petId: 1, quantity: "many" } });
      expect(textOf(order)).toMatch(/^HTTP 400 Bad Request from POST \/store\/order/);
      expect(JSON.parse(proxy.requests[0].body.toString())).toEqual({ petId: 1, quantity: "many" });
      const user = await callOperation(petstore, createUser, { body: { id: "not a number" } });
      expect(user.status).toBe(422);
      // With the schema, the client refuses it before Prism sees it.
      const before = proxy.requests.length;
      const refused = await callTool(petstore, placeOrder(Order), { body: { petId: 1, quantity: "many" } });
      expect(textOf(refused)).toBe("the request body (argument body) does not match the API's document: /quantity must be integer");
      expect(proxy.requests.length).toBe(before);
      const placed = await callTool<Record<string, unknown>>(petstore, placeOrder(Order), { body: { petId: 1, quantity: 2, status: "placed" } });
      expect(placed.isError).toBeFalsy();
      expect(proxy.requests.at(-1)!.headers["content-type"]).toBe("application/json");
    });

    it("Prefer: code=<n> picks a documented response: 404, and 503 from `default`", async () => {
      process.env.PETSTORE_API_KEY = "special-key";
      expect(textOf(await callTool(petstore, getPetById, { petId: 7, prefer: "code=404" }))).toBe("HTTP 404 Not Found from GET /pet/{petId}");
      const down = await callTool(petstore, getPetById, { petId: 7, prefer: "code=503" });
      expect(down.isError).toBe(true);
      expect(textOf(down)).toBe("HTTP 503 Service Unavailable from GET /pet/{petId}");
      expect(proxy.requests.map((r) => [r.headers.prefer, r.status])).toEqual([
        ["code=404", 404],
        ["code=503", 503],
      ]);
    });

    it("an OAuth 2 implicit scheme the client cannot satisfy: 401, unless the MCP caller's token is forwarded (API_FORWARD_MCP_TOKEN=1)", async () => {
      const ctx = { signal: new AbortController().signal, principal: { subject: "alice", token: "caller-token" } };
      expect(textOf(await callTool(petstore, findPetsByStatus, { status: ["available"] }, ctx))).toMatch(/^HTTP 401 Unauthorized .*API_FORWARD_MCP_TOKEN=1 \(scheme petstore_auth, oauth2 implicit\)/);
      process.env.API_FORWARD_MCP_TOKEN = "1";
      const r = await callTool<{ result: unknown[] }>(petstore, findPetsByStatus, { status: ["available", "sold"] }, ctx);
      expect(r.isError).toBeFalsy();
      if (r.isError) return;
      expect(r.structuredContent.result[0]).toMatchObject({ name: "doggie" });
      const sent = proxy.requests.at(-1)!;
      expect([sent.query, sent.headers.authorization]).toEqual(["status=available&status=sold", "Bearer caller-token"]);
      const bad = await callOperation(petstore, findPetsByStatus, { status: ["lost"] }, ctx);
      expect(bad.status).toBe(400);
    });
  });
}

describe("every scheme the client satisfies, against Prism (3.1 security examples)", () => {
  let prism: Mock;
  let proxy: RecordingProxy;
  let tokens: Server;
  let tokenUrl: string;
  const grants: string[] = [];
  beforeAll(async () => {
    prism = await startPrism(examples("3.1/json/security.json"));
    proxy = await startRecordingProxy(prism.url);
    // The document's token endpoint is example.com: the descriptor names a local one (the hand-written stand-in for it).
    tokens = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        grants.push(body);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ access_token: `cc-${grants.length}`, token_type: "Bearer", expires_in: 3600 }));
      });
    });
    await new Promise<void>((r) => tokens.listen(0, "127.0.0.1", r));
    tokenUrl = `http://127.0.0.1:${(tokens.address() as AddressInfo).port}/oauth/token`;
  });
  afterAll(async () => {
    await proxy?.stop();
    await prism?.stop();
    await new Promise((r) => tokens?.close(r));
  });
  beforeEach(() => resetEnv(proxy));

  const security = (): ApiDescriptor => ({
    title: "Security",
    version: "1.0.0",
    servers: ["https://httpbin.org"],
    security: [],
    securitySchemes: {
      apiKey_query: { type: "apiKey", in: "query", name: "apiKey", env: { value: "SEC_KEY" } },
      apiKey_cookie: { type: "apiKey", in: "cookie", name: "api_key", env: { value: "SEC_KEY" } },
      apiKey_header: { type: "apiKey", in: "header", name: "X-API-KEY", env: { value: "SEC_KEY" } },
      basic: { type: "http", scheme: "basic", env: { username: "SEC_USER", password: "SEC_PASSWORD" } },
      bearer: { type: "http", scheme: "bearer", env: { token: "SEC_TOKEN" } },
      oauth2_clientCredentials: { type: "oauth2", flow: "clientCredentials", tokenUrl, scopes: ["write:things"], env: { clientId: "SEC_CLIENT_ID", clientSecret: "SEC_CLIENT_SECRET" } },
    },
  });
  const anything = (method: OperationDescriptor["method"], path: string, scheme: string): OperationDescriptor => ({
    tool: `${method}_${scheme}`,
    operationId: `${method.toUpperCase()} ${path}`,
    method,
    path,
    parameters: [],
    responses: { "200": {} },
    output: "text",
    security: [{ [scheme]: scheme.startsWith("oauth2") ? ["write:things"] : [] }],
  });
  const cases: [OperationDescriptor, Record<string, string>, (r: RecordingProxy["requests"][number]) => unknown, unknown][] = [
    [anything("get", "/anything/apiKey", "apiKey_query"), { SEC_KEY: "k1" }, (r) => r.query, "apiKey=k1"],
    [anything("post", "/anything/apiKey", "apiKey_cookie"), { SEC_KEY: "k2" }, (r) => r.headers.cookie, "api_key=k2"],
    [anything("put", "/anything/apiKey", "apiKey_header"), { SEC_KEY: "k3" }, (r) => r.headers["x-api-key"], "k3"],
    [anything("post", "/anything/basic", "basic"), { SEC_USER: "u", SEC_PASSWORD: "p" }, (r) => r.headers.authorization, `Basic ${Buffer.from("u:p").toString("base64")}`],
    [anything("post", "/anything/bearer", "bearer"), { SEC_TOKEN: "t" }, (r) => r.headers.authorization, "Bearer t"],
    [anything("put", "/anything/oauth2", "oauth2_clientCredentials"), { SEC_CLIENT_ID: "c", SEC_CLIENT_SECRET: "s" }, (r) => r.headers.authorization, "Bearer cc-1"],
  ];
  for (const [operation, env, seen, expected] of cases)
    it(`${operation.security![0] && Object.keys(operation.security![0])[0]}: 401 without ${Object.keys(env).join(" and ")}, 200 with`, async () => {
      const without = await callOperation(security(), operation, {});
      expect(without.status).toBe(401);
      Object.assign(process.env, env);
      const r = await callTool(security(), operation, {});
      expect(r).toEqual({ content: [{ type: "text", text: "HTTP 200 OK" }] });
      expect(proxy.requests.map((x) => x.status)).toEqual([401, 200]);
      expect(seen(proxy.requests[1])).toEqual(expected);
    });

  it("the client credentials grant asked for the operation's scope", () => {
    expect(grants).toEqual(["grant_type=client_credentials&scope=write%3Athings"]);
  });
});
