/** `bun run` / `deno run` / tsx: loads the runtime in that host and prints the probe's result as one JSON line. */
import { makeServer } from "./app.ts";
import { probe } from "./probe.ts";

console.log(JSON.stringify(await probe(makeServer())));
