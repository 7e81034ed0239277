/** Shared by the HTTP test files: run the HTTP fixture as a real process, and speak raw HTTP to it. */
import { spawn, type ChildProcess } from "node:child_process";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { join } from "node:path";
import { createParser } from "eventsource-parser";
import { ClientError } from "../../runtime/dist/index.js";
import { ROOT } from "../helpers.js";

export const HTTP_FIXTURE = join(ROOT, "test", "fixtures", "http-fixture.mjs");
export const MODERN = "2026-07-28";

/*
 * What the tests send, written by hand from the spec (never read from the rules module, so a wrong rule there makes
 * the server and these tests disagree):
 * - the revisions that define MCP-Protocol-Version: spec/2025-06-18/basic/transports.mdx#protocol-version-header on;
 * - the params field Mcp-Name mirrors: spec/2026-07-28/basic/transports/streamable-http.mdx#standard-request-headers,
 *   spec/extensions/tasks/.../2026-07-28/tasks.md#streamable-http-routing-headers.
 */
export const VERSION_HEADER_REVISIONS: readonly string[] = ["2025-06-18", "2025-11-25", "2026-07-28"];
const NAME_HEADER_SOURCE: Record<string, Record<string, string>> = {
  "2026-07-28": { "tools/call": "name", "prompts/get": "name", "resources/read": "uri", "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId" },
};

