/**
 * @create-mcp-server/codegen: a project's mcp.json → generated/ (the `create-mcp-server-generate` command), and the
 * checks of mcp.json it runs first.
 */
export { generate, main, type GenerateResult } from "./generate.js";
export { ManifestError } from "./errors.js";
export { loadManifest, projectRoot } from "./manifest.js";
export { projectRuntime, type ProjectRuntime } from "./runtime.js";
export type * from "./manifest-types.js";
