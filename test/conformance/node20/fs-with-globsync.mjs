// node:fs plus a globSync for Node 20 (node:fs has globSync only from Node 22).
// The conformance CLI calls it once, as globSync("**/checks.json", { cwd: dir }),
// expecting paths relative to cwd. Matching uses tinyglobby when it can be
// resolved from the project (it is installed as a dependency of vitest), else
// Node's own path.matchesGlob over a recursive readdir (no hand-written matching).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

export * from "node:fs";
export default fs;

let tinyglobby;
try {
  tinyglobby = createRequire(import.meta.url)("tinyglobby");
} catch {
  tinyglobby = undefined;
}

export function globSync(pattern, options = {}) {
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  const cwd = options.cwd
    ? String(options.cwd instanceof URL ? options.cwd.pathname : options.cwd)
    : process.cwd();
  if (tinyglobby?.globSync) {
    return tinyglobby.globSync(patterns, {
      cwd,
      onlyFiles: false,
      dot: true,
      expandDirectories: false,
    });
  }
  const entries = fs.readdirSync(cwd, { recursive: true }).map(String);
  return entries.filter((rel) =>
    patterns.some((p) => path.matchesGlob(rel, p)),
  );
}
