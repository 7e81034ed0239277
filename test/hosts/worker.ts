/**
 * The Worker the workerd test serves: `export default { fetch: server.fetchHandler() }`, the server created at global
 * scope as a Worker does (so neither may start a timer or draw random bytes there: workerd forbids both outside a
 * handler). echo's validator is precompiled at bundle time: workerd forbids ajv's code generation.
 */
import validateEcho from "hosts:echo-validator";
import { fromAjv } from "../../runtime/dist/index.js";
import { makeServer } from "./app.ts";

const server = makeServer({ validateEcho: fromAjv(validateEcho) });

export default { fetch: server.fetchHandler() };
