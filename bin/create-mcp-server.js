#!/usr/bin/env node
// Entry point of the create-mcp-server command. An installed package runs the compiled dist/cli.js; a clone of the
// repository (generator/cli.ts beside this file) runs the TypeScript sources through tsx, so an edit needs no rebuild.
import { existsSync } from "node:fs";

const source = new URL("../generator/cli.ts", import.meta.url);
let main;
if (existsSync(source)) {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import(source.href));
} else {
  ({ main } = await import("../dist/cli.js"));
}
await main();
