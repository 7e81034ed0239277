// @modelcontextprotocol/server (v2) over stdio via serveStdio: the opening message
// picks the era (initialize → 2025-11-25 legacy; _meta envelope → 2026-07-28 modern).
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { makeServer } from "./sdk2-tool.mjs";

serveStdio(makeServer);
process.stdin.on("end", () => process.exit(0));
