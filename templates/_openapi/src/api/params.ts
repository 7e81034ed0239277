/**
 * Serialisation of an operation's parameters and body onto the HTTP request, as OpenAPI 3.x's Parameter Object
 * (`style`, `explode`, `allowReserved`) and Request Body Object (media types) define it.
 * https://spec.openapis.org/oas/v3.1.1.html#style-values
 */
import type { BodyDescriptor, OperationDescriptor, ParameterDescriptor } from "./descriptor.js";

/** A tool argument that cannot be put on the wire (a required one missing, a value the style cannot carry). */
export class RequestArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RequestArgumentError";
  }
}

type Pairs = [string, string][];

/** Percent-encode everything but RFC 3986 unreserved characters (encodeURIComponent leaves `!'()*`). */
export function encodeStrict(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * `allowReserved`: RFC 3986 reserved characters go as they are, but `#`, `&`, `=` and `+`, which would end the value,
 * the pair or the query (or read as a space) and so change what the API receives.
 */
const RESERVED_KEPT = new Set([":", "/", "?", "[", "]", "@", "!", "$", "'", "(", ")", "*", ",", ";"]);
function encodeAllowReserved(s: string): string {
  return encodeStrict(s).replace(/%[0-9A-F]{2}/g, (c) => {
    const ch = String.fromCharCode(parseInt(c.slice(1), 16));
    return RESERVED_KEPT.has(ch) ? ch : c;
  });
}

/** A primitive's text on the wire (RFC 6570 has no null: it is the empty string). */
function scalar(v: unknown, name: string): string {
  if (v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  throw new RequestArgumentError(
    `parameter ${name}: a nested ${Array.isArray(v) ? "array" : "object"} cannot be serialised in this style`,
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const entries = (v: Record<string, unknown>) => Object.entries(v).filter(([, x]) => x !== undefined);

/** The path segment of `{name}`: simple, label or matrix (each value percent-encoded). */
export function pathValue(p: ParameterDescriptor, v: unknown): string {
  const style = p.style ?? "simple";
  const explode = p.explode ?? false;
  const enc = (x: unknown) => encodeStrict(scalar(x, p.name));
  const name = encodeStrict(p.name);
  if (Array.isArray(v)) {
    const items = v.map(enc);
    if (style === "label") return "." + items.join(explode ? "." : ",");
    if (style === "matrix") return explode ? items.map((i) => `;${name}=${i}`).join("") : `;${name}=${items.join(",")}`;
    return items.join(",");
  }
  if (isRecord(v)) {
    const kv = entries(v).map(([k, x]) => [encodeStrict(k), enc(x)] as const);
    if (style === "label")
      return "." + kv.map(([k, x]) => (explode ? `${k}=${x}` : `${k},${x}`)).join(explode ? "." : ",");
    if (style === "matrix")
      return explode
        ? kv.map(([k, x]) => `;${k}=${x}`).join("")
        : `;${name}=${kv.map(([k, x]) => `${k},${x}`).join(",")}`;
    return kv.map(([k, x]) => (explode ? `${k}=${x}` : `${k},${x}`)).join(",");
  }
  if (style === "label") return "." + enc(v);
  if (style === "matrix") return `;${name}${v === null || v === "" ? "" : `=${enc(v)}`}`;
  return enc(v);
}

/** The query string's `key=value` pieces for one parameter: form (default explode), spaceDelimited, pipeDelimited, deepObject. */
export function queryPieces(p: ParameterDescriptor, v: unknown): string[] {
  const style = p.style ?? "form";
  const explode = p.explode ?? style === "form";
  const enc = p.allowReserved ? encodeAllowReserved : encodeStrict;
  const val = (x: unknown) => enc(scalar(x, p.name));
  const name = encodeStrict(p.name);
  if (style === "deepObject") {
    if (!isRecord(v)) throw new RequestArgumentError(`parameter ${p.name}: deepObject style needs an object`);
    return deepPairs(p.name, v).map(([k, x]) => `${k}=${enc(x)}`);
  }
  const delimiter = style === "spaceDelimited" ? "%20" : style === "pipeDelimited" ? "|" : ",";
  if (Array.isArray(v)) {
    if (explode) return v.map((x) => `${name}=${val(x)}`);
    return v.length ? [`${name}=${v.map(val).join(delimiter)}`] : [];
  }
  if (isRecord(v)) {
    const kv = entries(v);
    if (explode) return kv.map(([k, x]) => `${encodeStrict(k)}=${val(x)}`);
    return kv.length
      ? [`${name}=${kv.map(([k, x]) => `${encodeStrict(k)}${delimiter}${val(x)}`).join(delimiter)}`]
      : [];
  }
  return [`${name}=${val(v)}`];
}

/** deepObject: `name[key]=value`, nested objects `name[a][b]`, arrays repeated `name[a]=1&name[a]=2` (keys encoded). */
function deepPairs(prefix: string, v: Record<string, unknown>): Pairs {
  const out: Pairs = [];
  for (const [k, x] of entries(v)) {
    const key = `${encodeStrict(prefix)}%5B${encodeStrict(k)}%5D`;
    if (isRecord(x)) for (const [kk, xx] of deepPairs(`${prefix}[${k}]`, x)) out.push([kk, xx]);
    else if (Array.isArray(x)) for (const item of x) out.push([key, scalar(item, prefix)]);
    else out.push([key, scalar(x, prefix)]);
  }
  return out;
}

/** A header's value: simple style (no percent-encoding; a header value must be visible ASCII or space). */
export function headerValue(p: ParameterDescriptor, v: unknown): string {
  const explode = p.explode ?? false;
  let text: string;
  if (Array.isArray(v)) text = v.map((x) => scalar(x, p.name)).join(",");
  else if (isRecord(v))
    text = entries(v)
      .map(([k, x]) => (explode ? `${k}=${scalar(x, p.name)}` : `${k},${scalar(x, p.name)}`))
      .join(",");
  else text = scalar(v, p.name);
  if (/[^\t\x20-\x7e]/.test(text))
    throw new RequestArgumentError(`header ${p.name}: only visible ASCII characters can be sent in a header`);
  return text;
}

/** A cookie's `name=value` pieces: form style, values percent-encoded (RFC 6265 cookie-octets). */
export function cookiePieces(p: ParameterDescriptor, v: unknown): string[] {
  const explode = p.explode ?? true;
  const val = (x: unknown) => encodeStrict(scalar(x, p.name));
  if (Array.isArray(v)) return explode ? v.map((x) => `${p.name}=${val(x)}`) : [`${p.name}=${v.map(val).join(",")}`];
  if (isRecord(v)) {
    const kv = entries(v);
    return explode
      ? kv.map(([k, x]) => `${k}=${val(x)}`)
      : [`${p.name}=${kv.map(([k, x]) => `${k},${val(x)}`).join(",")}`];
  }
  return [`${p.name}=${val(v)}`];
}

/** Where an operation's arguments go: the path (with `{name}`s substituted), query pieces, headers and cookie pieces. */
export interface PlacedParameters {
  path: string;
  query: string[];
  headers: Record<string, string>;
  cookies: string[];
}

/**
 * The path template as sent: without a `#fragment` (never part of a request: fetch drops it, and the query after it).
 * ReadMe's documents give one path several operations that way (`/cookies#formExploded`).
 */
export const wirePath = (template: string): string => template.split("#")[0];

/** Put each parameter of `op` from `args` (by its `arg`) in its place; a required one missing is a RequestArgumentError. */
export function placeParameters(op: OperationDescriptor, args: Record<string, unknown>): PlacedParameters {
  const placed: PlacedParameters = { path: wirePath(op.path), query: [], headers: {}, cookies: [] };
  for (const p of op.parameters) {
    const v = args[p.arg];
    if (v === undefined) {
      if (p.required || p.in === "path")
        throw new RequestArgumentError(`the ${p.in} parameter ${p.name} (argument ${p.arg}) is required`);
      continue;
    }
    if (p.in === "path") placed.path = placed.path.split(`{${p.name}}`).join(pathValue(p, v));
    else if (p.in === "query") placed.query.push(...queryPieces(p, v));
    else if (p.in === "header") placed.headers[p.name.toLowerCase()] = headerValue(p, v);
    else placed.cookies.push(...cookiePieces(p, v));
  }
  return placed;
}

/** A body as fetch sends it, and its Content-Type (undefined for multipart: fetch writes the boundary). */
export interface EncodedBody {
  body: string | Uint8Array | FormData | URLSearchParams;
  contentType?: string;
}

/** A form field's text: strings as they are, other values as JSON (RFC 7578 / OpenAPI's default for non-primitives). */
const fieldText = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));

/** Bytes of a binary value: base64 when its schema says `contentEncoding: base64`, else the string's UTF-8. */
function bytesOf(v: unknown, schema: unknown): Uint8Array<ArrayBuffer> {
  const base64 = isRecord(schema) && schema.contentEncoding === "base64";
  if (typeof v !== "string") return new TextEncoder().encode(JSON.stringify(v));
  return base64 ? Uint8Array.from(Buffer.from(v, "base64")) : new TextEncoder().encode(v);
}

/** The request body from its argument, by the media type the descriptor names. */
export function encodeBody(b: BodyDescriptor, v: unknown): EncodedBody {
  const type = b.contentType.toLowerCase();
  if (type === "application/json" || /\+json$/.test(type) || /^application\/json\s*;/.test(type))
    return { body: JSON.stringify(v), contentType: b.contentType };
  if (type.startsWith("application/x-www-form-urlencoded")) {
    if (!isRecord(v))
      throw new RequestArgumentError(`the body (argument ${b.arg}) must be an object for ${b.contentType}`);
    const form = new URLSearchParams();
    for (const [k, x] of entries(v)) for (const item of Array.isArray(x) ? x : [x]) form.append(k, fieldText(item));
    return { body: form, contentType: "application/x-www-form-urlencoded" };
  }
  if (type.startsWith("multipart/")) {
    if (!isRecord(v))
      throw new RequestArgumentError(`the body (argument ${b.arg}) must be an object for ${b.contentType}`);
    const form = new FormData();
    const props = isRecord(b.schema) && isRecord(b.schema.properties) ? b.schema.properties : {};
    for (const [k, x] of entries(v)) {
      const schema = props[k];
      const binary = isRecord(schema) && (schema.format === "binary" || schema.contentEncoding === "base64");
      for (const item of Array.isArray(x) ? x : [x]) {
        if (binary) form.append(k, new Blob([bytesOf(item, schema) as Uint8Array<ArrayBuffer>]), k);
        else form.append(k, fieldText(item));
      }
    }
    return { body: form };
  }
  if (type.startsWith("text/")) return { body: fieldText(v), contentType: b.contentType };
  return { body: bytesOf(v, b.schema), contentType: b.contentType };
}
