/**
 * The reserved `_meta` keys of the modern era's per-request metadata and results.
 * spec/2026-07-28/basic/index.mdx#_meta, spec/2026-07-28/basic/versioning.mdx#protocol-version-negotiation
 */
export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
export const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";

/** The prefix every revision from 2025-06-18 reserves for the protocol's own `_meta` keys. spec/2025-11-25/basic/index.mdx#_meta */
export const RESERVED_META_PREFIX = "io.modelcontextprotocol/";

/**
 * The tasks extension's identifier: the key of its capability under `extensions` (client, per request; server, in
 * server/discover). spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#extension-identifier
 */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** `_meta` key tying a 2025-11-25 message to its task. spec/2025-11-25/basic/utilities/tasks.mdx#related-task-metadata */
export const META_RELATED_TASK = "io.modelcontextprotocol/related-task";
