/**
 * Who may call the endpoint: the Origin check (a browser page of another origin: 403) and the Host check (a loopback
 * server answers only requests addressed to a loopback name, which stops DNS rebinding). Both are on by default.
 * spec/2025-11-25/basic/transports.mdx#security-warning, spec/2026-07-28/basic/transports/streamable-http.mdx#security-endpoint
 */
import type { HandlerOptions } from "./options.js";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Whether `host` (a name or IP, without brackets) is a loopback address. */
export const isLoopbackAddress = (host: string) => LOOPBACK_NAMES.has(host.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(host);

export class AccessPolicy {
  private readonly originCache = new Map<string, boolean>();
  private readonly hostCache = new Map<string, boolean>();
  private readonly hostNames?: Set<string>;
  private readonly allowedOrigins: HandlerOptions["allowedOrigins"];

  /**
   * @param bound serveHttp's bound interface and port: the default Host check then accepts loopback names with that
   * port only. Handlers have none (the app listens): loopback names with any port, unless `allowRemote`.
   */
  constructor(
    options: HandlerOptions,
    private readonly bound?: { host: string; port: () => number },
  ) {
    this.allowedOrigins = options.allowedOrigins;
    const loopbackBind = bound ? isLoopbackAddress(bound.host.replace(/^\[|\]$/g, "")) : !options.allowRemote;
    if (options.allowedHosts) this.hostNames = new Set(options.allowedHosts.map((h) => h.toLowerCase()));
    else if (loopbackBind) this.hostNames = new Set(["localhost", "127.0.0.1", "[::1]"]);
  }

  /** Whether a Host check guards the endpoint (the bind warning says when none does). */
  get checksHost(): boolean {
    return this.hostNames !== undefined;
  }

  /** Whether a request with this Origin may be served. */
  originAllowed(origin: string): boolean {
    let ok = this.originCache.get(origin);
    if (ok !== undefined) return ok;
    const allowed = this.allowedOrigins;
    if (typeof allowed === "function") ok = allowed(origin);
    else if (allowed) ok = allowed.includes("*") || allowed.includes(origin);
    else {
      try {
        const u = new URL(origin);
        ok = (u.protocol === "http:" || u.protocol === "https:") && LOOPBACK_NAMES.has(u.hostname.toLowerCase());
      } catch {
        ok = false;
      }
    }
    if (this.originCache.size < 1024) this.originCache.set(origin, ok);
    return ok;
  }

  /** Whether a request addressed to this Host (authority) may be served. */
  hostAllowed(host: string | undefined): boolean {
    const names = this.hostNames;
    if (!names) return true;
    if (!host) return false;
    let ok = this.hostCache.get(host);
    if (ok !== undefined) return ok;
    const h = host.toLowerCase();
    let name = h;
    let port: string | undefined;
    if (h.startsWith("[")) {
      const end = h.indexOf("]");
      name = h.slice(0, end + 1);
      const rest = h.slice(end + 1);
      if (rest) port = rest.startsWith(":") ? rest.slice(1) : "invalid";
    } else {
      const i = h.lastIndexOf(":");
      if (i >= 0) {
        name = h.slice(0, i);
        port = h.slice(i + 1);
      }
    }
    // A port is digits (RFC 3986 §3.2.3). A bound server knows its own; a mounted handler accepts any.
    const portOk = port === undefined || (/^\d{1,5}$/.test(port) && (!this.bound || port === String(this.bound.port())));
    ok = names.has(h) || (names.has(name) && portOk);
    if (this.hostCache.size < 1024) this.hostCache.set(host, ok);
    return ok;
  }
}

/** Handlers that accept any Host: say so once, as serveHttp does for a public bind. */
export function warnIfOpen(policy: { readonly checksHost: boolean }, options: HandlerOptions, what: string): void {
  if (!options.allowRemote || policy.checksHost) return;
  if (options.authorization) {
    console.warn(`mcp runtime: note: ${what} with allowRemote and no allowedHosts answers requests addressed to any host (set allowedHosts to guard against DNS rebinding).`);
    return;
  }
  console.warn(
    `mcp runtime: WARNING: ${what} with allowRemote and no allowedHosts answers requests addressed to any host; the server has no authentication, ` +
      `so anyone who can reach it can call its tools, and no Host check guards against DNS rebinding.`,
  );
}
