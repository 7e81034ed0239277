/**
 * What a server declares of itself to a peer on a revision: its capabilities (only what is registered, only what the
 * revision defines), its serverInfo, `server/discover`, and what it honours of a subscriptions/listen filter. Made
 * from the registrations; the per-revision values are cached until the next registration.
 */
import { type ResultEncoding, conform, resultEncoding } from "../wire/encode.js";
import { type Revision, ERA, hasCapability, taskWireForm } from "../rules.js";
import { TASKS_EXTENSION } from "../wire/meta.js";
import type { Registry } from "./registry.js";
import type { ResolvedOptions } from "./options.js";

/** Whether any tool can run as a task: then the server declares tasks (2025-11-25) or the tasks extension (2026-07-28). */
export function supportsTasks(registry: Registry): boolean {
  for (const t of registry.tools.values()) if (t.taskSupport === "optional" || t.taskSupport === "required") return true;
  return false;
}

/** Whether any prompt or template registered a completer. */
export function hasCompletions(registry: Registry): boolean {
  return [...registry.prompts.values()].some((p) => p.complete) || registry.templates.some((t) => t.def.complete);
}

/** The part of a subscriptions/listen filter a server honours: only notification types it can send. */
export function honourFilter(registry: Registry, requested: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (requested.toolsListChanged === true && registry.tools.size) out.toolsListChanged = true;
  if (requested.promptsListChanged === true && registry.prompts.size) out.promptsListChanged = true;
  const hasResources = registry.resources.size > 0 || registry.templates.length > 0;
  if (requested.resourcesListChanged === true && hasResources) out.resourcesListChanged = true;
  if (Array.isArray(requested.resourceSubscriptions) && hasResources) out.resourceSubscriptions = requested.resourceSubscriptions.filter((u) => typeof u === "string");
  // The tasks extension's filter (its caller checked the request declares the extension).
  if (Array.isArray(requested.taskIds) && supportsTasks(registry)) out.taskIds = requested.taskIds.filter((u) => typeof u === "string");
  return out;
}

/** The server capabilities declared to a peer on `revision`: only what is registered, only what the revision defines. */
function capabilities(registry: Registry, logging: boolean, revision: Revision): Record<string, unknown> {
  const caps: Record<string, Record<string, unknown>> = {};
  // listChanged/subscribe promise notifications: through the session (legacy) or subscriptions/listen (modern).
  if (registry.tools.size) caps.tools = { listChanged: true };
  if (registry.resources.size || registry.templates.length) caps.resources = { subscribe: true, listChanged: true };
  if (registry.prompts.size) caps.prompts = { listChanged: true };
  if (hasCompletions(registry)) caps.completions = {};
  if (logging) caps.logging = {};
  const tasks = supportsTasks(registry) ? taskWireForm(revision) : "none";
  // Only tools/call can be a task. spec/2025-11-25/basic/utilities/tasks.mdx#server-capabilities
  if (tasks === "core") caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(caps)) {
    if (!hasCapability(revision, "server", name)) continue;
    out[name] = Object.fromEntries(Object.entries(value).filter(([k]) => hasCapability(revision, "server", `${name}.${k}`)));
  }
  // The extension, never the core `tasks` capability. spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#capability-negotiation
  if (tasks === "extension" && hasCapability(revision, "server", "extensions")) out.extensions = { [TASKS_EXTENSION]: {} };
  return out;
}

/** A server's declarations per revision, each made once (capabilities again after a registration: `registered()`). */
export class Declarations {
  private readonly capabilityCache = new Map<Revision, Record<string, unknown>>();
  private readonly serverInfoCache = new Map<Revision, Record<string, unknown>>();
  private readonly encodingCache = new Map<Revision, ResultEncoding>();
  private erasCache?: { legacy: readonly Revision[]; modern: readonly Revision[] };

  constructor(
    private readonly registry: Registry,
    private readonly options: ResolvedOptions,
    private readonly revisions: readonly Revision[],
  ) {}

  /** A registration changed what is declared. */
  registered(): void {
    this.capabilityCache.clear();
  }

  capabilities(revision: Revision): Record<string, unknown> {
    let caps = this.capabilityCache.get(revision);
    if (!caps) this.capabilityCache.set(revision, (caps = capabilities(this.registry, this.options.logging, revision)));
    return caps;
  }

  /** serverInfo for `revision` (Implementation, with only the fields the revision defines). */
  serverInfo(revision: Revision): Record<string, unknown> {
    let info = this.serverInfoCache.get(revision);
    if (!info) {
      const o = this.options;
      info = Object.freeze(conform(revision, "Implementation", { name: o.name, version: o.version, title: o.title, description: o.description, websiteUrl: o.websiteUrl }));
      this.serverInfoCache.set(revision, info);
    }
    return info;
  }

  /** What encodeResult needs of the server for `revision`, made once so that encoding a result allocates only the result. */
  resultEncoding(revision: Revision): ResultEncoding {
    let encoding = this.encodingCache.get(revision);
    if (!encoding) this.encodingCache.set(revision, (encoding = resultEncoding(revision, this.serverInfo(revision), this.options.cache)));
    return encoding;
  }

  /** `server/discover` result (before encodeResult adds resultType, caching fields and `_meta`). spec/2026-07-28/server/discover.mdx */
  discover(revision: Revision): Record<string, unknown> {
    const result: Record<string, unknown> = { supportedVersions: [...this.revisions].reverse(), capabilities: this.capabilities(revision) };
    if (this.options.instructions) result.instructions = this.options.instructions;
    return result;
  }

  /** The era of each served revision, newest last. */
  get eras(): { legacy: readonly Revision[]; modern: readonly Revision[] } {
    return (this.erasCache ??= Object.freeze({ legacy: this.revisions.filter((r) => ERA[r] === "legacy"), modern: this.revisions.filter((r) => ERA[r] === "modern") }));
  }
}
