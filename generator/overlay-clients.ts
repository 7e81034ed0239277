/**
 * Which revisions today's official clients speak: an ecosystem fact, not a spec rule, written by hand and reviewed as
 * data like the overlay (test/scaffold/small-fixes.test.ts checks it against the SDKs this repository installs).
 *
 * - `@modelcontextprotocol/sdk` 1.x (1.32): its Client offers LATEST_PROTOCOL_VERSION and accepts any of
 *   SUPPORTED_PROTOCOL_VERSIONS (types.js): 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05 (and 2024-10-07, which
 *   was never a published revision here).
 * - `@modelcontextprotocol/client` 2.x (2.4): the same list by default (`versionNegotiation` mode "legacy"); it speaks
 *   2026-07-28 only when the application opts in (`versionNegotiation: { mode: { pin } }` or "auto").
 *
 * codegen/src/clients.ts holds the same list for `npm run generate` (the project's generator has no access to this
 * package); the test keeps the two equal.
 */
export const OFFICIAL_CLIENT_REVISIONS: readonly string[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/**
 * The warning for a server that serves `revisions`, none of which the official clients speak by default, else
 * undefined: such a server is unreachable from them, though it builds and passes its own tests.
 */
export function clientReachWarning(revisions: readonly string[]): string | undefined {
  if (revisions.some((r) => OFFICIAL_CLIENT_REVISIONS.includes(r))) return undefined;
  return (
    `warning: --revisions ${revisions.join(",")} has none that the official TypeScript SDK's clients speak by default today ` +
    `(SDK 1.x: ${OFFICIAL_CLIENT_REVISIONS.join(", ")}; SDK 2.x: the same, and 2026-07-28 only when the client opts in), so they cannot connect: ` +
    `add one of those (--revisions, or "revisions" in mcp.json)`
  );
}
