/**
 * Which revisions today's official clients speak by default: `@modelcontextprotocol/sdk` 1.x (1.32: its
 * SUPPORTED_PROTOCOL_VERSIONS) and `@modelcontextprotocol/client` 2.x (2.4: the same by default; 2026-07-28 only when
 * the application opts in with `versionNegotiation`). The same list as create-mcp-server's
 * generator/overlay-clients.ts (its tests keep them equal and check both against the installed SDKs).
 */
export const OFFICIAL_CLIENT_REVISIONS: readonly string[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/**
 * One line for mcp.json's `revisions` when none of them is one the official clients speak by default (the server
 * builds and passes its own tests, but those clients cannot connect), else undefined.
 */
export function clientReachWarning(revisions: readonly string[]): string | undefined {
  if (revisions.some((r) => OFFICIAL_CLIENT_REVISIONS.includes(r))) return undefined;
  return (
    `generate: warning: mcp.json's "revisions" (${revisions.join(", ")}) has none that the official TypeScript SDK's clients speak by default today ` +
    `(SDK 1.x: ${OFFICIAL_CLIENT_REVISIONS.join(", ")}; SDK 2.x: the same, and 2026-07-28 only when the client opts in): add one of those for them to connect`
  );
}
