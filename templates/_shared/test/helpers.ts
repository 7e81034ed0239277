// Start the BUILT server (dist/, from `npm run build`) as a real process and connect the runtime's
// dual-era client to it, pinned to one revision.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe } from "vitest";
import {
  McpClient,
  StdioClientTransport,
  StreamableHttpClientTransport,
  type Revision,
} from "@create-mcp-server/runtime";

/** One field of an elicitation form (a PrimitiveSchemaDefinition of the spec). */
interface FormField {
  type?: string;
  default?: unknown;
  enum?: unknown[];
  oneOf?: { const?: unknown }[];
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  items?: { enum?: unknown[]; anyOf?: { const?: unknown }[] };
}

/** Sample strings by format, as a user would type them. */
const SAMPLES: Record<string, string> = {
  email: "alice@example.com",
  uri: "https://example.com/alice",
  date: "2026-01-01",
  "date-time": "2026-01-01T00:00:00Z",
};

/** What a user would answer for a form field: its default, else a valid value of its type (the server checks the content). */
function answerFor(key: string, field: FormField): unknown {
  if (field.default !== undefined) return field.default;
  if (field.enum?.length) return field.enum[0];
  if (field.oneOf?.length) return field.oneOf[0]!.const;
  switch (field.type) {
    case "boolean":
      return true;
    case "number":
    case "integer": {
      const low = field.minimum ?? Math.min(1, field.maximum ?? 1);
      return field.type === "integer" ? Math.ceil(low) : low;
    }
    case "array": {
      const choices = field.items?.enum ?? field.items?.anyOf?.map((c) => c.const) ?? [];
      return choices.slice(0, Math.max(1, field.minItems ?? 1));
    }
  }
  const sample = SAMPLES[field.format ?? (key === "email" ? "email" : "")] ?? "alice";
  if (field.format) return sample;
  // A plain string within its length bounds.
  return sample.padEnd(field.minLength ?? 0, "x").slice(0, field.maxLength ?? Infinity);
}

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const MAIN = fileURLToPath(new URL("../dist/src/main.js", import.meta.url));

/** mcp.json, the one manifest of tools, prompts and resources (a list it leaves out read as empty). */
export const manifest = withLists(JSON.parse(readFileSync(new URL("../mcp.json", import.meta.url), "utf8")));

function withLists(m: Partial<Manifest> & Pick<Manifest, "name" | "version" | "revisions" | "transports">): Manifest {
  return {
    ...m,
    tools: m.tools ?? [],
    prompts: m.prompts ?? [],
    resources: m.resources ?? [],
    resourceTemplates: m.resourceTemplates ?? [],
  };
}

interface Manifest {
  name: string;
  version: string;
  revisions: Revision[];
  transports: ("stdio" | "http")[];
  tools: {
    name: string;
    inputSchema: { required?: string[] };
    outputSchema?: object;
    taskSupport?: "forbidden" | "optional" | "required";
  }[];
  prompts: { name: string; arguments?: { name: string; required?: boolean; complete?: boolean }[] }[];
  resources: { uri: string; name: string; mimeType?: string }[];
  resourceTemplates: { uriTemplate: string; name: string; complete?: string[] }[];
  /** "oauth": the HTTP server is an OAuth 2.1 resource server (create-mcp-server --auth oauth). */
  authorization?: "oauth";
}

/**
 * With `"authorization": "oauth"` the HTTP server needs access tokens: the tests run it against a real authorization
 * server (test/authorization-server.ts, one per test file) and send that server's tokens, with every declared scope.
 */
export const OAUTH = manifest.authorization === "oauth";
type AuthorizationServer = {
  issuer: string;
  /** Every scope mcp.json declares. */
  scopes: string[];
  clientCredentials(resource: string, scope: string): Promise<string>;
};
let authorizationServer: Promise<AuthorizationServer> | undefined;
export function testAuthorizationServer(): Promise<AuthorizationServer> {
  // A module of auth projects only, loaded by a computed path so that other projects never resolve it.
  const path = "./authorization-server.js";
  authorizationServer ??= import(path).then(async (m) =>
    Object.assign(await m.startAuthorizationServer(), { scopes: m.SCOPES }),
  );
  return authorizationServer;
}

/** The revisions this project serves, oldest first. */
export const REVISIONS: Revision[] = manifest.revisions;
export const TRANSPORTS = manifest.transports;

