// Shared constants for the bench servers (baseline only; SDK servers use their own logic).
export const MODERN_VERSION = "2026-07-28";
export const LEGACY_VERSION = "2025-11-25";
export const PROTOCOL_VERSION_META_KEY =
  "io.modelcontextprotocol/protocolVersion";

/** Print the readiness line every HTTP bench server emits, and that the driver waits for. */
export function announce(server) {
  const { port } = server.address();
  process.stderr.write(`listening http://127.0.0.1:${port}/mcp\n`);
}

export function listenPort() {
  return Number(process.env.PORT ?? 0);
}
