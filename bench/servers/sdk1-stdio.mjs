// @modelcontextprotocol/sdk 1.x over stdio (StdioServerTransport). Legacy era only.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { makeServer } from "./sdk1-tool.mjs";

const server = makeServer();
const transport = new StdioServerTransport();
transport.onclose = () => process.exit(0);
await server.connect(transport);
process.stdin.on("end", () => process.exit(0));
