// Each tool imported from the OpenAPI document, called through a real MCP client in every served revision (both eras)
// over every transport, against a Prism mock server of the same document (openapi/) behind a recording proxy: the
// request the API received (method, path, query, headers, body) and the result the client got are checked. Then a 4xx
// (no credentials: Prism's 401, when the document has security; else an argument Prism rejects) and a 5xx (Prism's
// `Prefer: code=5xx` when the operation documents one, else the proxy's own 503).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpClient, StdioClientTransport } from "@create-mcp-server/runtime";
import {
  CLIENT_CAPABILITIES,
  CLIENT_HANDLERS,
  MAIN,
  REVISIONS,
  ROOT,
  SERVER_ENV,
  eachConnection,
  hasStructuredContent,
  manifest,
} from "./helpers.js";
import { startPrism, startRecordingProxy, type Mock, type Recorded, type RecordingProxy } from "./api-mock.js";
import { api, operations } from "../src/api/operations.js";
import { wirePath } from "../src/api/params.js";
import type { OperationDescriptor, SecuritySchemeDescriptor } from "../src/api/descriptor.js";

/** The project's copy of the document: the one `openapi/import.json` names, else the only document in `openapi/`. */
function documentPath(): string {
  const dir = join(ROOT, "openapi");
  const record = join(dir, "import.json");
  if (existsSync(record)) {
    const named = JSON.parse(readFileSync(record, "utf8")) as Record<string, unknown>;
    for (const key of ["document", "copy", "path", "file"]) {
      const value = named[key];
      if (typeof value !== "string") continue;
      for (const candidate of [join(ROOT, value), join(dir, value)]) if (existsSync(candidate)) return candidate;
    }
  }
  const docs = readdirSync(dir).filter((f) => /\.(json|ya?ml)$/i.test(f) && f !== "import.json");
  if (docs.length !== 1)
    throw new Error(
      `openapi/ should hold the one document the tools were imported from; found ${docs.join(", ") || "none"}`,
    );
  return join(dir, docs[0]);
}

const OPERATIONS = Object.values(operations as Record<string, OperationDescriptor>);
const alternatives = (op: OperationDescriptor) =>
  (op.security ?? api.security).filter((alt) => Object.keys(alt).length > 0);
/**
 * Whether the test's credentials can satisfy `op`: no security, an anonymous alternative, or one whose schemes all
 * have variables. Schemes only the MCP caller's token can satisfy (OAuth 2 authorization code or implicit, OpenID
 * Connect, mutual TLS) cannot be tested over stdio: such a tool is checked to get the API's 401 instead.
 */
const satisfiable = (op: OperationDescriptor) => {
  const all = op.security ?? api.security;
  return (
    all.length === 0 ||
    all.some((alt) =>
      Object.keys(alt).every((name) => api.securitySchemes[name] && api.securitySchemes[name].type !== "unsupported"),
    )
  );
};

/**
 * Whether the mock checks a scheme: Prism 5.12 checks API keys, http basic, bearer and digest, OAuth 2 (any flow) and
 * OpenID Connect (a bearer token). Mutual TLS and other http schemes it lets through with a warning (and over plain
 * HTTP on 127.0.0.1 no client certificate could be checked anyway).
 */
const mockChecks = (name: string) => {
  const s = api.securitySchemes[name];
  return s !== undefined && (s.type !== "unsupported" || /^(oauth2|openIdConnect|http digest)\b/.test(s.original));
};
/** Whether Prism refuses `op` (401) without credentials: some alternative has a scheme it checks, and none is `{}`. */
const mockRefusesAnonymous = (op: OperationDescriptor) =>
  (op.security ?? api.security).length > 0 &&
  (op.security ?? api.security).every((alt) => Object.keys(alt).length > 0) &&
  alternatives(op).some((alt) => Object.keys(alt).some(mockChecks));
/** The schemes of `op` the test cannot satisfy and the mock does not check (mutualTLS): named in the test's title. */
const unchecked = (op: OperationDescriptor) =>
  [...new Set(alternatives(op).flatMap((alt) => Object.keys(alt).filter((name) => !mockChecks(name))))].join(", ");

/** A made-up credential for every variable a scheme names (Prism checks that credentials are there, not what they are). */
const CREDENTIALS: Record<string, string> = {};
for (const scheme of Object.values(api.securitySchemes) as SecuritySchemeDescriptor[])
  for (const variable of Object.values(scheme.env as Record<string, string>))
    CREDENTIALS[variable] = `test-${variable.toLowerCase()}`;

// ---- arguments from the tools' input schemas: an example where the document gives one, else a minimal valid value

