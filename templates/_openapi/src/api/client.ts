/**
 * The project's API client: turns a tool's arguments into the HTTP request an OpenAPI operation describes
 * (descriptor.ts, written by `create-mcp-server import openapi` into operations.ts), sends it with `fetch`, checks the
 * answer against the document and makes it a tool result. Configured by environment variables (docs/openapi-client.md):
 * API_BASE_URL, API_TIMEOUT_MS, API_MAX_RESPONSE_BYTES, API_FORWARD_MCP_TOKEN, API_OAUTH_CLIENT_AUTH and the
 * credentials each security scheme names.
 */
import { createRequire } from "node:module";
import type { ApiDescriptor, JsonSchema, OperationDescriptor, ResponseDescriptor } from "./descriptor.js";
import { encodeBody, placeParameters, RequestArgumentError, type EncodedBody } from "./params.js";
import {
  chooseAlternative,
  credentialsFor,
  CredentialsError,
  dropToken,
  whatToSet,
  type Credentials,
} from "./security.js";

/** An HTTP answer of the API (any status), its body read and, for a success, checked against the document. */
export interface ApiResponse<T = unknown> {
  ok: boolean;
  status: number;
  statusText: string;
  /** Response headers, names lower-case. */
  headers: Record<string, string>;
  /** The media type without parameters (`application/json`), undefined when the answer has none. */
  contentType?: string;
  /** Parsed JSON for a JSON media type, the text for a textual one, the bytes (Uint8Array) otherwise; undefined for no content. */
  body: T;
  /** The body as UTF-8 text ("" for binary bodies and no content). */
  text: string;
  /** What was sent: method and the full URL (credentials in the query included: do not log it). */
  request: { method: string; url: string };
}

/** Why no checked answer came back. Each becomes a tool error in callTool; callOperation rejects with it. */
export type ApiCallErrorKind =
  | "argument"
  | "configuration"
  | "credentials"
  | "network"
  | "timeout"
  | "cancelled"
  | "too-large"
  | "invalid-request"
  | "invalid-response";

export class ApiCallError extends Error {
  constructor(
    readonly kind: ApiCallErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ApiCallError";
  }
}

/** A content block of a tool result, as the generated handler types accept it. */
export type ContentLike = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

/**
 * What callTool resolves to. `T` is the tool's structuredContent type (the generated `<Tool>Result`: the body's type
 * for `output: "body"`, `{ result: <body> }` for `"wrapped"`); without it (`output: "text"`) a plain tool result.
 */
export type CallToolResultLike<T = unknown> = unknown extends T
  ? { content: ContentLike[]; structuredContent?: Record<string, unknown>; isError?: boolean }
  : { content: ContentLike[]; structuredContent: T; isError?: false } | { content: ContentLike[]; isError: true };

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
/** How much of an error answer's body a tool error quotes. */
const ERROR_BODY_CHARS = 500;

/** A positive integer from the environment, else `fallback` (a malformed value is a configuration error, not ignored). */
function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0)
    throw new ApiCallError("configuration", `${name} must be a positive integer, not ${JSON.stringify(raw)}`);
  return n;
}

/** The base URL: API_BASE_URL, else the document's first server; it must be absolute. */
function baseUrl(api: ApiDescriptor): string {
  const base = process.env.API_BASE_URL || api.servers[0];
  if (!base)
    throw new ApiCallError("configuration", `the document names no server: set API_BASE_URL to the API's base URL`);
  if (!/^https?:\/\//i.test(base))
    throw new ApiCallError(
      "configuration",
      `the server URL ${JSON.stringify(base)} is not absolute: set API_BASE_URL to the API's base URL`,
    );
  return base.replace(/\/+$/, "");
}

/** The handler context's parts this client reads: the request's signal and, for passthrough, the caller's token. */
interface ContextLike {
  signal?: AbortSignal;
  principal?: { token?: unknown };
}
const contextOf = (ctx: unknown): ContextLike => (typeof ctx === "object" && ctx !== null ? (ctx as ContextLike) : {});

/** The MCP caller's bearer token, only when API_FORWARD_MCP_TOKEN=1 (spec: no token passthrough unless same audience). */
function callerToken(ctx: ContextLike): string | undefined {
  if (process.env.API_FORWARD_MCP_TOKEN !== "1") return undefined;
  const token = ctx.principal?.token;
  return typeof token === "string" && token !== "" ? token : undefined;
}

// ajv (2020-12, the dialect the descriptor's schemas use) is loaded on the first schema checked; each schema compiled once.
type Validate = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string; keyword: string }[] | null;
};
let ajv: { compile(schema: JsonSchema): Validate } | undefined;
const compiled = new WeakMap<object, Validate | null>();

