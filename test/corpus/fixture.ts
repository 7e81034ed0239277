/**
 * The server under test for the wire corpus: the fixture server (test/fixtures/fixture-server.mjs, which the stdio
 * tests run as a child process too), built in process. What is about the process or the pipe (stdout noise, an
 * asynchronous throw, a result JSON cannot serialize) stays with test/fixtures/stdio-fixture.mjs and
 * test/runtime/stdio.test.ts.
 * A case's `-- config --` line picks the options below; one server is built per distinct config.
 */
import { createServer, type McpServer, type Revision } from "../../runtime/dist/index.js";
import { registerFixture } from "../fixtures/fixture-server.mjs";

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
  /** Also a tool "late-notes" that reports progress and logs once before it returns and again just after. */
  lateNotes?: boolean;
  /**
   * Also handlers that set the fields the runtime owns: a tool "claims" returning its arguments' resultType, ttlMs and
   * cacheScope in its result, a prompt "claims" returning resultType "input_required", a prompt "cache-claims"
   * returning caching fields (prompts/get is not cacheable), and resources
   * test://claims/{ttlMs}/{cacheScope} returning those (ttlMs as a number when it reads as one).
   */
  runtimeFields?: boolean;
  /** Check every result against the revision's schema (default true; false shows what the runtime refuses by itself). */
  validateResults?: boolean;
}

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
    validateResults: config.validateResults ?? true,
  });
  registerFixture(server, { toolsOnly: config.toolsOnly });
  if (config.lateNotes)
    server.tool({
      name: "late-notes",
      inputSchema: { type: "object" },
      handler: (_args, ctx) => {
        const note = (n: number) => (ctx.progress(n, 2), ctx.log("info", `note ${n}`));
        note(1);
        // After the result is answered: a handler that forgot a timer, or a stream that kept emitting.
        setTimeout(() => note(2), 1);
        return { content: [{ type: "text", text: "returned" }] };
      },
    });
  if (config.runtimeFields) {
    server.tool({
      name: "claims",
      inputSchema: { type: "object" },
      handler: (args) => ({ content: [{ type: "text", text: "claims" }], ...args }) as never,
    });
    server.prompt({ name: "claims", get: () => ({ messages: [], resultType: "input_required" }) as never });
    server.prompt({ name: "cache-claims", get: () => ({ messages: [], ttlMs: 5, cacheScope: "public" }) as never });
    server.resourceTemplate({
      uriTemplate: "test://claims/{ttlMs}/{cacheScope}",
      name: "claims",
      read: (uri, { ttlMs, cacheScope }) => ({ contents: [{ uri, text: "claims" }], ttlMs: Number.isNaN(Number(ttlMs)) ? ttlMs : Number(ttlMs), cacheScope }) as never,
    });
  }
  return server;
}