type Schema = Record<string, unknown>;
function resolve(schema: unknown, root: Schema): Schema {
  let s = (typeof schema === "object" && schema !== null ? schema : {}) as Schema;
  for (let depth = 0; typeof s.$ref === "string" && depth < 20; depth++) {
    const path = s.$ref
      .replace(/^#\/?/, "")
      .split("/")
      .filter(Boolean)
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    s = path.reduce<unknown>((node, key) => (node as Schema | undefined)?.[key], root) as Schema;
  }
  return s ?? {};
}
function sample(schema: unknown, root: Schema, depth = 0): unknown {
  const s = resolve(schema, root);
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  for (const key of ["example", "const", "default"]) if (s[key] !== undefined) return s[key];
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  for (const key of ["oneOf", "anyOf"])
    if (Array.isArray(s[key]) && (s[key] as unknown[]).length) return sample((s[key] as unknown[])[0], root, depth + 1);
  if (Array.isArray(s.allOf))
    return Object.assign({}, ...(s.allOf as unknown[]).map((part) => sample(part, root, depth + 1)));
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== "null") : s.type;
  if (type === "object" || (type === undefined && s.properties)) {
    const props = (s.properties ?? {}) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    if (depth < 8)
      for (const name of (s.required as string[] | undefined) ?? []) out[name] = sample(props[name], root, depth + 1);
    return out;
  }
  if (type === "array") return depth < 8 ? [sample(s.items, root, depth + 1)] : [];
  if (type === "integer" || type === "number") return typeof s.minimum === "number" ? Math.max(s.minimum, 1) : 1;
  if (type === "boolean") return true;
  if (type === "string") return stringOf(s);
  return "x";
}
function stringOf(s: Schema): string {
  const byFormat: Record<string, string> = {
    "date-time": "2024-01-02T03:04:05Z",
    date: "2024-01-02",
    email: "someone@example.com",
    uri: "https://example.com/",
    url: "https://example.com/",
    uuid: "123e4567-e89b-42d3-a456-426614174000",
    byte: "aGVsbG8=",
    binary: "aGVsbG8=",
    ipv4: "127.0.0.1",
  };
  const text = byFormat[String(s.format)] ?? "example";
  const min = typeof s.minLength === "number" ? s.minLength : 0;
  return text.length >= min ? text : text.padEnd(min, "x");
}

/** The tool's arguments: every required one, every path parameter and the body (Prism wants one where the document has it). */
function argumentsFor(op: OperationDescriptor): Record<string, unknown> {
  const tool = manifest.tools.find((t) => t.name === op.tool) as unknown as { inputSchema: Schema } | undefined;
  if (!tool) throw new Error(`mcp.json has no tool ${op.tool} (src/api/operations.ts names it)`);
  const args = sample(
    {
      ...tool.inputSchema,
      required: [
        ...new Set([
          ...((tool.inputSchema.required as string[]) ?? []),
          // Every header too: Prism 5.12 crashes (TypeError in its simple-style deserialiser, then exits) on a request
          // without an optional array or object header.
          ...op.parameters.filter((p) => p.in === "path" || p.in === "header").map((p) => p.arg),
          ...(op.body ? [op.body.arg] : []),
        ]),
      ],
    },
    tool.inputSchema,
  ) as Record<string, unknown>;
  // An object in the path with every property: Prism 5.12 crashes (then exits) on an empty matrix one (`/;x=1/`).
  const props = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
  for (const p of op.parameters) {
    const s = resolve(props[p.arg], tool.inputSchema);
    if (p.in === "path" && s.properties && s.example === undefined && s.examples === undefined)
      args[p.arg] = sample({ ...s, required: Object.keys(s.properties) }, tool.inputSchema);
  }
  return args;
}

// ---- what the API must have received

