#!/usr/bin/env node
// `create-mcp-server-generate` (the project's `npm run generate`): mcp.json → generated/. The code is dist/ (TypeScript).
import { main } from "../dist/generate.js";

await main();
