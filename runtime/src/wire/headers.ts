/**
 * Streamable HTTP request metadata headers (2026-07-28): the value encoding
 * that `Mcp-Name` and `Mcp-Param-{Name}` share, and the `x-mcp-header`
 * declarations of a tool's inputSchema. Used by the server (validation) and
 * the client (mirroring). Pure functions: no I/O.
 *
 * spec/2026-07-28/basic/transports/streamable-http.mdx#value-encoding
 * spec/2026-07-28/basic/transports/streamable-http.mdx#custom-headers-from-tool-parameters
 */
import { isObject } from "./jsonrpc.js";

const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";
/** Standard Base64 with the padding it must have (the encoding rules allow no other form). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** A value that travels as is: visible ASCII and inner spaces/tabs, no leading or trailing whitespace. */
const PLAIN = /^(?:[\x21-\x7E](?:[\x20-\x7E\t]*[\x21-\x7E])?)?$/;
/** What a received header value may contain (RFC 9110 field-value characters, ASCII only). */
const FIELD_VALUE = /^[\x20-\x7E\t]*$/;
/** A decimal integer in canonical-enough form for a numeric comparison. */
const DECIMAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Encode a value for `Mcp-Name` / `Mcp-Param-*`: as is when safe, else the Base64 sentinel form. */
export function encodeHeaderValue(value: string): string {
  const sentinelLike = value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX);
  if (PLAIN.test(value) && !sentinelLike) return value;
  return `${SENTINEL_PREFIX}${Buffer.from(value, "utf8").toString("base64")}${SENTINEL_SUFFIX}`;
}

/**
 * Decode a received `Mcp-Name` / `Mcp-Param-*` value; undefined when it is malformed (invalid characters,
 * or a sentinel whose Base64 or UTF-8 is invalid). A value lacking either marker is taken literally.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  if (!FIELD_VALUE.test(raw)) return undefined;
  if (raw.length < SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length || !raw.startsWith(SENTINEL_PREFIX) || !raw.endsWith(SENTINEL_SUFFIX)) return raw;
  const inner = raw.slice(SENTINEL_PREFIX.length, raw.length - SENTINEL_SUFFIX.length);
  if (!BASE64.test(inner)) return undefined;
  try {
    return utf8.decode(Buffer.from(inner, "base64"));
  } catch {
    return undefined;
  }
}

/** The header text of a primitive argument value (string as is, integer in decimal, boolean lowercase); undefined for other types. */
export function primitiveHeaderText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Whether a decoded header value mirrors an argument value (integers compared numerically). */
export function headerMatches(decoded: string, value: unknown): boolean {
  if (typeof value === "number") return DECIMAL.test(decoded) && Number(decoded) === value;
  return decoded === primitiveHeaderText(value);
}

/** One `x-mcp-header` annotation: the header it names and where its value sits in the arguments. */
export interface HeaderParam {
  /** As declared, e.g. "Region" → header `Mcp-Param-Region`. */
  name: string;
  /** Lower-cased full header name, as node:http presents header names. */
  header: string;
  /** The chain of `properties` keys from the schema root. */
  path: string[];
}

/**
 * The `x-mcp-header` annotations of an inputSchema, reachable through `properties` chains only (annotations
 * anywhere else are not mirrored). Annotations that break the spec's constraints (empty, not a token, a
 * non-primitive type, a duplicate) are skipped.
 */
export function headerParams(inputSchema: unknown): HeaderParam[] {
  const out: HeaderParam[] = [];
  const seen = new Set<string>();
  const walk = (schema: unknown, path: string[]) => {
    if (!isObject(schema) || !isObject(schema.properties)) return;
    for (const [key, prop] of Object.entries(schema.properties)) {
      if (!isObject(prop)) continue;
      const name = prop["x-mcp-header"];
      if (typeof name === "string" && /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name) && !seen.has(name.toLowerCase()) && ["string", "integer", "boolean"].includes(prop.type as string)) {
        seen.add(name.toLowerCase());
        out.push({ name, header: `mcp-param-${name.toLowerCase()}`, path: [...path, key] });
      }
      walk(prop, [...path, key]);
    }
  };
  walk(inputSchema, []);
  return out;
}

/** The argument value at `path`, or undefined. */
export function valueAt(args: unknown, path: string[]): unknown {
  let v: unknown = args;
  for (const k of path) {
    if (!isObject(v)) return undefined;
    v = v[k];
  }
  return v;
}
