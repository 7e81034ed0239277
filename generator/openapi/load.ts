/**
 * Reading an OpenAPI document (a path, or an http(s) URL), JSON or YAML, and dereferencing it with
 * @apidevtools/swagger-parser. OpenAPI 3.0 and 3.1 are read; Swagger 2.0 and anything else is refused in one line.
 * A schema that refers back to itself keeps its `$ref` there (`circular: "ignore"`), where schema.ts cuts the cycle.
 */
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { ScaffoldError } from "../scaffold-options.js";
import { sha256 } from "../sync.js";
import { isObject } from "./schema.js";

export interface LoadedDocument {
  /** As given: a path or a URL. */
  source: string;
  /** The URL the document was fetched from (relative server URLs are resolved against it), if it was. */
  url?: string;
  /** The document's bytes, copied into the project. */
  raw: Buffer;
  /** The file name the copy takes: the source's base name (`openapi.json` for a URL without one). */
  fileName: string;
  sha256: string;
  dialect: "3.0" | "3.1";
  /** The dereferenced document. */
  doc: Record<string, unknown>;
}

const MAX_BYTES = 64 * 1024 * 1024;
const refuse = (message: string): never => {
  throw new ScaffoldError(message);
};

/** A document over http(s) (no other scheme), refused in one line when it does not answer 200 in time. */
async function fetchText(url: string): Promise<Buffer> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(30_000), redirect: "follow" });
  } catch (err) {
    return refuse(`cannot fetch ${url}: ${((err as Error).cause as Error)?.message ?? (err as Error).message}`);
  }
  if (!res.ok) refuse(`cannot fetch ${url}: HTTP ${res.status}`);
  const data = Buffer.from(await res.arrayBuffer());
  if (data.length > MAX_BYTES) refuse(`${url} is larger than ${MAX_BYTES / 1024 / 1024} MiB`);
  return data;
}

const isUrl = (s: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(s);

/** Read and dereference the document; a refusal (unreadable, not OpenAPI 3.x) is one ScaffoldError line. */
export async function loadDocument(source: string): Promise<LoadedDocument> {
  const url = isUrl(source) ? source : undefined;
  if (url && !/^https?:/i.test(url)) refuse(`${source}: only http and https URLs are read`);
  const location = url ?? resolve(source);
  let raw: Buffer;
  try {
    raw = url ? await fetchText(url) : readFileSync(location);
  } catch (err) {
    if (err instanceof ScaffoldError) throw err;
    return refuse(`cannot read ${source}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message}`);
  }
  const { default: SwaggerParser } = await import("@apidevtools/swagger-parser");
  // The document as read above, not read again; external references of a fetched document only over http(s).
  const options = {
    resolve: {
      ...(url ? { file: false } : {}),
      http: { timeout: 30_000, redirects: 5 },
      mine: { order: 0, canRead: (file: { url: string }) => file.url === location, read: () => raw },
    },
    dereference: { circular: "ignore" as const },
  };
  let parsed: Record<string, unknown>;
  try {
    parsed = (await SwaggerParser.parse(location, options as never)) as unknown as Record<string, unknown>;
  } catch (err) {
    return refuse(`cannot read ${source} as OpenAPI: ${firstLine(err)}`);
  }
  const dialect = versionOf(source, parsed);
  let doc: Record<string, unknown>;
  try {
    doc = (await SwaggerParser.dereference(location, parsed as never, options as never)) as unknown as Record<string, unknown>;
  } catch (err) {
    return refuse(`cannot dereference ${source}: ${firstLine(err)}`);
  }
  const fileName = basename(url ? new URL(url).pathname : location) || "openapi.json";
  return { source, url, raw, fileName: /\.(json|ya?ml)$/i.test(fileName) ? fileName : `${fileName || "openapi"}.json`, sha256: sha256(raw), dialect, doc };
}

/** The dialect of an OpenAPI 3.0 or 3.1 document; Swagger 2.0 and other versions are refused in one line. */
export function versionOf(source: string, doc: unknown): "3.0" | "3.1" {
  if (!isObject(doc)) return refuse(`${source} is not an OpenAPI document (no object at its root)`);
  if (doc.swagger !== undefined) {
    if (String(doc.swagger).startsWith("2.")) refuse(`${source} is Swagger 2.0; convert it to OpenAPI 3 first (for example with swagger2openapi)`);
    refuse(`${source} is Swagger ${String(doc.swagger)}: only OpenAPI 3.0 and 3.1 are read`);
  }
  const v = String(doc.openapi ?? "");
  if (/^3\.0\.\d+/.test(v)) return "3.0";
  if (/^3\.1\.\d+/.test(v)) return "3.1";
  return refuse(v ? `${source} is OpenAPI ${v}: only OpenAPI 3.0 and 3.1 are read` : `${source} is not an OpenAPI document (it has no "openapi" version)`);
}

const firstLine = (err: unknown) => String((err as Error)?.message ?? err).split("\n")[0];

/**
 * The base URLs of `servers`: each variable replaced by its default; a relative URL resolved against the document's
 * URL when it was fetched, else kept as it is (then the README says to set API_BASE_URL).
 */
export function serverUrls(doc: Record<string, unknown>, documentUrl: string | undefined): string[] {
  const servers = Array.isArray(doc.servers) ? doc.servers.filter(isObject) : [];
  const urls: string[] = [];
  for (const s of servers) {
    if (typeof s.url !== "string") continue;
    const vars = isObject(s.variables) ? s.variables : {};
    let url = s.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const v = vars[name];
      return isObject(v) && v.default !== undefined ? String(v.default) : whole;
    });
    if (documentUrl && !isUrl(url)) url = new URL(url, documentUrl).href;
    if (!urls.includes(url)) urls.push(url);
  }
  return urls;
}

/** `url` resolved against the document's URL when it was fetched (an OAuth token URL may be relative). */
export const resolveAgainst =
  (documentUrl: string | undefined) =>
  (url: string): string =>
    documentUrl && !isUrl(url) ? new URL(url, documentUrl).href : url;
