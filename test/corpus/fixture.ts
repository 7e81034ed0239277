/**
 * The server under test for the wire corpus: the tools, resources, prompts and completions of
 * test/fixtures/stdio-fixture.mjs, built in process. What is about the process or the pipe (stdout noise, an
 * asynchronous throw, a result JSON cannot serialize) stays with that fixture and test/runtime/stdio.test.ts.
 * A case's `-- config --` line picks the options below; one server is built per distinct config.
 */
import { createServer, ResourceNotFoundError, type McpServer, type Revision } from "../../runtime/dist/index.js";

export interface FixtureConfig {
  /** Revisions served (default: all). */
  revisions?: Revision[];
  /** Items per list page (default 100). */
  pageSize?: number;
  /** Only the echo tool: no prompts, no resources, no completions capability. */
  toolsOnly?: boolean;
  /** HMAC secret of MRTR requestState (default: random per server, as per process). */
  requestStateSecret?: string;
  /** Defaults of modern cacheable results. */
  cache?: { ttlMs?: number; cacheScope?: "public" | "private" };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });

const obj = { type: "object" } as const;

export function buildFixture(config: FixtureConfig = {}): McpServer {
  const server = createServer({
    name: "corpus-fixture",
    version: "1.2.3",
    title: "Corpus fixture",
    instructions: "A fixture for the wire corpus.",
    revisions: config.revisions,
    pageSize: config.pageSize,
    requestStateSecret: config.requestStateSecret,
    cache: config.cache,
    validateResults: true,
  });
  server.tool({
    name: "echo",
    title: "Echo",
    description: "Returns its text",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    annotations: { readOnlyHint: true },
    handler: ({ text }) => ({ content: [{ type: "text", text: text as string }] }),
  });
  if (config.toolsOnly) return server;
  // Tags of slow calls whose signal fired: a case observes cancellation reaching the handler through was_aborted.
  const aborted = new Set<string>();
  server.tool({
    name: "slow",
    description: "Answers after ms milliseconds, or fails when cancelled",
    inputSchema: { type: "object", properties: { ms: { type: "integer" }, tag: { type: "string" } }, required: ["ms"] },
    handler: async ({ ms, tag }, ctx) => {
      try {
        await sleep(ms as number, ctx.signal);
      } catch (err) {
        aborted.add(String(tag));
        throw err;
      }
      return { content: [{ type: "text", text: (tag as string | undefined) ?? "done" }] };
    },
  });
  server.tool({
    name: "was_aborted",
    description: "Whether the slow call with this tag saw its signal fire",
    inputSchema: { type: "object", properties: { tag: { type: "string" } }, required: ["tag"] },
    handler: ({ tag }) => ({ content: [{ type: "text", text: `aborted: ${aborted.has(tag as string) ? "yes" : "no"}` }] }),
  });
  server.tool({
    name: "throws",
    description: "Always throws",
    inputSchema: obj,
    handler: () => {
      throw new Error("boom");
    },
  });
  server.tool({
    name: "add",
    description: "Adds two numbers, with structured output",
    inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
    handler: ({ a, b }) => ({ content: [], structuredContent: { sum: (a as number) + (b as number) } }),
  });
  server.tool({
    name: "bad_output",
    description: "Returns structuredContent that breaks its outputSchema",
    inputSchema: obj,
    outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
    handler: () => ({ content: [], structuredContent: { sum: "not a number" } }),
  });
  server.tool({
    name: "progress",
    description: "Reports progress 0, 50, 50, 30, 100",
    inputSchema: obj,
    handler: (_args, ctx) => {
      for (const p of [0, 50, 50, 30, 100]) ctx.progress(p, 100, `at ${p}`);
      return { content: [{ type: "text", text: "done" }] };
    },
  });
  server.tool({
    name: "logs",
    description: "Logs at debug, info and error",
    inputSchema: obj,
    handler: (_args, ctx) => {
      ctx.log("debug", "a debug line");
      ctx.log("info", "an info line");
      ctx.log("error", { detail: "an error line" }, "fixture");
      return { content: [{ type: "text", text: "logged" }] };
    },
  });
  server.tool({
    name: "ask",
    description: "Elicits a name from the user",
    inputSchema: obj,
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } });
      return { content: [{ type: "text", text: `answer: ${JSON.stringify(answer.content ?? null)} (${answer.action})` }] };
    },
  });
  server.tool({
    name: "ask_url",
    description: "Elicits in URL mode (2025-11-25+)",
    inputSchema: obj,
    handler: async (_args, ctx) => {
      // elicitationId is required by 2025-11-25's URL mode and absent from the latest revision's type, hence the cast.
      const answer = await ctx.elicit({ mode: "url", message: "Sign in to continue", url: "https://example.com/auth", elicitationId: "e-1" } as never);
      return { content: [{ type: "text", text: `url answer: ${answer.action}` }] };
    },
  });
  server.tool({
    name: "ask_nested",
    description: "Elicits a form with a nested object property (the schema allows only primitive properties)",
    inputSchema: obj,
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: "Address?",
        requestedSchema: { type: "object", properties: { address: { type: "object", properties: { city: { type: "string" } } } } } as never,
      });
      return { content: [{ type: "text", text: `nested answer: ${answer.action}` }] };
    },
  });
  server.tool({
    name: "meta",
    description: "Returns a result whose _meta has a reserved key and a custom key",
    inputSchema: obj,
    handler: () => ({ content: [{ type: "text", text: "meta" }], _meta: { "io.modelcontextprotocol/related-task": { taskId: "t1" }, "com.example/trace": "abc" } }),
  });
  server.tool({
    name: "ask_many",
    description: "Asks for a name, a model answer and the roots at once, then a confirmation",
    inputSchema: { type: "object", properties: { topic: { type: "string" } } },
    handler: async ({ topic }, ctx) => {
      const [who, model, roots] = await Promise.all([
        ctx.elicit({ message: "Who?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }, { key: "user_name" }),
        ctx.sample({ messages: [{ role: "user", content: { type: "text", text: `About ${topic}?` } }], maxTokens: 10 }, { key: "question" }),
        ctx.listRoots({ key: "roots" }),
      ]);
      const confirm = await ctx.elicit({ message: "Sure?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } }, { key: "confirm" });
      const text = (model.content as { text?: string }).text;
      return { content: [{ type: "text", text: `${who.content?.name}|${text}|${roots.roots.length}|${confirm.content?.ok}` }] };
    },
  });
  server.tool({
    name: "touch",
    description: "Announces a change: tools, prompts, resources list, or an update of uri",
    inputSchema: { type: "object", properties: { what: { enum: ["tools", "prompts", "resources", "resource"] }, uri: { type: "string" } }, required: ["what"] },
    handler: ({ what, uri }, ctx) => {
      if (what === "tools") ctx.server.notifyToolsListChanged();
      if (what === "prompts") server.notifyPromptsListChanged();
      if (what === "resources") server.notifyResourcesListChanged();
      if (what === "resource") server.notifyResourceUpdated(uri as string);
      return { content: [{ type: "text", text: `touched ${what}` }] };
    },
  });
  server.tool({
    name: "modern_only",
    description: "Exists only in the stateless era",
    revisions: ["2026-07-28"],
    inputSchema: obj,
    handler: () => ({ content: [{ type: "text", text: "modern" }] }),
  });
  server.prompt({
    name: "ask_prompt",
    description: "A prompt that needs context from the user",
    get: async (_args, ctx) => {
      const r = await ctx.elicit({ message: "Context?", requestedSchema: { type: "object", properties: { context: { type: "string" } } } }, { key: "user_context" });
      return { messages: [{ role: "user", content: { type: "text", text: `context: ${r.content?.context}` } }] };
    },
  });
  server.resource({
    uri: "test://modern-only",
    name: "modern-only",
    revisions: ["2026-07-28"],
    read: (uri) => ({ contents: [{ uri, text: "modern" }] }),
  });
  server.resource({ uri: "test://static", name: "static", mimeType: "text/plain", read: (uri) => ({ contents: [{ uri, mimeType: "text/plain", text: "static text" }] }) });
  server.resource({ uri: "test://empty", name: "empty", read: () => ({ contents: [] }) });
  server.resourceTemplate({
    uriTemplate: "test://items/{id}",
    name: "item",
    mimeType: "application/json",
    read: (uri, { id }) => {
      if (id === "missing") throw new ResourceNotFoundError(uri);
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify({ id }) }] };
    },
    complete: { id: () => ["1", "2", "10", "missing"] },
  });
  server.resourceTemplate({
    uriTemplate: "test://search{?q,page}",
    name: "search",
    mimeType: "application/json",
    read: (uri, vars) => ({ contents: [{ uri, mimeType: "application/json", text: JSON.stringify(vars) }] }),
  });
  server.resourceTemplate({
    uriTemplate: "test://files{/path*}",
    name: "files",
    mimeType: "application/json",
    read: (uri, vars) => ({ contents: [{ uri, mimeType: "application/json", text: JSON.stringify(vars) }] }),
  });
  const names = Array.from({ length: 150 }, (_, i) => `name-${String(i).padStart(3, "0")}`);
  server.prompt({
    name: "greet",
    description: "Greets someone",
    arguments: [{ name: "name", description: "Who", required: true }],
    get: ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }] }),
    complete: { name: (value) => [...names, "zeta-name-1", "other"].filter((n) => n.includes(value) || value === "") },
  });
  return server;
}
