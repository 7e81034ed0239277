/**
 * A small dual-era MCP client, for tests and for generated projects' `npm test`.
 *
 * It settles on an era as the 2026-07-28 backward-compatibility rules describe
 * (spec/2026-07-28/basic/versioning.mdx, basic/transports/stdio.mdx#backward-compatibility):
 * unless pinned, it probes `server/discover` stamped with the newest modern
 * revision, and falls back to the `initialize` handshake:
 *
 * | the probe gets                                   | the client                               |
 * |--------------------------------------------------|------------------------------------------|
 * | a DiscoverResult listing a modern revision       | stays modern, on that revision           |
 * | -32022 naming a modern revision it speaks        | retries the probe with that revision     |
 * | -32022 naming only handshake revisions           | falls back to initialize                 |
 * | -32022 naming nothing it speaks                  | fails                                    |
 * | any other error, or no answer in time            | falls back to initialize                 |
 * | a DiscoverResult listing only handshake revisions| falls back to initialize                 |
 *
 * Pinned to a legacy revision it opens with `initialize`; pinned to a modern
 * one it sends every request with that revision's `_meta`.
 */
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from "../wire/jsonrpc.js";
import { LATEST_LEGACY, LATEST_MODERN, REVISIONS, type Revision, isModern, isRevision } from "../rules.js";

/** How a client transport reports a message, with what it knows of the HTTP exchange (if any). */
export interface Delivery {
  status?: number;
  headers?: Record<string, string>;
}

/** What the client needs from a transport: stdio (`stdio.ts`), Streamable HTTP and HTTP+SSE (`http.ts`). */
export interface ClientTransport {
  /**
   * How the transport carries messages: on "stdio" a cancelled request is always told to the server
   * (notifications/cancelled); on "http" a modern request is cancelled by closing its connection. Default "http".
   */
  readonly kind?: "stdio" | "http";
  /** Send one message (or a batch). `route` tells an HTTP transport which headers to set for a modern request. */
  send(message: JsonRpcMessage | JsonRpcMessage[], route: { revision?: Revision; modern: boolean; method?: string; name?: string }): Promise<void>;
  onmessage?: (message: JsonRpcMessage, delivery?: Delivery) => void;
  onclose?: () => void;
  close(): Promise<void>;
}

export class ClientError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly delivery?: Delivery,
  ) {
    super(message);
    this.name = "ClientError";
  }
}

export interface ClientOptions {
  transport: ClientTransport;
  /** Pin a revision (skips the probe). Default: probe, prefer the newest modern revision. */
  revision?: Revision;
  clientInfo?: { name: string; version: string };
  capabilities?: Record<string, unknown>;
  /** Answers to server→client requests (legacy) and input requests. */
  handlers?: {
    elicitation?: (params: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>;
    sampling?: (params: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>;
    roots?: () => Record<string, unknown> | Promise<Record<string, unknown>>;
  };
  /** Per-request timeout in ms. Default 10 000. */
  timeoutMs?: number;
}

export interface RequestOptions {
  /** Extra `_meta` entries (e.g. progressToken, io.modelcontextprotocol/logLevel). */
  meta?: Record<string, unknown>;
  /** Modern only: override the client capabilities sent with this request. */
  capabilities?: Record<string, unknown>;
  signal?: AbortSignal;
  onNotification?: (n: JsonRpcNotification) => void;
  /** Modern: return an input_required result as is instead of answering and retrying. */
  rawInputRequired?: boolean;
}

interface Pending {
  resolve(r: { result: Record<string, unknown>; delivery?: Delivery }): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
  onNotification?: (n: JsonRpcNotification) => void;
}

export class McpClient {
  /** The revision in force after connect(). */
  revision?: Revision;
  era?: "legacy" | "modern";
  /** The InitializeResult (legacy) or DiscoverResult (modern). */
  serverDescription?: Record<string, unknown>;
  /** Every notification received, in order. */
  readonly notifications: JsonRpcNotification[] = [];
  /** Every server→client request received (legacy). */
  readonly serverRequests: JsonRpcRequest[] = [];
  private nextId = 0;
  private readonly pending = new Map<RequestId, Pending>();
  private readonly timeoutMs: number;

  constructor(readonly options: ClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    options.transport.onmessage = (m, d) => this.onMessage(m, d);
    options.transport.onclose = () => {
      for (const p of this.pending.values()) {
        clearTimeout(p.timer);
        p.reject(new Error("transport closed"));
      }
      this.pending.clear();
    };
  }

  get capabilities(): Record<string, unknown> {
    return this.options.capabilities ?? {};
  }

  /** Settle the era and revision (see the table above). */
  async connect(): Promise<this> {
    const pinned = this.options.revision;
    if (pinned && !isModern(pinned)) return this.initialize(pinned);
    let probe: Revision = pinned ?? LATEST_MODERN!;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const result = await this.rawRequest("server/discover", {}, { revision: probe, modern: true });
        const supported = (result.supportedVersions as string[] | undefined) ?? [];
        const modern = supported.filter((v) => isRevision(v) && isModern(v)) as Revision[];
        if (modern.includes(probe)) return this.settle(probe, "modern", result);
        if (modern.length && !pinned) {
          probe = modern[0];
          continue;
        }
        if (pinned) throw new Error(`server does not support ${pinned}: supportedVersions ${JSON.stringify(supported)}`);
        break;
      } catch (err) {
        if (pinned) throw err;
        if (err instanceof ClientError && err.code === -32022) {
          const data = (err.data ?? {}) as { supported?: string[] };
          const supported = (data.supported ?? []).filter(isRevision) as Revision[];
          const modern = supported.filter(isModern);
          if (modern.length && attempt === 0) {
            probe = modern[0];
            continue;
          }
          if (!supported.length) throw new Error(`server supports no revision this client speaks: ${JSON.stringify(data.supported)}`, { cause: err });
        }
        break;
      }
    }
    return this.initialize(LATEST_LEGACY!);
  }

