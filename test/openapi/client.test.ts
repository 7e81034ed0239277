// The OpenAPI project's API client (templates/_openapi/src/api/client.ts) against a real HTTP server on 127.0.0.1 that
// records every request it gets. Descriptors and the expected requests are written here by hand, from the OpenAPI
// 3.1.1 style tables (https://spec.openapis.org/oas/v3.1.1.html#style-examples) and RFC 6749 §4.4.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { callOperation, callTool, ApiCallError } from "../../templates/_openapi/src/api/client.ts";
import { clearTokenCache } from "../../templates/_openapi/src/api/security.ts";
import type { ApiDescriptor, OperationDescriptor, ParameterDescriptor } from "../../templates/_openapi/src/api/descriptor.ts";

interface Recorded {
  method: string;
  /** The raw request target: path and query as sent. */
  url: string;
  path: string;
  query: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}
type Responder = (req: Recorded, res: ServerResponse) => void;

const recorded: Recorded[] = [];
let respond: Responder;
const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (_req: Recorded, res: ServerResponse) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = req.url ?? "/";
      const q = url.indexOf("?");
      const r: Recorded = { method: req.method ?? "", url, path: q < 0 ? url : url.slice(0, q), query: q < 0 ? "" : url.slice(q + 1), headers: req.headers, body: Buffer.concat(chunks) };
      recorded.push(r);
      respond(r, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const ENV = [
  "API_BASE_URL",
  "API_TIMEOUT_MS",
  "API_MAX_RESPONSE_BYTES",
  "API_FORWARD_MCP_TOKEN",
  "API_OAUTH_CLIENT_AUTH",
  "PET_KEY",
  "PET_TOKEN",
  "PET_USER",
  "PET_PASSWORD",
  "PET_CLIENT_ID",
  "PET_CLIENT_SECRET",
];
beforeEach(() => {
  recorded.length = 0;
  respond = json(200, { ok: true });
  for (const name of ENV) delete process.env[name];
  process.env.API_BASE_URL = base;
  clearTokenCache();
});
afterEach(() => {
  for (const name of ENV) delete process.env[name];
  vi.useRealTimers();
});

const api = (over: Partial<ApiDescriptor> = {}): ApiDescriptor => ({
  title: "Pets",
  version: "1.0.0",
  servers: ["https://pets.invalid/v1"],
  security: [],
  securitySchemes: {
    key_header: { type: "apiKey", in: "header", name: "X-Api-Key", env: { value: "PET_KEY" } },
    key_query: { type: "apiKey", in: "query", name: "api_key", env: { value: "PET_KEY" } },
    key_cookie: { type: "apiKey", in: "cookie", name: "session", env: { value: "PET_KEY" } },
    bearer: { type: "http", scheme: "bearer", env: { token: "PET_TOKEN" } },
    basic: { type: "http", scheme: "basic", env: { username: "PET_USER", password: "PET_PASSWORD" } },
    oauth: { type: "oauth2", flow: "clientCredentials", tokenUrl: "", scopes: ["pets:read", "pets:write"], env: { clientId: "PET_CLIENT_ID", clientSecret: "PET_CLIENT_SECRET" } },
    oidc: { type: "unsupported", original: "openIdConnect", bearer: true, env: {} },
    tls: { type: "unsupported", original: "mutualTLS", bearer: false, env: {} },
  },
  ...over,
});
const op = (over: Partial<OperationDescriptor> = {}): OperationDescriptor => ({
  tool: "get_pet",
  operationId: "getPet",
  method: "get",
  path: "/pets",
  parameters: [],
  responses: { "200": { contentType: "application/json" } },
  output: "text",
  ...over,
});
const param = (p: Partial<ParameterDescriptor> & Pick<ParameterDescriptor, "name" | "in">): ParameterDescriptor => ({ arg: p.name, required: false, ...p });
const last = () => recorded[recorded.length - 1];
const textOf = (r: { content: { type: string; text?: string }[] }) => r.content.map((c) => c.text ?? "").join("");

describe("path parameters: simple, label, matrix", () => {
  const cases: [Partial<ParameterDescriptor>, unknown, string][] = [
    [{}, "a/b c", "/x/a%2Fb%20c"],
    [{}, ["blue", "black"], "/x/blue,black"],
    [{}, { R: 100, G: 200 }, "/x/R,100,G,200"],
    [{ explode: true }, { R: 100, G: 200 }, "/x/R=100,G=200"],
    [{ style: "label" }, "blue", "/x/.blue"],
    [{ style: "label" }, ["blue", "black"], "/x/.blue,black"],
    [{ style: "label", explode: true }, ["blue", "black"], "/x/.blue.black"],
    [{ style: "label", explode: true }, { R: 100, G: 200 }, "/x/.R=100.G=200"],
    [{ style: "matrix" }, "blue", "/x/;color=blue"],
    [{ style: "matrix" }, ["blue", "black"], "/x/;color=blue,black"],
    [{ style: "matrix", explode: true }, ["blue", "black"], "/x/;color=blue;color=black"],
    [{ style: "matrix" }, { R: 100, G: 200 }, "/x/;color=R,100,G,200"],
    [{ style: "matrix", explode: true }, { R: 100, G: 200 }, "/x/;R=100;G=200"],
    [{}, true, "/x/true"],
  ];
  for (const [style, value, path] of cases)
    it(`${style.style ?? "simple"}${style.explode ? " exploded" : ""} ${JSON.stringify(value)} → ${path}`, async () => {
      const o = op({ path: "/x/{color}", parameters: [param({ name: "color", in: "path", required: true, ...style })] });
      await callOperation(api(), o, { color: value });
      expect(last().method).toBe("GET");
      expect(last().url).toBe(path);
    });

  it("a missing path parameter is an argument error, and nothing is sent", async () => {
    const o = op({ path: "/x/{id}", parameters: [param({ name: "id", in: "path", required: true })] });
    await expect(callOperation(api(), o, {})).rejects.toMatchObject({ kind: "argument", message: expect.stringContaining("path parameter id") });
    expect(recorded).toEqual([]);
  });
});

describe("query parameters: form, spaceDelimited, pipeDelimited, deepObject", () => {
  const cases: [Partial<ParameterDescriptor>, unknown, string][] = [
    [{}, "blue", "color=blue"],
    [{}, "a&b=c d", "color=a%26b%3Dc%20d"],
    [{}, ["blue", "black"], "color=blue&color=black"],
    [{ explode: false }, ["blue", "black"], "color=blue,black"],
    [{}, { R: 100, G: 200 }, "R=100&G=200"],
    [{ explode: false }, { R: 100, G: 200 }, "color=R,100,G,200"],
    [{ style: "spaceDelimited", explode: false }, ["blue", "black"], "color=blue%20black"],
    [{ style: "spaceDelimited", explode: false }, { R: 100, G: 200 }, "color=R%20100%20G%20200"],
    [{ style: "pipeDelimited", explode: false }, ["blue", "black"], "color=blue|black"],
    [{ style: "pipeDelimited", explode: false }, { R: 100, G: 200 }, "color=R|100|G|200"],
    [{ style: "deepObject", explode: true }, { R: 100, G: 200 }, "color%5BR%5D=100&color%5BG%5D=200"],
    [{ style: "deepObject", explode: true }, { a: { b: "x" } }, "color%5Ba%5D%5Bb%5D=x"],
    [{ allowReserved: true }, "a/b:c?d,e&f", "color=a/b:c?d,e%26f"],
    [{}, ["blue"].slice(1), ""],
  ];
  for (const [style, value, query] of cases)
    it(`${style.style ?? "form"}${style.explode === false ? " not exploded" : ""}${style.allowReserved ? " allowReserved" : ""} ${JSON.stringify(value)} → ${query || "(none)"}`, async () => {
      const o = op({ parameters: [param({ name: "color", in: "query", ...style })] });
      await callOperation(api(), o, { color: value });
      expect(last().query).toBe(query);
    });

  it("several parameters, an absent optional one left out, names that collide kept apart by arg", async () => {
    const o = op({
      path: "/pets/{id}",
      parameters: [
        param({ name: "id", in: "path", arg: "path_id", required: true }),
        param({ name: "id", in: "query", arg: "query_id" }),
        param({ name: "limit", in: "query" }),
        param({ name: "tag", in: "query" }),
      ],
    });
    await callOperation(api(), o, { path_id: 7, query_id: "q", limit: 10 });
    expect(last().url).toBe("/pets/7?id=q&limit=10");
  });

  it("a path's #fragment (ReadMe's way to give one path several operations) is not sent, and the query still is", async () => {
    const o = op({
      path: "/cookies/{id}#formExploded",
      parameters: [param({ name: "id", in: "path", required: true }), param({ name: "limit", in: "query" })],
    });
    const res = await callOperation(api(), o, { id: 7, limit: 10 });
    expect(last().url).toBe("/cookies/7?limit=10");
    expect(res.request.url).toBe(`${base}/cookies/7?limit=10`);
  });
});

describe("header and cookie parameters", () => {
  it("headers are simple style, not percent-encoded; cookies form style, values percent-encoded", async () => {
    const o = op({
      parameters: [
        param({ name: "X-Request-Id", in: "header" }),
        param({ name: "X-Colors", in: "header" }),
        param({ name: "X-Point", in: "header", explode: true }),
        param({ name: "lang", in: "cookie" }),
        param({ name: "ids", in: "cookie", explode: false }),
      ],
    });
    await callOperation(api(), o, { "X-Request-Id": "a b/c", "X-Colors": ["blue", "black"], "X-Point": { x: 1, y: 2 }, lang: "fr ca", ids: [3, 4] });
    expect(last().headers["x-request-id"]).toBe("a b/c");
    expect(last().headers["x-colors"]).toBe("blue,black");
    expect(last().headers["x-point"]).toBe("x=1,y=2");
    expect(last().headers.cookie).toBe("lang=fr%20ca; ids=3,4");
  });

  it("a header value outside visible ASCII is an argument error", async () => {
    const o = op({ parameters: [param({ name: "X-Name", in: "header" })] });
    await expect(callOperation(api(), o, { "X-Name": "é" })).rejects.toMatchObject({ kind: "argument" });
    expect(recorded).toEqual([]);
  });
});

describe("request bodies by media type", () => {
  const withBody = (contentType: string, schema?: Record<string, unknown>) => op({ method: "post", body: { arg: "body", required: true, contentType, schema } });

  it("application/json", async () => {
    await callOperation(api(), withBody("application/json"), { body: { name: "Rex", tags: ["a"] } });
    expect(last().method).toBe("POST");
    expect(last().headers["content-type"]).toBe("application/json");
    expect(JSON.parse(last().body.toString())).toEqual({ name: "Rex", tags: ["a"] });
  });

  it("application/x-www-form-urlencoded: arrays repeated, objects as JSON", async () => {
    await callOperation(api(), withBody("application/x-www-form-urlencoded"), { body: { name: "Rex Jr", tags: ["a", "b"], meta: { x: 1 } } });
    expect(last().headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(last().body.toString()).toBe("name=Rex+Jr&tags=a&tags=b&meta=%7B%22x%22%3A1%7D");
  });

  it("multipart/form-data: one part per field, a binary (base64) field as a file", async () => {
    const schema = { type: "object", properties: { name: { type: "string" }, file: { type: "string", contentEncoding: "base64" } } };
    await callOperation(api(), withBody("multipart/form-data", schema), { body: { name: "Rex", file: Buffer.from("hello").toString("base64") } });
    const type = String(last().headers["content-type"]);
    expect(type).toMatch(/^multipart\/form-data; boundary=/);
    const text = last().body.toString();
    expect(text).toContain('Content-Disposition: form-data; name="name"\r\n\r\nRex\r\n');
    expect(text).toMatch(/Content-Disposition: form-data; name="file"; filename="file"\r\nContent-Type: application\/octet-stream\r\n\r\nhello\r\n/);
  });

  it("text/plain and application/octet-stream (base64 when the schema says so, else the string's bytes)", async () => {
    await callOperation(api(), withBody("text/plain"), { body: "just text" });
    expect(last().headers["content-type"]).toBe("text/plain");
    expect(last().body.toString()).toBe("just text");
    await callOperation(api(), withBody("application/octet-stream", { type: "string", contentEncoding: "base64" }), { body: Buffer.from([0, 1, 2, 255]).toString("base64") });
    expect(last().headers["content-type"]).toBe("application/octet-stream");
    expect([...last().body]).toEqual([0, 1, 2, 255]);
    await callOperation(api(), withBody("application/octet-stream", { type: "string" }), { body: "raw" });
    expect(last().body.toString()).toBe("raw");
  });

  it("a body outside its schema is refused before sending; a required one missing too", async () => {
    const o = withBody("application/json", { type: "object", properties: { name: { type: "string" } }, required: ["name"] });
    const r = await callTool(api(), o, { body: { name: 5 } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe("the request body (argument body) does not match the API's document: /name must be string");
    await expect(callOperation(api(), o, {})).rejects.toMatchObject({ kind: "argument", message: "the request body (argument body) is required" });
    expect(recorded).toEqual([]);
  });
});

describe("security schemes from environment variables", () => {
  it("apiKey in a header, the query and a cookie", async () => {
    process.env.PET_KEY = "k&1";
    await callOperation(api(), op({ security: [{ key_header: [] }] }), {});
    expect(last().headers["x-api-key"]).toBe("k&1");
    await callOperation(api(), op({ security: [{ key_query: [] }], parameters: [param({ name: "limit", in: "query" })] }), { limit: 2 });
    expect(last().query).toBe("limit=2&api_key=k%261");
    await callOperation(api(), op({ security: [{ key_cookie: [] }], parameters: [param({ name: "lang", in: "cookie" })] }), { lang: "en" });
    expect(last().headers.cookie).toBe("lang=en; session=k%261");
  });

  it("http bearer and basic", async () => {
    process.env.PET_TOKEN = "tok-123";
    await callOperation(api(), op({ security: [{ bearer: [] }] }), {});
    expect(last().headers.authorization).toBe("Bearer tok-123");
    process.env.PET_USER = "alice";
    process.env.PET_PASSWORD = "s3cr:et";
    await callOperation(api(), op({ security: [{ basic: [] }] }), {});
    expect(last().headers.authorization).toBe(`Basic ${Buffer.from("alice:s3cr:et").toString("base64")}`);
  });

  it("the operation's security overrides the document's; two schemes of one alternative go together", async () => {
    process.env.PET_KEY = "k";
    process.env.PET_TOKEN = "t";
    await callOperation(api({ security: [{ key_header: [] }] }), op(), {});
    expect(last().headers["x-api-key"]).toBe("k");
    expect(last().headers.authorization).toBeUndefined();
    await callOperation(api({ security: [{ key_header: [] }] }), op({ security: [{ bearer: [], key_query: [] }] }), {});
    expect(last().headers["x-api-key"]).toBeUndefined();
    expect(last().headers.authorization).toBe("Bearer t");
    expect(last().query).toBe("api_key=k");
    await callOperation(api({ security: [{ key_header: [] }] }), op({ security: [] }), {});
    expect(last().headers["x-api-key"]).toBeUndefined();
  });

  it("the first alternative whose variables are all set; `{}` (anonymous) only when none is", async () => {
    const o = op({ security: [{}, { basic: [] }, { bearer: [] }] });
    await callOperation(api(), o, {});
    expect(last().headers.authorization).toBeUndefined();
    process.env.PET_USER = "alice"; // basic needs both variables
    process.env.PET_TOKEN = "t";
    await callOperation(api(), o, {});
    expect(last().headers.authorization).toBe("Bearer t");
    process.env.PET_PASSWORD = "pw";
    await callOperation(api(), o, {});
    expect(last().headers.authorization).toMatch(/^Basic /);
  });

  it("none configured: sent without credentials, and the API's 401 becomes a tool error naming the variables to set", async () => {
    respond = json(401, { message: "no key" });
    const r = await callTool(api(), op({ security: [{ key_header: [] }, { basic: [], oauth: ["pets:read"] }, { oidc: [] }, { tls: [] }] }), {});
    expect(last().headers["x-api-key"]).toBeUndefined();
    expect(last().headers.authorization).toBeUndefined();
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(
      'HTTP 401 Unauthorized from GET /pets: {"message":"no key"} (the API needs credentials: set PET_KEY (scheme key_header), or PET_USER and PET_PASSWORD (scheme basic) with PET_CLIENT_ID and PET_CLIENT_SECRET (scheme oauth), or the MCP caller\'s token with API_FORWARD_MCP_TOKEN=1 (scheme oidc, openIdConnect), or credentials this client cannot send (scheme tls, mutualTLS))',
    );
  });
});

describe("OAuth 2 client credentials", () => {
  let issued = 0;
  let lifetime: number | undefined;
  let refused = new Set<string>();
  const oauthApi = () => {
    const a = api({ security: [{ oauth: ["pets:read"] }] });
    (a.securitySchemes.oauth as { tokenUrl: string }).tokenUrl = `${base}/token`;
    return a;
  };
  beforeEach(() => {
    issued = 0;
    lifetime = 3600;
    refused = new Set();
    process.env.PET_CLIENT_ID = "client 1";
    process.env.PET_CLIENT_SECRET = "secret:1";
    respond = (req, res) => {
      if (req.path === "/token") {
        issued++;
        return json(200, { access_token: `at-${issued}`, token_type: "Bearer", ...(lifetime === undefined ? {} : { expires_in: lifetime }) })(req, res);
      }
      const token = String(req.headers.authorization ?? "").replace(/^Bearer /, "");
      if (refused.has(token) || !token.startsWith("at-")) return json(401, { message: "bad token" })(req, res);
      return json(200, { ok: true, token })(req, res);
    };
  });
  const apiCalls = () => recorded.filter((r) => r.path !== "/token");
  const tokenCalls = () => recorded.filter((r) => r.path === "/token");

  it("POSTs the grant to tokenUrl (client_secret_basic, the alternative's scopes) and sends the token", async () => {
    const r = await callOperation<{ token: string }>(oauthApi(), op(), {});
    expect(r.body.token).toBe("at-1");
    const [grant] = tokenCalls();
    expect(grant.method).toBe("POST");
    expect(grant.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(grant.headers.authorization).toBe(`Basic ${Buffer.from("client%201:secret%3A1").toString("base64")}`);
    expect(grant.body.toString()).toBe("grant_type=client_credentials&scope=pets%3Aread");
    expect(apiCalls()[0].headers.authorization).toBe("Bearer at-1");
  });

  it("API_OAUTH_CLIENT_AUTH=post: the client's credentials in the body instead", async () => {
    process.env.API_OAUTH_CLIENT_AUTH = "post";
    await callOperation(oauthApi(), op(), {});
    expect(tokenCalls()[0].headers.authorization).toBeUndefined();
    expect(tokenCalls()[0].body.toString()).toBe("grant_type=client_credentials&scope=pets%3Aread&client_id=client+1&client_secret=secret%3A1");
  });

  it("API_OAUTH_TOKEN_URL: another token endpoint than the document's", async () => {
    process.env.API_OAUTH_TOKEN_URL = `${base}/token`;
    const a = oauthApi();
    (a.securitySchemes.oauth as { tokenUrl: string }).tokenUrl = "http://127.0.0.1:1/unreachable";
    const r = await callOperation<{ token: string }>(a, op(), {});
    expect(r.body.token).toBe("at-1");
    expect(tokenCalls()).toHaveLength(1);
  });

  it("the token is cached; concurrent first calls share one fetch", async () => {
    await Promise.all([callOperation(oauthApi(), op(), {}), callOperation(oauthApi(), op(), {}), callOperation(oauthApi(), op(), {})]);
    await callOperation(oauthApi(), op(), {});
    expect(tokenCalls()).toHaveLength(1);
    expect(apiCalls().map((r) => r.headers.authorization)).toEqual(["Bearer at-1", "Bearer at-1", "Bearer at-1", "Bearer at-1"]);
  });

  it("fetched again shortly before expires_in (30 s before, or half a short lifetime)", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2030-01-01T00:00:00Z"));
    lifetime = 120;
    await callOperation(oauthApi(), op(), {});
    vi.setSystemTime(new Date("2030-01-01T00:01:29Z")); // 89 s: still 31 s left
    await callOperation(oauthApi(), op(), {});
    expect(tokenCalls()).toHaveLength(1);
    vi.setSystemTime(new Date("2030-01-01T00:01:31Z")); // 91 s: within 30 s of expiry
    await callOperation(oauthApi(), op(), {});
    expect(tokenCalls()).toHaveLength(2);
    lifetime = 20;
    clearTokenCache();
    vi.setSystemTime(new Date("2030-01-01T00:10:00Z"));
    await callOperation(oauthApi(), op(), {});
    vi.setSystemTime(new Date("2030-01-01T00:10:09Z"));
    await callOperation(oauthApi(), op(), {});
    expect(tokenCalls()).toHaveLength(3);
    vi.setSystemTime(new Date("2030-01-01T00:10:11Z"));
    await callOperation(oauthApi(), op(), {});
    expect(tokenCalls()).toHaveLength(4);
  });

  it("a token the API refuses (401) is fetched again and the request retried once", async () => {
    lifetime = undefined;
    await callOperation(oauthApi(), op(), {});
    refused.add("at-1");
    const r = await callOperation<{ token: string }>(oauthApi(), op(), {});
    expect(r.status).toBe(200);
    expect(r.body.token).toBe("at-2");
    expect(apiCalls().map((x) => x.headers.authorization)).toEqual(["Bearer at-1", "Bearer at-1", "Bearer at-2"]);
    // Refused again: one retry only, then the 401 is the answer.
    refused.add("at-2").add("at-3");
    const again = await callTool(oauthApi(), op(), {});
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/^HTTP 401 Unauthorized from GET \/pets/);
    expect(apiCalls()).toHaveLength(5);
    expect(tokenCalls()).toHaveLength(3);
  });

  it("a token endpoint that refuses is a tool error saying so, and the API is not called", async () => {
    respond = json(400, { error: "invalid_client" });
    const r = await callTool(oauthApi(), op(), {});
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(`the OAuth token endpoint ${base}/token answered HTTP 400 Bad Request: {"error":"invalid_client"}`);
    expect(apiCalls()).toEqual([]);
  });
});

describe("the MCP caller's token", () => {
  const ctx = { signal: new AbortController().signal, principal: { subject: "alice", token: "mcp-token" } };

  it("is not passed on by default, even where the document has a bearer scheme", async () => {
    await callOperation(api(), op({ security: [{ bearer: [] }] }), {}, ctx);
    expect(last().headers.authorization).toBeUndefined();
    await callOperation(api(), op(), {}, ctx);
    expect(last().headers.authorization).toBeUndefined();
  });

  it("API_FORWARD_MCP_TOKEN=1: sent as Bearer, in place of a bearer, OAuth 2 or unsupported scheme, and where there is none", async () => {
    process.env.API_FORWARD_MCP_TOKEN = "1";
    process.env.PET_TOKEN = "env-token";
    await callOperation(api(), op({ security: [{ bearer: [] }] }), {}, ctx);
    expect(last().headers.authorization).toBe("Bearer mcp-token");
    await callOperation(api(), op({ security: [{ oidc: [] }] }), {}, ctx);
    expect(last().headers.authorization).toBe("Bearer mcp-token");
    await callOperation(api(), op(), {}, ctx);
    expect(last().headers.authorization).toBe("Bearer mcp-token");
    // An API key still comes from its variable.
    process.env.PET_KEY = "k";
    await callOperation(api(), op({ security: [{ key_header: [] }] }), {}, ctx);
    expect(last().headers["x-api-key"]).toBe("k");
    // Not for mutual TLS (a certificate): the next alternative, the API key, is taken.
    await callOperation(api(), op({ security: [{ tls: [] }, { key_header: [] }] }), {}, ctx);
    expect(last().headers["x-api-key"]).toBe("k");
    // No caller token (stdio): the variables as usual.
    await callOperation(api(), op({ security: [{ bearer: [] }] }), {}, { signal: ctx.signal });
    expect(last().headers.authorization).toBe("Bearer env-token");
  });
});

describe("limits and failures", () => {
  it("API_TIMEOUT_MS: an API that does not answer in time is a tool error", async () => {
    process.env.API_TIMEOUT_MS = "300";
    respond = () => {}; // never answers
    const r = await callTool(api(), op(), {});
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe("GET /pets took longer than API_TIMEOUT_MS (300 ms)");
  });

  it("the handler's signal aborts the request (the MCP request was cancelled)", async () => {
    respond = () => {};
    const controller = new AbortController();
    const pending = callOperation(api(), op(), {}, { signal: controller.signal });
    await vi.waitUntil(() => recorded.length === 1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ kind: "cancelled" });
  });

  it("API_MAX_RESPONSE_BYTES: a larger body is not read (declared or streamed) and is a tool error", async () => {
    process.env.API_MAX_RESPONSE_BYTES = "1000";
    respond = json(200, { data: "x".repeat(2000) });
    const r = await callTool(api(), op(), {});
    expect(textOf(r)).toBe("the API's answer is larger than API_MAX_RESPONSE_BYTES (1000 bytes)");
    respond = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }); // chunked: no Content-Length
      res.write(`{"data":"${"x".repeat(600)}`);
      res.write("y".repeat(600));
      res.end('"}');
    };
    await expect(callOperation(api(), op(), {})).rejects.toMatchObject({ kind: "too-large" });
    respond = json(200, { data: "x".repeat(900) });
    expect((await callOperation(api(), op(), {})).status).toBe(200);
  });

  it("a malformed limit is a configuration error, not ignored", async () => {
    process.env.API_TIMEOUT_MS = "soon";
    expect(textOf(await callTool(api(), op(), {}))).toBe('API_TIMEOUT_MS must be a positive integer, not "soon"');
  });

  it("4xx and 5xx: callOperation resolves with the answer; callTool makes it a tool error with the status and the body's first 500 characters", async () => {
    respond = json(404, { message: "no such pet", padding: "p".repeat(600) });
    const raw = await callOperation(api(), op(), {});
    expect(raw).toMatchObject({ ok: false, status: 404, statusText: "Not Found", contentType: "application/json" });
    const r = await callTool(api(), op(), {});
    expect(r.isError).toBe(true);
    const text = textOf(r);
    expect(text.startsWith('HTTP 404 Not Found from GET /pets: {"message":"no such pet","padding":"ppp')).toBe(true);
    expect(text.length).toBe("HTTP 404 Not Found from GET /pets: ".length + 500 + 1);
    expect(text.endsWith("p…")).toBe(true);
    respond = (_req, res) => {
      res.writeHead(503, { "content-type": "text/plain" });
      res.end("down for maintenance");
    };
    expect(textOf(await callTool(api(), op(), {}))).toBe("HTTP 503 Service Unavailable from GET /pets: down for maintenance");
  });

  it("an API that cannot be reached is a tool error, never a throw", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    process.env.API_BASE_URL = `http://127.0.0.1:${port}`;
    const r = await callTool(api(), op(), {});
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe("GET /pets failed: ECONNREFUSED");
  });

  it("the base URL: API_BASE_URL, else the document's first server; a relative one needs API_BASE_URL", async () => {
    delete process.env.API_BASE_URL;
    expect(textOf(await callTool(api({ servers: ["/api/v3"] }), op(), {}))).toBe('the server URL "/api/v3" is not absolute: set API_BASE_URL to the API\'s base URL');
    expect(textOf(await callTool(api({ servers: [] }), op(), {}))).toBe("the document names no server: set API_BASE_URL to the API's base URL");
    const r = await callOperation(api({ servers: [`${base}/v1/`, "https://other.invalid"] }), op(), {});
    expect(r.request.url).toBe(`${base}/v1/pets`);
    expect(last().path).toBe("/v1/pets");
  });
});

