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
    validateResults: true,
  });
  return registerFixture(server, { toolsOnly: config.toolsOnly });
}
