// The runtime with tracing and metrics ON: the OpenTelemetry Node SDK registered (configured from OTEL_* as a
// generated project's src/telemetry.ts does), every request a span exported over OTLP/HTTP (protobuf, the default) to a
// receiver on 127.0.0.1 in this process that reads and discards what it gets (a collector's cost is not the server's),
// and the duration histograms recorded. Next to `runtime` (no SDK registered: the API is never even loaded).
import { createServer } from "node:http";

const sink = createServer((req, res) => {
  req.resume();
  req.on("end", () =>
    res.writeHead(200, { "content-type": "application/x-protobuf" }).end(),
  );
});
await new Promise((r) => sink.listen(0, "127.0.0.1", r));
process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${sink.address().port}`;
process.env.OTEL_SERVICE_NAME ??= "bench-runtime-otel";
process.env.OTEL_LOGS_EXPORTER ??= "none";
process.env.OTEL_NODE_RESOURCE_DETECTORS ??= "env,host,process";
const { NodeSDK } = await import("@opentelemetry/sdk-node");
const sdk = new NodeSDK();
sdk.start();
const { loadTelemetry } = await import("../../runtime/dist/index.js");
await loadTelemetry();
const { benchServer } = await import("./runtime-server.mjs");

const server = benchServer();
if (process.argv.includes("--http")) {
  await server.serveHttp({
    host: "127.0.0.1",
    port: Number(process.env.PORT ?? 0),
  }); // prints "listening http://127.0.0.1:PORT/mcp" to stderr
} else {
  await server.serveStdio({ exitOnEof: false });
  await sdk.shutdown();
  process.exit(0);
}