const primitive = (v: unknown) => typeof v === "string" || typeof v === "number" || typeof v === "boolean";
function expectRequest(op: OperationDescriptor, args: Record<string, unknown>, r: Recorded): void {
  expect(r.method).toBe(op.method.toUpperCase());
  const template = wirePath(op.path);
  const prefix = template.split("{")[0];
  expect(r.path.startsWith(prefix), `path ${r.path} starts ${prefix}`).toBe(true);
  const simple = op.parameters
    .filter((p) => p.in === "path")
    .every((p) => (p.style ?? "simple") === "simple" && primitive(args[p.arg]));
  if (simple)
    expect(r.path).toBe(
      template
        .replace(/\{([^}]+)\}/g, (_, name: string) =>
          encodeURIComponent(String(args[op.parameters.find((p) => p.in === "path" && p.name === name)!.arg])),
        )
        .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    );
  const query = new URLSearchParams(r.query);
  for (const p of op.parameters) {
    const v = args[p.arg];
    if (!primitive(v)) continue;
    if (p.in === "query" && (p.style ?? "form") === "form")
      expect(query.getAll(p.name), `query ${p.name}`).toContain(String(v));
    if (p.in === "header") expect(r.headers[p.name.toLowerCase()], `header ${p.name}`).toBe(String(v));
  }
  if (op.body && args[op.body.arg] !== undefined && /json/.test(op.body.contentType))
    expect(JSON.parse(r.body.toString())).toEqual(args[op.body.arg]);
  // The alternative the client chose: the first whose schemes all have variables (the test sets them all).
  const first = alternatives(op).find((alt) =>
    Object.keys(alt).every((name) => api.securitySchemes[name] && api.securitySchemes[name].type !== "unsupported"),
  );
  for (const name of Object.keys(first ?? {})) {
    const s = api.securitySchemes[name];
    if (s?.type === "apiKey" && s.in === "header")
      expect(r.headers[s.name.toLowerCase()], `API key ${name}`).toBe(CREDENTIALS[s.env.value]);
    if (s?.type === "apiKey" && s.in === "query")
      expect(query.get(s.name), `API key ${name}`).toBe(CREDENTIALS[s.env.value]);
    if (s?.type === "http")
      expect(r.headers.authorization, `scheme ${name}`).toMatch(s.scheme === "basic" ? /^Basic / : /^Bearer /);
  }
}

let prism: Mock;
let proxy: RecordingProxy;
/** The stand-in token endpoint's path on the proxy (OAuth 2 client credentials: the document's is not reachable from a test). */
const TOKEN_PATH = "/__test-token";
const tokenEndpoint = (r: Recorded) =>
  r.path === TOKEN_PATH
    ? { status: 200, body: { access_token: "test-access-token", token_type: "Bearer", expires_in: 3600 } }
    : undefined;
beforeAll(async () => {
  prism = await startPrism(documentPath());
  proxy = await startRecordingProxy(prism.url);
  proxy.override = tokenEndpoint;
  // The servers the tests start (helpers.ts) inherit SERVER_ENV: the API behind the proxy, with credentials.
  Object.assign(SERVER_ENV, {
    API_BASE_URL: proxy.url,
    API_OAUTH_TOKEN_URL: `${proxy.url}${TOKEN_PATH}`,
    ...CREDENTIALS,
  });
}, 120_000);
afterAll(async () => {
  await proxy?.stop();
  await prism?.stop();
});
const apiRequests = () => proxy.requests.filter((r) => r.path !== TOKEN_PATH);

type ToolResult = { content: { type: string; text?: string }[]; structuredContent?: unknown; isError?: boolean };

/** A documented status of `op` in `range` ("4" or "5"): exact, else the range or `default` (then `fallback`); undefined when none. */
function documented(op: OperationDescriptor, range: "4" | "5", fallback: number): number | undefined {
  const exact = Object.keys(op.responses).find((k) => new RegExp(`^${range}\\d\\d$`).test(k));
  if (exact) return Number(exact);
  return op.responses[`${range}XX`] || op.responses.default ? fallback : undefined;
}

/** Whether the document gives `op` a success answer (2xx or 2XX). */
const documentsSuccess = (op: OperationDescriptor) => Object.keys(op.responses).some((k) => /^2(\d\d|XX)$/.test(k));

