// ESM resolve hook (runs on the loader thread, see register.mjs).
const SHIM_URL = new URL("./fs-with-globsync.mjs", import.meta.url).href;
const PKG_MARKER = "/node_modules/@modelcontextprotocol/conformance/";

export async function resolve(specifier, context, nextResolve) {
  if (
    (specifier === "fs" || specifier === "node:fs") &&
    context.parentURL &&
    context.parentURL.replace(/\\/g, "/").includes(PKG_MARKER)
  ) {
    return { url: SHIM_URL, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