/**
 * What each served revision requires, read from the rules DATA of the installed runtime package (its "./rules.json",
 * written by create-mcp-server from the official schemas), never from the runtime's code: a runtime that breaks one
 * of these rules fails the tests, and a runtime upgrade brings the rules of the revisions it adds.
 */
interface RevisionFacts {
  era: "legacy" | "modern";
  resourceNotFoundCode: number;
  toolInputErrorsAsResult: boolean;
  structuredContent: boolean;
  elicitation: boolean;
  audioContent: boolean;
  ssePolling: boolean;
  sep1330Enums: boolean;
  taskWireForm: "none" | "core" | "extension";
}
const RULES = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve("@create-mcp-server/runtime/rules.json"), "utf8"),
) as {
  revisions: { id: string; era: "legacy" | "modern" }[];
  methods: Record<string, { revisions: string[] }>;
  definitions: Record<string, { revisions: string[]; fields: Record<string, string[]> }>;
  prose: Record<string, { byRevision: Record<string, unknown> }>;
};
const facts = (r: Revision): RevisionFacts => {
  const revision = RULES.revisions.find((x) => x.id === r);
  if (!revision)
    throw new Error(`the installed runtime has no rules for ${r}: upgrade it (npx create-mcp-server upgrade)`);
  const { definitions: d, methods, prose } = RULES;
  return {
    era: revision.era,
    resourceNotFoundCode: prose.resourceNotFoundCode.byRevision[r] as number,
    toolInputErrorsAsResult: prose.toolInputErrorsAsResult.byRevision[r] as boolean,
    structuredContent: d.CallToolResult?.fields.structuredContent?.includes(r) ?? false,
    elicitation: methods["elicitation/create"]?.revisions.includes(r) ?? false,
    audioContent: d.AudioContent?.revisions.includes(r) ?? false,
    ssePolling: prose.primesSseStreams.byRevision[r] === true && prose.resumableStreams.byRevision[r] === true,
    sep1330Enums: d.TitledSingleSelectEnumSchema?.revisions.includes(r) ?? false,
    taskWireForm: (prose.taskWireForm?.byRevision[r] ?? "none") as RevisionFacts["taskWireForm"],
  };
};
/** The stateless (modern) era: server/discover, per-request _meta, resultType, caching fields. */
export const isModern = (r: Revision) => facts(r).era === "modern";
/** Bad tool arguments: a -32602 protocol error, or (from 2025-11-25) an isError tool result. */
export const inputErrorsAsResult = (r: Revision) => facts(r).toolInputErrorsAsResult;
/** Resource not found: -32002 in the handshake era, -32602 in the stateless era; data.uri in both. */
export const resourceNotFoundCode = (r: Revision) => facts(r).resourceNotFoundCode;
/** structuredContent and outputSchema. */
export const hasStructuredContent = (r: Revision) => facts(r).structuredContent;
/** elicitation/create. */
export const hasElicitation = (r: Revision) => facts(r).elicitation;
/** Audio content blocks. */
export const hasAudio = (r: Revision) => facts(r).audioContent;
/** Streamable HTTP SSE polling: a handler may close its stream's connection; the client resumes with Last-Event-ID. */
export const hasSsePolling = (r: Revision) => facts(r).ssePolling;
/** Elicitation forms with the SEP-1330 enum schemas (titled single-select, multi-select). */
export const hasSep1330Enums = (r: Revision) => facts(r).sep1330Enums;

/**
 * How tasks reach the wire: "none" (no tasks: a tool whose taskSupport is "required" is not served), "core"
 * (2025-11-25: params.task, tasks/get, tasks/result, ...), "extension" (2026-07-28: io.modelcontextprotocol/tasks).
 */
export const taskWireForm = (r: Revision) => facts(r).taskWireForm;
/** The tools a revision serves: all of mcp.json's, but those that must run as a task where the revision has no tasks. */
export const servedTools = (r: Revision) =>
  manifest.tools.filter((t) => t.taskSupport !== "required" || taskWireForm(r) !== "none");

/** The server processes check every result they send against their revision's schema (a failure is a -32603 error). */
export const SERVER_ENV = { ...process.env, MCP_RUNTIME_VALIDATE_RESULTS: "1" };

