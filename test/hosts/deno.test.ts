/** Deno: `deno run deno-server.ts` (Deno.serve with server.fetchHandler()) on 127.0.0.1: the shared scenario. */
import { join } from "node:path";
import { describe } from "vitest";
import { DENO, DENO_FLAGS, HOSTS_DIR, startProcess } from "./hosts.js";
import { ENDPOINT_PATH } from "./listen.js";
import { mcpScenario } from "./scenario.js";

describe("Deno: Deno.serve(server.fetchHandler())", () => {
  mcpScenario(async () => {
    const host = await startProcess(DENO, ["run", ...DENO_FLAGS, join(HOSTS_DIR, "deno-server.ts")]);
    return { url: `${host.origin}${ENDPOINT_PATH}`, stop: host.stop, logs: host.logs };
  });
});