  private settle(revision: Revision, era: "legacy" | "modern", description: Record<string, unknown>): this {
    this.revision = revision;
    this.era = era;
    this.serverDescription = description;
    return this;
  }

  private async initialize(version: Revision): Promise<this> {
    const result = await this.rawRequest(
      "initialize",
      { protocolVersion: version, capabilities: this.capabilities, clientInfo: this.options.clientInfo ?? { name: "create-mcp-server-test-client", version: "1.0.0" } },
      { revision: version, modern: false },
    );
    const negotiated = result.protocolVersion as string;
    if (!isRevision(negotiated) || isModern(negotiated)) throw new Error(`server negotiated an unusable revision ${JSON.stringify(negotiated)}`);
    if (this.options.revision && negotiated !== this.options.revision) throw new Error(`pinned ${this.options.revision} but the server offered ${negotiated}`);
    this.settle(negotiated, "legacy", result);
    await this.notify("notifications/initialized");
    return this;
  }

  /**
   * Send a request in the era in force; resolves with the result or rejects with ClientError.
   * Modern: an `input_required` result is answered through the handlers and retried under a new id with
   * `inputResponses` and the echoed `requestState` (spec/2026-07-28/basic/patterns/mrtr.mdx), unless
   * `options.rawInputRequired` is set.
   */
  async request(method: string, params: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    if (!this.revision) throw new Error("connect() first");
    const route = { revision: this.revision, modern: this.era === "modern" };
    let result = await this.rawRequest(method, params, route, options);
    for (let round = 0; route.modern && !options.rawInputRequired && result.resultType === "input_required"; round++) {
      if (round >= 10) throw new Error(`${method}: still input_required after 10 rounds`);
      const inputResponses: Record<string, unknown> = {};
      for (const [key, ask] of Object.entries((result.inputRequests ?? {}) as Record<string, { method: string; params?: Record<string, unknown> }>)) {
        inputResponses[key] = await this.answer(ask.method, ask.params ?? {});
      }
      const retry: Record<string, unknown> = { ...params, inputResponses };
      if (result.requestState !== undefined) retry.requestState = result.requestState;
      result = await this.rawRequest(method, retry, route, options);
    }
    return result;
  }

  /** Answer an input request or a server→client request through the handlers. */
  private async answer(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const h = this.options.handlers ?? {};
    if (method === "ping") return {};
    if (method === "elicitation/create" && h.elicitation) return h.elicitation(params);
    if (method === "sampling/createMessage" && h.sampling) return h.sampling(params);
    if (method === "roots/list" && h.roots) return h.roots();
    throw new ClientError(-32601, `Method not found: ${method}`);
  }