export interface Fixture {
  url: string;
  port: number;
  child: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

/** Start the fixture on 127.0.0.1 (ephemeral port) and wait for its "listening" line. */
export async function startFixture(env: Record<string, string> = {}, args: string[] = [], script = HTTP_FIXTURE): Promise<Fixture> {
  const child = spawn(process.execPath, [...args, script], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (c: string) => (err += c));
  child.stdout!.resume();
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fixture did not start: ${err}`)), 10_000);
    const check = () => {
      const m = /listening (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        child.stderr!.off("data", check);
        resolve(m[1]);
      }
    };
    child.stderr!.on("data", check);
    child.once("exit", (code) => reject(new Error(`fixture exited ${code}: ${err}`)));
  });
  return {
    url,
    port: Number(new URL(url).port),
    child,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body as JSON (undefined when it is not JSON). */
  json: any;
  /** SSE events (when the body is an event stream). */
  events: { event?: string; data: string; id?: string }[];
  /** The JSON messages of the SSE `message` events (or of a JSON body). */
  messages: any[];
}

export interface RawOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | object;
  /** Destroy the request after this many ms (a client disconnect). */
  abortAfterMs?: number;
  /** Resolve once an event matches (for long-lived streams), then close. */
  until?: (events: RawResponse["events"]) => boolean;
  timeoutMs?: number;
  path?: string;
}

/** One HTTP exchange over node:http (any header, including Host and Origin). */
export function raw(url: string, options: RawOptions = {}): Promise<RawResponse> {
  const u = new URL(url);
  const body = options.body === undefined ? undefined : typeof options.body === "string" || Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body);
  const headers: Record<string, string> = { ...options.headers };
  if (body !== undefined && headers["transfer-encoding"] === undefined) headers["content-length"] ??= String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path: options.path ?? u.pathname + u.search, method: options.method ?? "POST", headers, agent: false }, (res) => {
      let text = "";
      const events: RawResponse["events"] = [];
      const parser = createParser({ onEvent: (e) => events.push({ event: e.event, data: e.data, id: e.id }) });
      const isSse = String(res.headers["content-type"] ?? "").startsWith("text/event-stream");
      const finish = () => {
        clearTimeout(timer);
        let json: unknown;
        try {
          json = !isSse && text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        const messages = isSse ? events.filter((e) => (e.event ?? "message") === "message" && e.data).map((e) => JSON.parse(e.data)) : json === undefined ? [] : [json].flat();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, events, messages });
      };
      const timer = setTimeout(() => {
        req.destroy();
        finish();
      }, options.timeoutMs ?? 10_000);
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        text += c;
        if (isSse) parser.feed(c);
        if (options.until?.(events)) {
          req.destroy();
          finish();
        }
      });
      res.on("end", finish);
      res.on("error", () => finish());
      res.on("close", finish);
    });
    req.on("error", (err) => (options.abortAfterMs !== undefined ? resolve({ status: 0, headers: {}, text: "", json: undefined, events: [], messages: [] }) : reject(err)));
    if (options.abortAfterMs !== undefined) setTimeout(() => req.destroy(), options.abortAfterMs);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export const BOTH = "application/json, text/event-stream";

/** Headers of a JSON POST. */
export const jsonPost = (extra: Record<string, string> = {}) => ({ "content-type": "application/json", accept: BOTH, ...extra });

export const modernMeta = (version = MODERN, extra: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw-test", version: "1.0.0" },
  ...extra,
});

/** A well-formed modern request and its mirrored headers. */
export function modernRequest(id: number, method: string, params: Record<string, unknown> = {}, meta = modernMeta()) {
  const body = { jsonrpc: "2.0", id, method, params: { ...params, _meta: { ...meta, ...(params._meta as object | undefined) } } };
  const headers: Record<string, string> = jsonPost({ "mcp-protocol-version": String(meta["io.modelcontextprotocol/protocolVersion"]), "mcp-method": method });
  // Mcp-Name mirrors the params field the spec names for this method (tools/call name, tasks/get taskId, ...).
  const fields = NAME_HEADER_SOURCE[String(meta["io.modelcontextprotocol/protocolVersion"])];
  const field = fields && Object.hasOwn(fields, method) ? fields[method] : undefined;
  const name = field ? params[field] : undefined;
  if (typeof name === "string") headers["mcp-name"] = name;
  return { body, headers };
}

export const initializeBody = (version: string, id: number | string = 1, clientName = "raw-test", capabilities: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: version, capabilities, clientInfo: { name: clientName, version: "1.0.0" } },
});

/** initialize + notifications/initialized over raw HTTP; returns the session id. */
export async function openSession(url: string, version: string, clientName = "raw-test", capabilities: Record<string, unknown> = {}): Promise<string> {
  const init = await raw(url, { headers: jsonPost(), body: initializeBody(version, 1, clientName, capabilities) });
  if (init.status !== 200) throw new Error(`initialize: HTTP ${init.status} ${init.text}`);
  const sid = String(init.headers["mcp-session-id"]);
  const ack = await raw(url, { headers: jsonPost(sessionHeaders(sid, version)), body: { jsonrpc: "2.0", method: "notifications/initialized" } });
  if (ack.status !== 202) throw new Error(`notifications/initialized: HTTP ${ack.status}`);
  return sid;
}

/** Session headers for a legacy request (MCP-Protocol-Version only where the revision defines it). */
export function sessionHeaders(sid: string, version: string): Record<string, string> {
  const h: Record<string, string> = { "mcp-session-id": sid };
  if (VERSION_HEADER_REVISIONS.includes(version)) h["mcp-protocol-version"] = version;
  return h;
}

export async function waitFor(condition: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!condition() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  return condition();
}

/** Resident set size of a process in MB (Linux /proc). */
export async function rssMb(pid: number): Promise<number> {
  const { readFile } = await import("node:fs/promises");
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** The JSON-RPC error a client request was answered with (fails when it succeeded or failed otherwise). */
export async function rejects(p: Promise<unknown>): Promise<ClientError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ClientError) return err;
    throw err;
  }
  throw new Error("expected a JSON-RPC error");
}

/**
 * Two fixture processes sharing one Redis under `prefix` (MCP_REDIS_URL: session store, event log and bus), started
 * on the first `open`, which initializes a 2025-11-25 session on A and sends notifications/initialized to B, so the
 * session exists on both from the start.
 */
export function sharedPair(redisUrl: string, prefix: string, clientName: string) {
  const legacy = "2025-11-25";
  let pair: Promise<[Fixture, Fixture]> | undefined;
  const both = () =>
    (pair ??= (() => {
      const env = { MCP_REDIS_URL: redisUrl, MCP_REDIS_PREFIX: prefix };
      return Promise.all([startFixture(env), startFixture(env)]);
    })());
  return {
    /** The two processes' endpoints (started if they are not yet). */
    async urls() {
      const [a, b] = await both();
      return { ua: a.url, ub: b.url };
    },
    async open(capabilities: Record<string, unknown> = {}) {
      const [a, b] = await both();
      const init = await raw(a.url, { headers: jsonPost(), body: initializeBody(legacy, 1, clientName, capabilities) });
      if (init.status !== 200) throw new Error(`initialize on A: HTTP ${init.status} ${init.text}`);
      const sid = String(init.headers["mcp-session-id"]);
      const ack = await raw(b.url, { headers: jsonPost(sessionHeaders(sid, legacy)), body: { jsonrpc: "2.0", method: "notifications/initialized" } });
      if (ack.status !== 202) throw new Error(`notifications/initialized on B: HTTP ${ack.status}`);
      const h: Record<string, string> = jsonPost(sessionHeaders(sid, legacy));
      return { sid, ua: a.url, ub: b.url, h, get: { accept: "text/event-stream", ...sessionHeaders(sid, legacy) } };
    },
    async stop() {
      if (pair) await Promise.all((await pair).map((f) => f.stop()));
    },
  };
}
