// The soak bench's server (bench/soak.mjs): the create-mcp-server runtime over serveHttp with its default limits and
// quotas, serving both eras: `echo` (a plain tool), `work` (a task tool: its task finishes after 20 ms with a small
// result) and the resource template app://files/{name}.{ext} (the shape whose matching was super-linear, #20 item 1).
// Each client names itself in `x-soak-client` (clientKey below): the stand-in for 199 principals (or addresses), so that
// the 199 ordinary clients are 199 callers for the quotas and the event loop's fair share, as in production.
// Prints "listening http://127.0.0.1:PORT/mcp" on stderr.
import { createServer } from "../../runtime/dist/index.js";

const server = createServer({ name: "soak", version: "1.0.0" });
const text = (t) => ({ content: [{ type: "text", text: t }] });
server.tool({
  name: "echo",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
  handler: ({ text: t }) => text(String(t ?? "")),
});
server.tool({
  name: "work",
  taskSupport: "optional",
  inputSchema: { type: "object" },
  handler: () => new Promise((r) => setTimeout(() => r(text("done")), 20)),
});
server.resourceTemplate({
  uriTemplate: "app://files/{name}.{ext}",
  name: "files",
  read: (uri) => ({
    contents: [{ uri: String(uri), text: "file" }],
  }),
});
await server.serveHttp({
  host: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
  // The event loop shared per caller is opt-in (docs/hosting.md#limits): the soak measures it on.
  limits: { cpuShareFactor: 4 },
  clientKey: ({ headers, remoteAddress }) => {
    const name = headers["x-soak-client"];
    return typeof name === "string" ? name : remoteAddress;
  },
});
// A normal exit on SIGTERM, so that --cpu-prof (bench/soak.mjs --server-flags) writes its profile.
process.once("SIGTERM", () => process.exit(0));
