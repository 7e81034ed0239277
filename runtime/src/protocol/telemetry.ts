/**
 * OpenTelemetry, by the MCP semantic conventions (OpenTelemetry GenAI semantic conventions v0.1.0,
 * open-telemetry/semantic-conventions-genai docs/gen-ai/mcp.md; status Development): one SERVER span per request,
 * named `{mcp.method.name} {target}`, its parent the W3C trace context of `params._meta` (SEP-414 reserves
 * `traceparent`, `tracestate`, `baggage` there), else of the HTTP request's headers, else the ambient context; the
 * histograms `mcp.server.operation.duration` and `mcp.server.session.duration` (seconds). Only `@opentelemetry/api`:
 * with no SDK registered every entry here returns before it allocates anything (no span, no attributes).
 */
import type { Attributes, Context, Histogram, Link as SpanLink, MeterProvider, Span, Tracer, TracerProvider } from "@opentelemetry/api";
import type { JsonRpcMessage, JsonRpcResponse } from "../wire/jsonrpc.js";
import { isObject } from "../wire/jsonrpc.js";
import type { Link, RequestScope, RequestTelemetry } from "./request.js";

type Result = Record<string, unknown>;

/** The instrumentation scope's name (what a backend shows as the library that made the spans and metrics). */
export const INSTRUMENTATION_NAME = "@create-mcp-server/runtime";

/** The conventions' ExplicitBucketBoundaries advice for both histograms (seconds). */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** W3C trace context keys: in `params._meta` (unprefixed, SEP-414) and as HTTP headers. */
const TRACE_KEYS = ["traceparent", "tracestate", "baggage"] as const;

/** The trace context an HTTP request carried in its headers (traceparent, tracestate, baggage), or undefined. */
export type TraceCarrier = Partial<Record<(typeof TRACE_KEYS)[number], string>>;

// ---- is an SDK registered? ----

type Api = typeof import("@opentelemetry/api");
/** Where every copy of the API (major version 1) keeps what an SDK registered (its tracer and meter providers). */
const GLOBAL_KEY = Symbol.for("opentelemetry.js.api.1");
let api: Api | undefined;
let loading: Promise<boolean> | undefined;

/**
 * Load `@opentelemetry/api` (once). The runtime never imports it up front: a server with no SDK registered pays
 * nothing for it, not even at start-up. Called when an SDK is first seen registered (requests until it has loaded
 * go untraced); a project that registers an SDK awaits it before serving, so that no request is missed. Resolves
 * false when the package cannot be loaded.
 */
export function loadTelemetry(): Promise<boolean> {
  return (loading ??= import("@opentelemetry/api").then(
    (m) => ((api = m), true),
    () => false,
  ));
}

/** What the OpenTelemetry API registered on the global object (once anything set a provider or logger), or undefined. */
const otelGlobal = () => (globalThis as Record<symbol, { trace?: unknown; metrics?: unknown } | undefined>)[GLOBAL_KEY];

/** The API when an SDK has registered a tracer or meter provider, else undefined (one property read). */
function registered(): Api | undefined {
  const global = otelGlobal();
  if (global === undefined || (global.trace === undefined && global.metrics === undefined)) return undefined;
  if (!api) void loadTelemetry();
  return api;
}

let noopTracerProvider: TracerProvider | undefined;
let tracerProvider: TracerProvider | undefined;
let tracer: Tracer | undefined;

/** The tracer, or undefined when no tracer provider is registered (the API's no-op). */
function activeTracer(a: Api): Tracer | undefined {
  const global = a.trace.getTracerProvider() as TracerProvider & { getDelegate?: () => TracerProvider };
  // The global proxy's delegate is the SDK's provider, or the API's no-op one (a NoopTracerProvider) when none is set.
  const delegate = typeof global.getDelegate === "function" ? global.getDelegate() : global;
  if (delegate === (noopTracerProvider ??= new a.ProxyTracerProvider().getDelegate())) return undefined;
  if (delegate !== tracerProvider) {
    tracerProvider = delegate;
    tracer = delegate.getTracer(INSTRUMENTATION_NAME);
  }
  return tracer;
}

