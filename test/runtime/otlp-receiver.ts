/**
 * An OTLP/HTTP receiver on 127.0.0.1 for the telemetry tests: it accepts `POST /v1/traces` and `POST /v1/metrics` in
 * the JSON encoding (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) and keeps what it got, flattened: spans with their
 * attributes as a plain object, metrics' data points by metric name.
 */
import { createServer, type Server } from "node:http";

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  traceState?: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: { code?: number; message?: string };
  links: { traceId: string; spanId: string }[];
  scope: string;
}

export interface ReceivedPoint {
  attributes: Record<string, string | number | boolean>;
  count: number;
  sum?: number;
  explicitBounds?: number[];
}

export interface Receiver {
  url: string;
  spans: ReceivedSpan[];
  /** Histogram data points by metric name (the latest export of each series wins), with each metric's unit. */
  metrics: Map<string, { unit?: string; points: ReceivedPoint[] }>;
  /** Resolves once `pred` holds of what was received (checked on every export), or rejects after `ms`. */
  until(pred: () => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

const value = (v: AnyValue): string | number | boolean => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue ?? (JSON.stringify(v) as string)));
const attrs = (kvs: KeyValue[] | undefined) => Object.fromEntries((kvs ?? []).map((kv) => [kv.key, value(kv.value)]));

export async function startReceiver(): Promise<Receiver> {
  const spans: ReceivedSpan[] = [];
  const metrics = new Map<string, { unit?: string; points: ReceivedPoint[] }>();
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      const json = JSON.parse(body || "{}");
      if (req.url === "/v1/traces") {
        for (const rs of json.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                traceState: s.traceState || undefined,
                name: s.name,
                kind: s.kind,
                attributes: attrs(s.attributes),
                status: s.status ?? {},
                links: (s.links ?? []).map((l: { traceId: string; spanId: string }) => ({ traceId: l.traceId, spanId: l.spanId })),
                scope: ss.scope?.name,
              });
      } else if (req.url === "/v1/metrics") {
        for (const rm of json.resourceMetrics ?? [])
          for (const sm of rm.scopeMetrics ?? [])
            for (const m of sm.metrics ?? []) {
              if (!m.histogram) continue;
              const points = (m.histogram.dataPoints ?? []).map((p: { attributes: KeyValue[]; count: string | number; sum?: number; explicitBounds?: number[] }) => ({
                attributes: attrs(p.attributes),
                count: Number(p.count),
                sum: p.sum,
                explicitBounds: p.explicitBounds,
              }));
              metrics.set(m.name, { unit: m.unit, points });
            }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      for (const w of waiters) w();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    until(pred, ms = 15_000) {
      if (pred()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => (waiters.delete(check), reject(new Error(`not received within ${ms} ms; spans: ${spans.map((s) => s.name).join(", ")}`))), ms);
        const check = () => {
          if (!pred()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