function validatorOf(schema: JsonSchema): Validate | null {
  if (typeof schema === "boolean")
    return schema
      ? null
      : Object.assign(() => false, {
          errors: [{ instancePath: "", keyword: "false", message: "no value is allowed" }],
        });
  if (compiled.has(schema)) return compiled.get(schema)!;
  if (!ajv) {
    const require = createRequire(import.meta.url);
    const { Ajv2020 } = require("ajv/dist/2020.js") as { Ajv2020: new (o: object) => NonNullable<typeof ajv> };
    const formats = require("ajv-formats") as { default?: (a: unknown) => void } & ((a: unknown) => void);
    ajv = new Ajv2020({ strict: false, allErrors: false, logger: false, addUsedSchema: false });
    (formats.default ?? formats)(ajv);
  }
  let v: Validate | null;
  try {
    v = ajv.compile(schema);
  } catch (err) {
    // A document's schema ajv cannot compile (a pattern JavaScript lacks, say) is not checked rather than making the tool unusable.
    process.emitWarning(
      `an OpenAPI schema cannot be compiled and is not checked: ${(err as Error).message.split("\n")[0]}`,
    );
    v = null;
  }
  compiled.set(schema, v);
  return v;
}

/** The first ajv error of `value` against `schema`, or undefined when it matches (or cannot be checked). */
export function schemaMismatch(schema: JsonSchema | undefined, value: unknown): string | undefined {
  if (schema === undefined) return undefined;
  const v = validatorOf(schema);
  if (!v || v(value)) return undefined;
  const e = v.errors?.[0];
  return e ? `${e.instancePath || "/"} ${e.message ?? e.keyword}` : "invalid";
}

/** The documented response for `status`: exact, then its range (`2XX`), then `default`. */
export function documentedResponse(op: OperationDescriptor, status: number): ResponseDescriptor | undefined {
  const r = op.responses;
  return r[String(status)] ?? r[`${Math.floor(status / 100)}XX`] ?? r[`${Math.floor(status / 100)}xx`] ?? r.default;
}

interface Prepared {
  method: string;
  url: string;
  headers: Record<string, string>;
  cookies: string[];
  body?: EncodedBody;
}

/** The request without credentials; a missing argument or a body outside the document is an ApiCallError. */
function prepare(api: ApiDescriptor, op: OperationDescriptor, args: Record<string, unknown>): Prepared {
  let placed;
  try {
    placed = placeParameters(op, args);
  } catch (err) {
    if (err instanceof RequestArgumentError) throw new ApiCallError("argument", err.message);
    throw err;
  }
  const accept = [...new Set(Object.values(op.responses).flatMap((r) => (r.contentType ? [r.contentType] : [])))];
  const headers: Record<string, string> = {
    ...placed.headers,
    ...(accept.length ? { accept: [...accept, "*/*;q=0.1"].join(", ") } : {}),
  };
  const prepared: Prepared = {
    method: op.method.toUpperCase(),
    url: baseUrl(api) + placed.path,
    headers,
    cookies: placed.cookies,
  };
  if (placed.query.length) prepared.url += `?${placed.query.join("&")}`;
  if (op.body) {
    const value = args[op.body.arg];
    if (value === undefined) {
      if (op.body.required)
        throw new ApiCallError("argument", `the request body (argument ${op.body.arg}) is required`);
    } else {
      const mismatch = schemaMismatch(op.body.schema, value);
      if (mismatch)
        throw new ApiCallError(
          "invalid-request",
          `the request body (argument ${op.body.arg}) does not match the API's document: ${mismatch}`,
        );
      try {
        prepared.body = encodeBody(op.body, value);
      } catch (err) {
        if (err instanceof RequestArgumentError) throw new ApiCallError("argument", err.message);
        throw err;
      }
    }
  }
  return prepared;
}