describe("the answer checked against the document, and the tool's result", () => {
  const pet = { type: "object", properties: { id: { type: "integer" }, name: { type: "string" } }, required: ["id", "name"] };

  it("output body: the JSON object is structuredContent, and its text content", async () => {
    respond = json(200, { id: 1, name: "Rex" });
    const r = await callTool(api(), op({ output: "body", responses: { "200": { contentType: "application/json", schema: pet } } }), {});
    expect(r).toEqual({ content: [{ type: "text", text: '{"id":1,"name":"Rex"}' }], structuredContent: { id: 1, name: "Rex" } });
  });

  it("output wrapped: structuredContent { result }; output text: text only", async () => {
    respond = json(200, [{ id: 1, name: "Rex" }]);
    const list = { "2XX": { contentType: "application/json", schema: { type: "array", items: pet } } };
    expect(await callTool(api(), op({ output: "wrapped", responses: list }), {})).toEqual({
      content: [{ type: "text", text: '[{"id":1,"name":"Rex"}]' }],
      structuredContent: { result: [{ id: 1, name: "Rex" }] },
    });
    respond = (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("pong");
    };
    expect(await callTool(api(), op({ output: "text", responses: { "200": { contentType: "text/plain" } } }), {})).toEqual({ content: [{ type: "text", text: "pong" }] });
    respond = (_req, res) => {
      res.writeHead(204);
      res.end();
    };
    expect(await callTool(api(), op({ method: "delete", responses: { "204": {} } }), {})).toEqual({ content: [{ type: "text", text: "HTTP 204 No Content" }] });
  });

  it("a success outside its documented schema is a tool error with the first ajv error (exact status, then range, then default)", async () => {
    respond = json(200, { id: "one", name: "Rex" });
    const exact = await callTool(api(), op({ output: "body", responses: { "200": { contentType: "application/json", schema: pet } } }), {});
    expect(exact).toEqual({ content: [{ type: "text", text: "the API answered outside its document (GET /pets HTTP 200): /id must be integer" }], isError: true });
    respond = json(201, { id: 2 });
    await expect(callOperation(api(), op({ responses: { default: { contentType: "application/json", schema: pet } } }), {})).rejects.toMatchObject({
      kind: "invalid-response",
      message: "the API answered outside its document (GET /pets HTTP 201): / must have required property 'name'",
    });
    respond = json(200, [1]);
    expect(textOf(await callTool(api(), op({ output: "body", responses: { "200": { contentType: "application/json" } } }), {}))).toBe(
      "the API answered outside its document (GET /pets HTTP 200): the tool's result must be a JSON object",
    );
    respond = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{not json");
    };
    await expect(callOperation(api(), op(), {})).rejects.toBeInstanceOf(ApiCallError);
  });

  it("an error answer is not checked against a schema: its status is the news", async () => {
    respond = json(500, { unexpected: true });
    const r = await callTool(api(), op({ responses: { "200": { contentType: "application/json", schema: pet }, "500": { contentType: "application/json", schema: { type: "string" } } } }), {});
    expect(textOf(r)).toBe('HTTP 500 Internal Server Error from GET /pets: {"unexpected":true}');
  });

  it("sends Accept with the documented media types", async () => {
    await callOperation(api(), op({ responses: { "200": { contentType: "application/json" }, "400": { contentType: "application/problem+json" }, "204": {} } }), {});
    expect(last().headers.accept).toBe("application/json, application/problem+json, */*;q=0.1");
  });
});
