/** workerd (via miniflare, nodejs_compat) serving the esbuild bundle of worker.ts, on 127.0.0.1: the shared scenario. */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe } from "vitest";
import { bundleWorker } from "./bundle.js";
import { HOSTS_DIR, TMP, startWorkerd } from "./hosts.js";
import { ENDPOINT_PATH } from "./listen.js";
import { mcpScenario } from "./scenario.js";

describe("workerd: export default { fetch: server.fetchHandler() }", () => {
  mcpScenario(async () => {
    mkdirSync(TMP, { recursive: true });
    const { outfile } = await bundleWorker(join(HOSTS_DIR, "worker.ts"), join(TMP, "worker.js"));
    const host = await startWorkerd(outfile);
    // The bundle lives under the checkout (workerd loads no module outside its cwd), so it goes with the host.
    const stop = () => host.stop().finally(() => rmSync(outfile, { force: true }));
    return { url: `${host.origin}${ENDPOINT_PATH}`, stop, logs: host.logs };
  });
});