/** The body's bytes, reading no further than `max` (a Content-Length over it is refused before reading). */
async function readLimited(res: Response, max: number): Promise<Uint8Array> {
  const tooLarge = () =>
    new ApiCallError("too-large", `the API's answer is larger than API_MAX_RESPONSE_BYTES (${max} bytes)`);
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const reader = res.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

const isJsonType = (t: string) => t === "application/json" || t.endsWith("+json");
const isTextType = (t: string) =>
  t.startsWith("text/") ||
  t.endsWith("+xml") ||
  t === "application/xml" ||
  t === "application/x-www-form-urlencoded" ||
  t === "application/javascript";

/** The body as ApiResponse holds it, by the answer's media type. A 2xx JSON answer that does not parse is outside the document. */
function parseBody(
  status: number,
  contentType: string | undefined,
  bytes: Uint8Array,
): { body: unknown; text: string } {
  if (bytes.byteLength === 0) return { body: undefined, text: "" };
  const text = new TextDecoder().decode(bytes);
  if (contentType === undefined || isJsonType(contentType)) {
    try {
      return { body: JSON.parse(text), text };
    } catch {
      if (contentType && status >= 200 && status < 300)
        throw new ApiCallError(
          "invalid-response",
          `the API answered ${contentType} that is not JSON, outside its document`,
        );
      return { body: text, text };
    }
  }
  if (isTextType(contentType)) return { body: text, text };
  return { body: bytes, text: "" };
}

/** One HTTP exchange with the credentials `c`. */
async function send(
  p: Prepared,
  c: Credentials,
  signal: AbortSignal,
  maxBytes: number,
): Promise<Omit<ApiResponse, "body" | "text"> & { bytes: Uint8Array }> {
  const url = c.query.length ? `${p.url}${p.url.includes("?") ? "&" : "?"}${c.query.join("&")}` : p.url;
  const headers: Record<string, string> = { ...p.headers, ...c.headers };
  const cookies = [...p.cookies, ...c.cookies];
  if (cookies.length) headers.cookie = cookies.join("; ");
  if (p.body?.contentType) headers["content-type"] = p.body.contentType;
  const res = await fetch(url, {
    method: p.method,
    headers,
    body: p.body?.body as BodyInit | undefined,
    signal,
    redirect: "follow",
  });
  const bytes = await readLimited(res, maxBytes);
  const contentType = res.headers.get("content-type")?.split(";")[0].trim().toLowerCase() || undefined;
  return {
    ok: res.ok,
    status: res.status,
    statusText: res.statusText,
    headers: Object.fromEntries(res.headers),
    contentType,
    bytes,
    request: { method: p.method, url },
  };
}

/** The failure of an exchange as an ApiCallError: our own timeout, the MCP request's cancellation, or the network. */
function exchangeFailure(err: unknown, timeout: AbortSignal, ms: number, what: string): ApiCallError {
  if (err instanceof ApiCallError) return err;
  if (err instanceof CredentialsError) return new ApiCallError("credentials", err.message, { cause: err });
  if (timeout.aborted)
    return new ApiCallError("timeout", `${what} took longer than API_TIMEOUT_MS (${ms} ms)`, { cause: err });
  if ((err as Error)?.name === "AbortError")
    return new ApiCallError("cancelled", `${what} was cancelled (the MCP request was)`, { cause: err });
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const detail = cause?.code ?? cause?.message ?? (err as Error)?.message ?? String(err);
  return new ApiCallError("network", `${what} failed: ${detail}`, { cause: err });
}

/**
 * Call `op` with a tool's `args` (keyed by each parameter's and the body's `arg`). Resolves with the API's answer,
 * whatever its status; a success's JSON body is checked against its documented schema. Rejects with ApiCallError
 * (never anything else for the request's own failures): missing argument, request body outside the document,
 * configuration, credentials, network, timeout (API_TIMEOUT_MS, default 30 000 ms), cancellation (ctx.signal), a body
 * over API_MAX_RESPONSE_BYTES (default 5 MiB), an answer outside the document. One OAuth 2 token refused with 401
 * is fetched again and the request retried once.
 */
export async function callOperation<T = unknown>(
  api: ApiDescriptor,
  op: OperationDescriptor,
  args: object,
  ctx?: unknown,
): Promise<ApiResponse<T>> {
  const c = contextOf(ctx);
  const ms = positiveInt("API_TIMEOUT_MS", DEFAULT_TIMEOUT_MS);
  const maxBytes = positiveInt("API_MAX_RESPONSE_BYTES", DEFAULT_MAX_RESPONSE_BYTES);
  const prepared = prepare(api, op, args as Record<string, unknown>);
  const token = callerToken(c);
  const alternative = chooseAlternative(api, op, process.env, token);
  const timeout = AbortSignal.timeout(ms);
  const signal = c.signal ? AbortSignal.any([c.signal, timeout]) : timeout;
  const what = `${prepared.method} ${op.path}`;
  try {
    for (let attempt = 0; ; attempt++) {
      const creds = await credentialsFor(api, alternative, { env: process.env, callerToken: token, signal });
      const res = await send(prepared, creds, signal, maxBytes);
      if (res.status === 401 && creds.oauth.length && attempt === 0) {
        creds.oauth.forEach(dropToken);
        continue;
      }
      const { body, text } = parseBody(res.status, res.contentType, res.bytes);
      const { bytes: _bytes, ...rest } = res;
      if (res.ok) {
        const documented = documentedResponse(op, res.status);
        const mismatch =
          documented?.schema !== undefined && body !== undefined && !(body instanceof Uint8Array)
            ? schemaMismatch(documented.schema, body)
            : undefined;
        if (mismatch)
          throw new ApiCallError(
            "invalid-response",
            `the API answered outside its document (${what} HTTP ${res.status}): ${mismatch}`,
          );
      }
      return { ...rest, body: body as T, text };
    }
  } catch (err) {
    throw exchangeFailure(err, timeout, ms, what);
  }
}

const toolError = (text: string) => ({ content: [{ type: "text" as const, text }], isError: true as const });

/** A non-2xx answer as a tool error: status, the start of the body, and for 401/403 the variables that would authorise. */
function httpError(api: ApiDescriptor, op: OperationDescriptor, res: ApiResponse): string {
  const body = res.text.length > ERROR_BODY_CHARS ? `${res.text.slice(0, ERROR_BODY_CHARS)}…` : res.text;
  let message = `HTTP ${res.status} ${res.statusText} from ${res.request.method} ${op.path}${body ? `: ${body}` : ""}`;
  if (res.status === 401 || res.status === 403) {
    const hint = whatToSet(api, op);
    if (hint) message += ` (the API needs credentials: ${hint})`;
  }
  return message;
}

/** A success as the tool's result, by `op.output` (descriptor.ts), always with the body as text content too. */
function successResult(
  op: OperationDescriptor,
  res: ApiResponse,
): { content: ContentLike[]; structuredContent?: Record<string, unknown>; isError?: true } {
  const body = res.body;
  let content: ContentLike[];
  if (body instanceof Uint8Array) {
    const data = Buffer.from(body).toString("base64");
    content = res.contentType?.startsWith("image/")
      ? [{ type: "image", data, mimeType: res.contentType }]
      : [{ type: "text", text: `${body.byteLength} bytes of ${res.contentType ?? "binary data"}, base64: ${data}` }];
  } else if (body === undefined) content = [{ type: "text", text: `HTTP ${res.status} ${res.statusText}` }];
  else
    content = [
      {
        type: "text",
        text: typeof body === "string" && !isJsonType(res.contentType ?? "") ? body : JSON.stringify(body),
      },
    ];
  if (op.output === "text") return { content };
  const what = `${res.request.method} ${op.path} HTTP ${res.status}`;
  if (op.output === "body") {
    if (typeof body !== "object" || body === null || Array.isArray(body) || body instanceof Uint8Array)
      return toolError(`the API answered outside its document (${what}): the tool's result must be a JSON object`);
    return { content, structuredContent: body as Record<string, unknown> };
  }
  if (body === undefined || body instanceof Uint8Array)
    return toolError(`the API answered outside its document (${what}): no JSON body`);
  return { content, structuredContent: { result: body } };
}

/**
 * Call `op` (callOperation) and make the answer the tool's result: a success by `op.output`, anything else an
 * `isError: true` result whose text says what happened (`HTTP <status> <statusText>` and the body's first 500
 * characters; the variables to set on 401/403; the timeout, limit or mismatch). Never rejects for the API's sake.
 */
export async function callTool<T = unknown>(
  api: ApiDescriptor,
  op: OperationDescriptor,
  args: object,
  ctx?: unknown,
): Promise<CallToolResultLike<T>> {
  let res: ApiResponse;
  try {
    res = await callOperation(api, op, args, ctx);
  } catch (err) {
    return toolError(
      err instanceof ApiCallError
        ? err.message
        : `${op.method.toUpperCase()} ${op.path} failed: ${(err as Error)?.message ?? err}`,
    ) as CallToolResultLike<T>;
  }
  return (res.ok ? successResult(op, res) : toolError(httpError(api, op, res))) as CallToolResultLike<T>;
}
