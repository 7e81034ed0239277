// OpenTelemetry, off unless asked for: OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT /
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) sends traces and metrics over OTLP/HTTP, MCP_METRICS_PORT serves Prometheus
// /metrics on that port; every other standard OTEL_* variable (OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_HEADERS,
// OTEL_TRACES_SAMPLER, OTEL_EXPORTER_OTLP_PROTOCOL, ...) is read by the OpenTelemetry Node SDK itself. The SDK is
// an optional dependency (`npm install @opentelemetry/sdk-node`), loaded only when one of those is set.
import { loadTelemetry } from "@create-mcp-server/runtime";
import { serverInfo } from "../generated/manifest.js";

/** The running SDK: flush and stop it before the process exits (spans and metrics still buffered are sent). */
export interface Telemetry {
  shutdown(): Promise<void>;
}

const SDK_PACKAGE = "@opentelemetry/sdk-node";

/**
 * Start the OpenTelemetry Node SDK when the environment asks for it, before the server serves (so that no request is
 * missed); undefined when it does not, or when the SDK is not installed (said in one line on stderr).
 */
export async function startTelemetry(): Promise<Telemetry | undefined> {
  const env = process.env;
  const otlp =
    env.OTEL_EXPORTER_OTLP_ENDPOINT ||
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
    env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT;
  const metricsPort = env.MCP_METRICS_PORT;
  if ((!otlp && !metricsPort) || env.OTEL_SDK_DISABLED === "true") return undefined;
  if (metricsPort !== undefined && !/^\d{1,5}$/.test(metricsPort)) {
    process.stderr.write(
      `${serverInfo.name}: MCP_METRICS_PORT must be a port number, not ${JSON.stringify(metricsPort)}\n`,
    );
    process.exit(2);
  }
  let sdkModule: { NodeSDK: new () => { start(): void; shutdown(): Promise<void> } };
  try {
    // A variable specifier: the package is optional, so TypeScript must not require it.
    sdkModule = await import(SDK_PACKAGE);
  } catch {
    const asked = otlp ? "OTEL_EXPORTER_OTLP_ENDPOINT" : "MCP_METRICS_PORT";
    process.stderr.write(
      `${serverInfo.name}: ${asked} is set but ${SDK_PACKAGE} is not installed, so telemetry is off; run: npm install ${SDK_PACKAGE}\n`,
    );
    return undefined;
  }
  // What the SDK reads from the environment, completed: Prometheus on MCP_METRICS_PORT (as well as OTLP when an
  // endpoint is set), no OTLP traces or logs without an endpoint, and the server's name as the service's.
  if (metricsPort) {
    env.OTEL_METRICS_EXPORTER ??= otlp ? "prometheus,otlp" : "prometheus";
    env.OTEL_EXPORTER_PROMETHEUS_PORT ??= metricsPort;
  }
  if (!otlp) {
    env.OTEL_TRACES_EXPORTER ??= "none";
    env.OTEL_LOGS_EXPORTER ??= "none";
  }
  env.OTEL_SERVICE_NAME ??= serverInfo.name;
  const sdk = new sdkModule.NodeSDK();
  sdk.start();
  // The runtime loads @opentelemetry/api once an SDK is registered; awaiting it here traces the first request too.
  await loadTelemetry();
  return { shutdown: () => sdk.shutdown().catch(() => {}) };
}
