#!/usr/bin/env node
// Entry point of the create-mcp-server command: runs the TypeScript CLI through tsx's loader.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../generator/cli.ts");
await main();