describe("each imported tool calls its operation", () => {
  it("operations.ts names a tool of mcp.json for every operation", () => {
    expect(OPERATIONS.length).toBeGreaterThan(0);
    for (const op of OPERATIONS) expect(manifest.tools.map((t) => t.name)).toContain(op.tool);
  });

  eachConnection(({ revision, get }) => {
    for (const op of OPERATIONS) {
      const refused = !satisfiable(op) && mockRefusesAnonymous(op);
      const note = satisfiable(op)
        ? ""
        : refused
          ? " (only the MCP caller's token could authorise it: Prism's 401 naming API_FORWARD_MCP_TOKEN)"
          : ` (${unchecked(op)}: the client cannot present it and the mock does not check it: sent without it)`;
      it(`${op.tool}: ${op.method.toUpperCase()} ${op.path}${note}`, async () => {
        const args = argumentsFor(op);
        const before = apiRequests().length;
        const result = (await get().client.callTool(op.tool, args)) as ToolResult;
        const received = apiRequests().slice(before);
        expect(received, "the API received one request").toHaveLength(1);
        expectRequest(op, args, received[0]);
        if (!satisfiable(op)) expect(received[0].headers.authorization).toBeUndefined();
        if (refused) {
          expect(received[0].status).toBe(401);
          expect(result.isError).toBe(true);
          expect(result.content[0].text).toMatch(/^HTTP 401 .*API_FORWARD_MCP_TOKEN=1/);
          return;
        }
        if (!documentsSuccess(op) && received[0].status >= 400) {
          // The document gives the operation no 2xx answer (the Petstore's deleteOrder: 400 and 404 only), so the mock
          // answers one of its documented errors: the tool says which, as an error result.
          expect(result.isError).toBe(true);
          expect(result.content[0].text).toMatch(new RegExp(`^HTTP ${received[0].status} `));
          return;
        }
        expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
        const answer = received[0].answer?.toString() ?? "";
        if (op.output !== "text") {
          const body = JSON.parse(answer);
          expect(JSON.parse(result.content[0].text!)).toEqual(body);
          if (hasStructuredContent(revision))
            expect(result.structuredContent).toEqual(op.output === "body" ? body : { result: body });
        } else if (answer && received[0].status !== 204) {
          const text = result.content[0].text!;
          expect(text === answer || JSON.stringify(JSON.parse(text)) === JSON.stringify(JSON.parse(answer))).toBe(true);
        }
      });
    }

    // 5xx: Prism's documented one (Prefer: code=), else the proxy's own 503. Prism answers an unauthorised request 401
    // before any Prefer: where no operation can be authorised, the 503 is the proxy's.
    const failing =
      OPERATIONS.find((op) => satisfiable(op) && documented(op, "5", 503) !== undefined) ??
      OPERATIONS.find(satisfiable) ??
      OPERATIONS[0];
    const code = satisfiable(failing) ? documented(failing, "5", 503) : undefined;
    const why = satisfiable(failing)
      ? "no 5xx documented"
      : "no operation the test can authorise: Prism would answer 401";
    it(`5xx: ${failing.tool} answered ${code ? `${code} by Prism (Prefer: code=${code}, documented)` : `503 by the proxy (${why})`} is a tool error`, async () => {
      if (code) proxy.prefer = `code=${code}`;
      else proxy.override = (r) => tokenEndpoint(r) ?? { status: 503, body: { message: "unavailable" } };
      try {
        const result = (await get().client.callTool(failing.tool, argumentsFor(failing))) as ToolResult;
        expect(result.isError).toBe(true);
        expect(result.content[0].text).toMatch(new RegExp(`^HTTP ${code ?? 503} `));
        expect(apiRequests().at(-1)!.status).toBe(code ?? 503);
      } finally {
        proxy.prefer = undefined;
        proxy.override = tokenEndpoint;
      }
    });
  });
});

// 4xx. With security: a server without the credentials, and Prism's 401. Without: Prism's documented 4xx
// (Prefer: code=), else the proxy's own 404 (an invalid argument would not reach the API: the MCP server checks the
// tool's inputSchema, made from the same schemas, first).
// No operation the test can authorise (every one needs the MCP caller's token): Prism's 401 to one of them.
const secured =
  OPERATIONS.find((op) => alternatives(op).length > 0 && satisfiable(op)) ??
  OPERATIONS.find((op) => !OPERATIONS.some(satisfiable) && mockRefusesAnonymous(op));
describe(`4xx: ${secured ? `${secured.tool} without credentials, Prism's 401` : "a refusal of the API"}, a tool error`, () => {
  for (const revision of REVISIONS)
    it(`at ${revision}, over stdio`, async () => {
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(SERVER_ENV)) if (v !== undefined && !(k in CREDENTIALS)) env[k] = v;
      const transport = new StdioClientTransport(process.execPath, [MAIN, "--transport", "stdio"], { cwd: ROOT, env });
      const client = new McpClient({
        transport,
        revision,
        capabilities: CLIENT_CAPABILITIES,
        handlers: CLIENT_HANDLERS,
      });
      await client.connect();
      const op = secured ?? OPERATIONS.find(satisfiable) ?? OPERATIONS[0];
      const code = secured ? 401 : documented(op, "4", 404);
      if (!secured && code !== undefined) proxy.prefer = `code=${code}`;
      else if (!secured) proxy.override = (r) => tokenEndpoint(r) ?? { status: 404, body: { message: "not found" } };
      try {
        const result = (await client.callTool(op.tool, argumentsFor(op))) as ToolResult;
        expect(result.isError).toBe(true);
        expect(result.content[0].text).toMatch(new RegExp(`^HTTP ${code ?? 404} `));
        if (secured) expect(result.content[0].text).toContain("the API needs credentials: set ");
        if (secured && !satisfiable(secured)) expect(result.content[0].text).toContain("API_FORWARD_MCP_TOKEN=1");
        expect(apiRequests().at(-1)!.status).toBe(code ?? 404);
      } finally {
        proxy.prefer = undefined;
        proxy.override = tokenEndpoint;
        await client.close();
      }
    });
});