interface Instruments {
  operation: Histogram;
  session: Histogram;
}
let meterProvider: MeterProvider | undefined;
let instruments: Instruments | undefined;

/** The two histograms, or undefined when no meter provider is registered. */
function activeInstruments(a: Api): Instruments | undefined {
  const provider = a.metrics.getMeterProvider();
  if (provider === meterProvider) return instruments;
  meterProvider = provider;
  const meter = provider.getMeter(INSTRUMENTATION_NAME);
  // The API's no-op provider hands out its one shared no-op meter.
  if (meter === a.createNoopMeter()) return (instruments = undefined);
  const advice = { explicitBucketBoundaries: DURATION_BUCKETS };
  instruments = {
    operation: meter.createHistogram("mcp.server.operation.duration", {
      unit: "s",
      description: "MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.",
      advice,
    }),
    session: meter.createHistogram("mcp.server.session.duration", { unit: "s", description: "The duration of the MCP session as observed on the MCP server.", advice }),
  };
  return instruments;
}

// ---- a request ----

/**
 * Begin the telemetry of a request routed and admitted (any era, any transport), or undefined when neither tracing
 * nor metrics is on. `known(kind, name)` says whether a tool or prompt name is the server's: only those go into the
 * metric's attributes (a client's made-up names would make its series unbounded).
 */
export function beginRequest(scope: RequestScope, known: (kind: "tool" | "prompt", name: string) => boolean): RequestTelemetry | undefined {
  const a = registered();
  if (!a) return undefined;
  const tr = activeTracer(a);
  const hist = activeInstruments(a);
  if (!tr && !hist) return undefined;
  return new RequestRecord(a, scope, tr, hist, known);
}

class RequestRecord implements RequestTelemetry {
  private readonly context: Context;
  private readonly span?: Span;
  private readonly started = performance.now();
  private readonly metricAttributes: Attributes;
  private ended = false;

  constructor(
    private readonly a: Api,
    private readonly scope: RequestScope,
    tr: Tracer | undefined,
    private readonly hist: Instruments | undefined,
    known: (kind: "tool" | "prompt", name: string) => boolean,
  ) {
    const { req, revision, link } = scope;
    const params = req.params ?? {};
    const method = req.method;
    const tool = method === "tools/call" && typeof params.name === "string" ? params.name : undefined;
    const prompt = method === "prompts/get" && typeof params.name === "string" ? params.name : undefined;
    const common: Attributes = { "mcp.method.name": method, "mcp.protocol.version": revision, ...transportAttributes(link) };
    if (tool !== undefined) common["gen_ai.operation.name"] = "execute_tool";
    this.metricAttributes = { ...common };
    if (tool !== undefined && known("tool", tool)) this.metricAttributes["gen_ai.tool.name"] = tool;
    if (prompt !== undefined && known("prompt", prompt)) this.metricAttributes["gen_ai.prompt.name"] = prompt;
    const ambient = a.context.active();
    if (!tr) {
      this.context = ambient;
      return;
    }
    const attributes: Attributes = { ...common };
    if (tool !== undefined) attributes["gen_ai.tool.name"] = tool;
    if (prompt !== undefined) attributes["gen_ai.prompt.name"] = prompt;
    if (req.id !== null && req.id !== undefined) attributes["jsonrpc.request.id"] = String(req.id);
    if (typeof params.uri === "string" && (method === "resources/read" || method === "resources/subscribe" || method === "resources/unsubscribe")) attributes["mcp.resource.uri"] = params.uri;
    if (link?.transport === "http" && link.session) attributes["mcp.session.id"] = link.id;
    const { parent, links } = parentOf(a, params._meta, scope.sink.traceCarrier, ambient);
    const target = tool ?? prompt;
    this.span = tr.startSpan(target === undefined ? method : `${method} ${target}`, { kind: a.SpanKind.SERVER, attributes, links }, parent);
    this.context = a.trace.setSpan(parent, this.span);
  }