/** What the test client declares and answers (legacy server→client requests and modern input requests). */
export const CLIENT_CAPABILITIES = { sampling: {}, elicitation: {}, roots: { listChanged: true } };
/** Every request for client input the server made, in order (cleared by the tests that inspect it). */
export const asked: { method: string; params: Record<string, unknown> }[] = [];
export const CLIENT_HANDLERS = {
  sampling: (params: Record<string, unknown>) => {
    asked.push({ method: "sampling/createMessage", params });
    const messages = params.messages as { content: { text?: string } }[];
    return {
      role: "assistant",
      content: { type: "text", text: `echo: ${messages[0]?.content?.text ?? ""}` },
      model: "test-model",
      stopReason: "endTurn",
    };
  },
  elicitation: (params: Record<string, unknown>) => {
    asked.push({ method: "elicitation/create", params });
    const schema = params.requestedSchema as { properties?: Record<string, FormField> } | undefined;
    const content: Record<string, unknown> = {};
    for (const [key, prop] of Object.entries(schema?.properties ?? {})) content[key] = answerFor(key, prop);
    return { action: "accept", content };
  },
  roots: () => {
    asked.push({ method: "roots/list", params: {} });
    return { roots: [{ uri: "file:///test/root", name: "Test Root" }] };
  },
};

export interface Connected {
  client: McpClient;
  close(): Promise<void>;
}

/** Spawn `node dist/src/main.js --transport stdio` and connect, pinned to `revision`. */
export async function connectStdio(revision: Revision): Promise<Connected> {
  const transport = new StdioClientTransport(process.execPath, [MAIN, "--transport", "stdio"], {
    cwd: ROOT,
    env: SERVER_ENV,
  });
  const client = new McpClient({ transport, revision, capabilities: CLIENT_CAPABILITIES, handlers: CLIENT_HANDLERS });
  try {
    await client.connect();
  } catch (err) {
    await transport.close();
    throw new Error(
      `connect over stdio at ${revision}: ${(err as Error).message}\nserver stderr: ${transport.stderr}`,
      { cause: err },
    );
  }
  return {
    client,
    async close() {
      await client.close();
      if (transport.nonProtocolLines.length)
        throw new Error(`the server wrote non-protocol lines to stdout: ${transport.nonProtocolLines.join(" | ")}`);
    },
  };
}

export interface HttpServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Spawn `node dist/src/main.js --transport http --port 0` and wait for the URL it prints. */
export async function startHttp(): Promise<HttpServer> {
  const env = OAUTH ? { ...SERVER_ENV, MCP_AUTH_ISSUER: (await testAuthorizationServer()).issuer } : SERVER_ENV;
  const child = spawn(process.execPath, [MAIN, "--transport", "http", "--host", "127.0.0.1", "--port", "0"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the HTTP server did not print its URL within 10 s:\n${output}`)),
      10_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /(http:\/\/[^\s]+\/mcp)\b/.exec(output);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        url: m[1],
        child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      });
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the HTTP server exited (${code}) before listening:\n${output}`));
    });
  });
}

/** Connect to a running HTTP server, pinned to `revision`. */
export async function connectHttp(url: string, revision: Revision): Promise<Connected> {
  let headers: Record<string, string> | undefined;
  if (OAUTH) {
    const as = await testAuthorizationServer();
    headers = { authorization: `Bearer ${await as.clientCredentials(url, as.scopes.join(" "))}` };
  }
  const transport = new StreamableHttpClientTransport(url, { headers });
  const client = new McpClient({ transport, revision, capabilities: CLIENT_CAPABILITIES, handlers: CLIENT_HANDLERS });
  await client.connect();
  return { client, close: () => client.close() };
}

/**
 * Run `body` once per transport and revision, with a connected client.
 * Over stdio each revision gets its own server process; over HTTP one server serves all of them.
 */
export function eachConnection(
  body: (ctx: { transport: "stdio" | "http"; revision: Revision; get: () => Connected }) => void,
): void {
  for (const transport of TRANSPORTS) {
    describe(`over ${transport}`, () => {
      let http: HttpServer | undefined;
      if (transport === "http") {
        beforeAll(async () => {
          http = await startHttp();
        });
        afterAll(async () => {
          await http?.stop();
        });
      }
      for (const revision of REVISIONS) {
        describe(`at ${revision}`, () => {
          let connected: Connected | undefined;
          beforeAll(async () => {
            connected = transport === "http" ? await connectHttp(http!.url, revision) : await connectStdio(revision);
          });
          afterAll(async () => {
            await connected?.close();
          });
          body({ transport, revision, get: () => connected! });
        });
      }
    });
  }
}