  /** Like request(), but also returns the transport's delivery information (HTTP status and headers). */
  async requestWithDelivery(method: string, params: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<{ result: Record<string, unknown>; delivery?: Delivery }> {
    if (!this.revision) throw new Error("connect() first");
    return this.exchange(method, params, { revision: this.revision, modern: this.era === "modern" }, options);
  }

  private async rawRequest(method: string, params: Record<string, unknown>, route: { revision: Revision; modern: boolean }, options: RequestOptions = {}) {
    return (await this.exchange(method, params, route, options)).result;
  }

  private exchange(method: string, params: Record<string, unknown>, route: { revision: Revision; modern: boolean }, options: RequestOptions) {
    const id = ++this.nextId;
    const meta: Record<string, unknown> = { ...(params._meta as Record<string, unknown> | undefined), ...options.meta };
    if (route.modern) {
      meta["io.modelcontextprotocol/protocolVersion"] = route.revision;
      meta["io.modelcontextprotocol/clientCapabilities"] = options.capabilities ?? this.capabilities;
      meta["io.modelcontextprotocol/clientInfo"] = this.options.clientInfo ?? { name: "create-mcp-server-test-client", version: "1.0.0" };
    }
    const body: Record<string, unknown> = { ...params };
    if (Object.keys(meta).length) body._meta = meta;
    const message: JsonRpcRequest = { jsonrpc: "2.0", id, method, params: body };
    const name = (params.name ?? params.uri) as string | undefined;
    return new Promise<{ result: Record<string, unknown>; delivery?: Delivery }>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer, onNotification: options.onNotification });
      options.signal?.addEventListener("abort", () => {
        if (!this.pending.delete(id)) return;
        clearTimeout(timer);
        if (!route.modern || this.options.transport.kind === "stdio") void this.notify("notifications/cancelled", { requestId: id, reason: "aborted" });
        reject(new Error("aborted"));
      });
      this.options.transport.send(message, { ...route, method, name }).catch((err) => {
        this.pending.delete(id);
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  /** Send a notification. */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    const message: JsonRpcMessage = params ? { jsonrpc: "2.0", method, params } : { jsonrpc: "2.0", method };
    await this.options.transport.send(message, { revision: this.revision, modern: this.era === "modern", method });
  }

  private onMessage(message: JsonRpcMessage, delivery?: Delivery): void {
    if ("id" in message && message.id !== undefined && message.id !== null && ("result" in message || "error" in message)) {
      const p = this.pending.get(message.id as RequestId);
      if (!p) return;
      this.pending.delete(message.id as RequestId);
      clearTimeout(p.timer);
      const r = message as JsonRpcResponse;
      if ("error" in r) p.reject(new ClientError(r.error.code, r.error.message, r.error.data, delivery));
      else p.resolve({ result: r.result, delivery });
      return;
    }
    if ("method" in message && "id" in message) {
      void this.answerServerRequest(message as JsonRpcRequest);
      return;
    }
    if ("method" in message) {
      this.notifications.push(message as JsonRpcNotification);
      for (const p of this.pending.values()) p.onNotification?.(message as JsonRpcNotification);
    }
  }

  private async answerServerRequest(req: JsonRpcRequest): Promise<void> {
    this.serverRequests.push(req);
    let response: JsonRpcResponse;
    try {
      response = { jsonrpc: "2.0", id: req.id, result: await this.answer(req.method, req.params ?? {}) };
    } catch (err) {
      const code = err instanceof ClientError ? err.code : -32603;
      response = { jsonrpc: "2.0", id: req.id, error: { code, message: (err as Error).message } };
    }
    await this.options.transport.send(response, { revision: this.revision, modern: false });
  }

  // ---- conveniences ----
  listTools(params: Record<string, unknown> = {}) {
    return this.request("tools/list", params);
  }
  callTool(name: string, args?: Record<string, unknown>, options?: RequestOptions) {
    return this.request("tools/call", args === undefined ? { name } : { name, arguments: args }, options);
  }
  listResources(params: Record<string, unknown> = {}) {
    return this.request("resources/list", params);
  }
  listResourceTemplates(params: Record<string, unknown> = {}) {
    return this.request("resources/templates/list", params);
  }
  readResource(uri: string) {
    return this.request("resources/read", { uri });
  }
  listPrompts(params: Record<string, unknown> = {}) {
    return this.request("prompts/list", params);
  }
  getPrompt(name: string, args?: Record<string, string>) {
    return this.request("prompts/get", args === undefined ? { name } : { name, arguments: args });
  }
  complete(ref: Record<string, unknown>, argument: { name: string; value: string }) {
    return this.request("completion/complete", { ref, argument });
  }

  async close(): Promise<void> {
    await this.options.transport.close();
  }
}

/** Every revision the rules module knows, for tests that iterate over them. */
export const ALL_REVISIONS: readonly Revision[] = REVISIONS;