  run<T>(fn: () => T): T {
    return this.a.context.with(this.context, fn);
  }

  get traceId(): string | undefined {
    const span = this.span?.spanContext();
    // An unsampled or invalid span (all zeros) names no trace a reader could find.
    return span && this.a.isSpanContextValid(span) ? span.traceId : undefined;
  }

  end(response: JsonRpcMessage | undefined): void {
    if (this.ended) return;
    this.ended = true;
    const outcome = outcomeOf(this.scope.req.method, response);
    // initialize: the revision in force is the one it negotiated.
    const negotiated = this.scope.req.method === "initialize" ? (response as { result?: Result } | undefined)?.result?.protocolVersion : undefined;
    if (typeof negotiated === "string") this.metricAttributes["mcp.protocol.version"] = negotiated;
    const span = this.span;
    if (span && typeof negotiated === "string") span.setAttribute("mcp.protocol.version", negotiated);
    if (span) {
      if (outcome) {
        span.setAttribute("error.type", outcome.type);
        if (outcome.code !== undefined) span.setAttribute("rpc.response.status_code", outcome.code);
        span.setStatus({ code: this.a.SpanStatusCode.ERROR, message: outcome.message });
      }
      span.end();
    }
    if (this.hist) {
      const attributes = outcome
        ? { ...this.metricAttributes, "error.type": outcome.type, ...(outcome.code !== undefined ? { "rpc.response.status_code": outcome.code } : {}) }
        : this.metricAttributes;
      this.hist.operation.record((performance.now() - this.started) / 1000, attributes);
    }
  }
}

/** network.transport: `pipe` for stdio, `tcp` for HTTP (and network.protocol.name `http`), as the conventions' table records them. */
function transportAttributes(link: Link | undefined): Attributes {
  return link?.transport === "stdio" ? { "network.transport": "pipe" } : { "network.transport": "tcp", "network.protocol.name": "http" };
}

/**
 * The span's parent: the context in `_meta` when it carries a traceparent (the ambient span, e.g. an instrumented
 * HTTP server's, then linked, as the conventions say), else the HTTP headers' when the ambient context has no span,
 * else the ambient context.
 */
function parentOf(a: Api, meta: unknown, carrier: TraceCarrier | undefined, ambient: Context): { parent: Context; links?: SpanLink[] } {
  if (isObject(meta) && typeof meta.traceparent === "string") {
    const parent = a.propagation.extract(a.ROOT_CONTEXT, meta);
    const ambientSpan = a.trace.getSpanContext(ambient);
    if (!a.trace.getSpanContext(parent)) return { parent: ambient };
    return { parent, links: ambientSpan ? [{ context: ambientSpan }] : undefined };
  }
  if (carrier && !a.trace.getSpanContext(ambient)) return { parent: a.propagation.extract(ambient, carrier) };
  return { parent: ambient };
}

/** Why a response counts as an error (a JSON-RPC error; a tools/call result with isError), or undefined. */
function outcomeOf(method: string, response: JsonRpcMessage | undefined): { type: string; code?: string; message?: string } | undefined {
  if (response === undefined) return { type: "cancelled" };
  const r = response as JsonRpcResponse & { error?: { code: number; message: string }; result?: Result };
  if (r.error) return { type: String(r.error.code), code: String(r.error.code), message: r.error.message };
  if (method === "tools/call" && r.result?.isError === true) return { type: "tool_error" };
  return undefined;
}

/** The trace context of an HTTP request's headers, when it has a traceparent (else undefined: nothing to carry). */
export function traceCarrier(headers: Record<string, string | string[] | undefined>): TraceCarrier | undefined {
  const tp = headers.traceparent;
  if (tp === undefined) return undefined;
  const carrier: TraceCarrier = {};
  for (const key of TRACE_KEYS) {
    const v = headers[key];
    if (v !== undefined) carrier[key] = Array.isArray(v) ? v.join(",") : v;
  }
  return carrier;
}

