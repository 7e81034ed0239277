// OUR server: the create-mcp-server runtime (built to runtime/dist by `npm run build`) on stdio or
// on its own node:http server (serveHttp).
import { benchServer } from "./runtime-server.mjs";

const server = benchServer();
const transport = process.argv.includes("--http") ? "http" : "stdio";
if (transport === "http")
  await server.serveHttp({
    host: "127.0.0.1",
    port: Number(process.env.PORT ?? 0),
  }); // prints "listening http://127.0.0.1:PORT/mcp" to stderr
else await server.serveStdio();
