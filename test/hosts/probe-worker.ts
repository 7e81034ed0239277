/**
 * A Workers module (bundled by bundle.ts, run in workerd) that answers a fetch with the probe's results as JSON:
 * once with the tool schemas left to the runtime to compile (ajv, which workerd refuses), once with the validators
 * precompiled at bundle time. The servers are created at global scope, as a Worker creates its server.
 */
import { ask, echo } from "hosts:validators";
import { fromAjv } from "../../runtime/dist/index.js";
import { makeServer } from "./app.ts";
import { probe } from "./probe.ts";

const compiled = makeServer();
const precompiled = makeServer({ validators: { echo: fromAjv(echo), ask: fromAjv(ask) } });

export default {
  async fetch(): Promise<Response> {
    try {
      return Response.json({ compiled: await probe(compiled), precompiled: await probe(precompiled) });
    } catch (err) {
      return new Response(String((err as Error)?.stack ?? err), { status: 500 });
    }
  },
};