// ---- what a request does on its behalf ----

/**
 * A server→client request a handler makes (elicitation/create, sampling/createMessage, roots/list): a CLIENT span,
 * child of the active context (the request's or the task's), for as long as `ask` runs. `ask` gets the params with
 * the span's trace context in `_meta` (legacy server→client requests carry it to the client). A modern MRTR ask
 * ends at once with `mcp.input_required` true: its answer comes in a later request.
 */
export function traceAsk<T>(method: string, params: Result | undefined, ask: (params: Result | undefined) => Promise<T>, inputRequired: (err: unknown) => boolean): Promise<T> {
  const a = registered();
  const tr = a && activeTracer(a);
  if (!a || !tr) return ask(params);
  const parent = a.context.active();
  const span = tr.startSpan(method, { kind: a.SpanKind.CLIENT, attributes: { "mcp.method.name": method } }, parent);
  const meta: Record<string, string> = {};
  a.propagation.inject(a.trace.setSpan(parent, span), meta);
  const withMeta = { ...(params ?? {}), _meta: { ...((params?._meta as Result) ?? {}), ...meta } };
  return ask(withMeta).then(
    (r) => (span.end(), r),
    (err) => {
      if (inputRequired(err)) span.setAttribute("mcp.input_required", true);
      else {
        span.setAttribute("error.type", errorType(err));
        span.setStatus({ code: a.SpanStatusCode.ERROR, message: (err as Error)?.message });
      }
      span.end();
      throw err;
    },
  );
}

function errorType(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === "number") return String(code);
  return err instanceof Error ? err.constructor.name : "_OTHER";
}

/** A task's run (protocol/tasks.ts): an INTERNAL span `task {tool}` under the request that created it, ended by `end`. */
export interface TaskTelemetry {
  run<T>(fn: () => T): T;
  end(status: string, isError: boolean): void;
}

/** Begin the span of task `taskId`'s run of `tool`, a child of the active context (the creating request's), or undefined. */
export function beginTaskRun(taskId: string, tool: string): TaskTelemetry | undefined {
  const a = registered();
  const tr = a && activeTracer(a);
  if (!a || !tr) return undefined;
  const parent = a.context.active();
  const span = tr.startSpan(`task ${tool}`, { kind: a.SpanKind.INTERNAL, attributes: { "mcp.task.id": taskId, "gen_ai.tool.name": tool, "gen_ai.operation.name": "execute_tool" } }, parent);
  const ctx = a.trace.setSpan(parent, span);
  return {
    run: (fn) => a.context.with(ctx, fn),
    end(status, isError) {
      span.setAttribute("mcp.task.status", status);
      if (status === "failed" || isError) {
        span.setAttribute("error.type", isError ? "tool_error" : "task_failed");
        span.setStatus({ code: a.SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}

// ---- sessions ----

/**
 * A legacy session's start for its `mcp.server.session.duration` (performance.now()), or undefined when no
 * OpenTelemetry API is registered, so nothing would be recorded at its end: the first read of `performance` loads
 * Node's perf_hooks, about 0.7 ms of a stdio server's cold start. An SDK registered after a session began (rather than
 * before the server starts, as OpenTelemetry asks) records the sessions that begin after it.
 */
export function sessionStartTime(): number | undefined {
  return otelGlobal() === undefined ? undefined : performance.now();
}

/** A legacy session ended (its link closed): record `mcp.server.session.duration` from `startedAt` (performance.now()). */
export function sessionEnded(link: Link, revision: string, startedAt: number): void {
  const a = registered();
  const hist = a && activeInstruments(a);
  if (!hist) return;
  hist.session.record((performance.now() - startedAt) / 1000, { "mcp.protocol.version": revision, ...transportAttributes(link) });
}
