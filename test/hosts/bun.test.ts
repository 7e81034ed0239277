/** Bun: `bun run bun-server.ts` (Bun.serve with server.fetchHandler()) on 127.0.0.1: the shared scenario. */
import { join } from "node:path";
import { describe } from "vitest";
import { BUN, HOSTS_DIR, startProcess } from "./hosts.js";
import { ENDPOINT_PATH } from "./listen.js";
import { mcpScenario } from "./scenario.js";

describe("Bun: Bun.serve({ fetch: server.fetchHandler() })", () => {
  mcpScenario(async () => {
    const host = await startProcess(BUN, ["run", join(HOSTS_DIR, "bun-server.ts")]);
    return { url: `${host.origin}${ENDPOINT_PATH}`, stop: host.stop, logs: host.logs };
  });
});
