/**
 * The Worker the workerd test serves: `export default { fetch: server.fetchHandler() }`, the server created at global
 * scope as a Worker does (so neither may start a timer or draw random bytes there: workerd forbids both outside a
 * handler). The tools' validators are precompiled at bundle time: workerd forbids ajv's code generation.
 */
import { ask, echo } from "hosts:validators";
import { fromAjv } from "../../runtime/dist/index.js";
import { makeServer } from "./app.ts";

const server = makeServer({ validators: { echo: fromAjv(echo), ask: fromAjv(ask) } });

export default { fetch: server.fetchHandler() };
