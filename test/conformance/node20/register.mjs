// Preload for Node < 22: `node --import ./register.mjs <conformance cli>`.
// The @modelcontextprotocol/conformance CLI does `import { globSync } from "fs"`,
// which only exists from Node 22. This registers an ESM resolve hook that maps
// `fs` / `node:fs` imported from inside the conformance package to
// ./fs-with-globsync.mjs (node:fs plus globSync). Every other importer is untouched.
import { register } from "node:module";
import fs from "node:fs";

if (typeof fs.globSync !== "function") {
  register(new URL("./hooks.mjs", import.meta.url));
}
