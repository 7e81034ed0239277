/**
 * Rules that only the specification's prose states (or that the schema
 * states only in doc comments), kept as reviewed data. Each rule becomes a
 * typed predicate in the generated rules module (`out/rules.ts`).
 *
 * Ranges (`from` / `until`, both inclusive) resolve against the manifest's
 * declaration order, so a revision added later inherits every rule whose range
 * is open-ended. Every rule cites the spec page and section it comes from
 * (paths under the spec tree of the named revision, `spec/<revision>/...`).
 *
 * Review this file like code: a change here changes what every generated
 * server does.
 */

export interface RuleRange<V> {
  from?: string;
  until?: string;
  value: V;
}

export interface ProseRule<V = unknown> {
  /** Name of the generated predicate, e.g. `supportsBatches`. */
  name: string;
  /** TypeScript type of the predicate's value. */
  type: "boolean" | "number" | "string" | "string[]";
  summary: string;
  /** Value for revisions that no range covers. */
  otherwise: V;
  /** Ranges in order; a later range overrides an earlier one. */
  ranges: RuleRange<V>[];
  /** Spec citations: `spec/<revision>/<page>.mdx#<section>`. */
  cite: string[];
}

const rule = <V>(r: ProseRule<V>): ProseRule<V> => r;

export const PROSE_RULES: ProseRule[] = [
  rule({
    name: "supportsBatches",
    type: "boolean",
    summary: "JSON-RPC batches MUST be accepted in 2025-03-26 only; 2025-06-18 removed batching.",
    otherwise: false,
    ranges: [{ from: "2025-03-26", until: "2025-03-26", value: true }],
    cite: ["spec/2025-03-26/basic/index.mdx#batching", "spec/2025-06-18/changelog.mdx#major-changes"],
  }),
  rule({
    name: "parseErrorOmitsId",
    type: "boolean",
    summary: "A parse error response omits `id` from 2025-11-25 (JSONRPCErrorResponse.id optional); earlier revisions use `id: null`.",
    otherwise: false,
    ranges: [{ from: "2025-11-25", value: true }],
    cite: ["spec/2025-11-25/basic/index.mdx#error-responses", "spec/2025-11-25/schema.mdx#jsonrpcerrorresponse"],
  }),
  rule({
    name: "resourceNotFoundCode",
    type: "number",
    summary: "Resource not found is -32002 in the legacy revisions and -32602 (Invalid Params) from 2026-07-28.",
    otherwise: -32002,
    ranges: [{ from: "2026-07-28", value: -32602 }],
    cite: [
      "spec/2024-11-05/server/resources.mdx#error-handling",
      "spec/2025-11-25/server/resources.mdx#error-handling",
      "spec/2026-07-28/server/resources.mdx#error-handling",
      "spec/2026-07-28/changelog.mdx#major-changes",
    ],
  }),
  rule({
    name: "toolInputErrorsAsResult",
    type: "boolean",
    summary: "Invalid tool arguments are a protocol error (-32602) up to 2025-06-18 and a CallToolResult with isError: true from 2025-11-25.",
    otherwise: false,
    ranges: [{ from: "2025-11-25", value: true }],
    cite: ["spec/2025-06-18/server/tools.mdx#error-handling", "spec/2025-11-25/server/tools.mdx#error-handling"],
  }),
  rule({
    name: "structuredContentMustBeObject",
    type: "boolean",
    summary: "structuredContent (and outputSchema) must be a JSON object in 2025-06-18 and 2025-11-25; 2026-07-28 allows any JSON value.",
    otherwise: false,
    ranges: [{ from: "2025-06-18", until: "2025-11-25", value: true }],
    cite: ["spec/2025-06-18/server/tools.mdx#structured-content", "spec/2026-07-28/server/tools.mdx#structured-content"],
  }),
  rule({
    name: "reservesMetaPrefix",
    type: "boolean",
    summary: "`_meta` keys under `io.modelcontextprotocol/` are reserved for MCP from 2025-11-25; send reserved keys only to peers whose revision reserves them.",
    otherwise: false,
    ranges: [{ from: "2025-11-25", value: true }],
    cite: ["spec/2025-11-25/basic/index.mdx#_meta", "spec/2026-07-28/basic/index.mdx#_meta"],
  }),
  rule({
    name: "transports",
    type: "string[]",
    summary: "Standard transports: stdio always; HTTP+SSE in 2024-11-05 (deprecated from 2025-03-26); Streamable HTTP from 2025-03-26.",
    otherwise: ["stdio", "streamable-http"],
    ranges: [{ until: "2024-11-05", value: ["stdio", "http+sse"] }],
    cite: ["spec/2024-11-05/basic/transports.mdx#http-with-sse", "spec/2025-03-26/basic/transports.mdx#streamable-http"],
  }),
  rule({
    name: "httpHeaders",
    type: "string[]",
    summary:
      "HTTP headers the transport defines: Mcp-Session-Id from 2025-03-26 until 2025-11-25; MCP-Protocol-Version from 2025-06-18; Mcp-Method and Mcp-Name (and Mcp-Param-*) from 2026-07-28, which has no sessions.",
    otherwise: [],
    ranges: [
      { from: "2025-03-26", until: "2025-03-26", value: ["Mcp-Session-Id", "Last-Event-ID"] },
      { from: "2025-06-18", until: "2025-11-25", value: ["Mcp-Session-Id", "MCP-Protocol-Version", "Last-Event-ID"] },
      { from: "2026-07-28", value: ["MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", "Mcp-Param-*"] },
    ],
    cite: [
      "spec/2025-03-26/basic/transports.mdx#session-management",
      "spec/2025-06-18/basic/transports.mdx#protocol-version-header",
      "spec/2026-07-28/basic/transports/streamable-http.mdx#standard-request-headers",
      "spec/2026-07-28/basic/transports/streamable-http.mdx#custom-headers-from-tool-parameters",
    ],
  }),
  rule({
    name: "hasSessions",
    type: "boolean",
    summary: "Streamable HTTP sessions (Mcp-Session-Id minted at initialize, 404 after termination) exist from 2025-03-26 until 2025-11-25.",
    otherwise: false,
    ranges: [{ from: "2025-03-26", until: "2025-11-25", value: true }],
    cite: ["spec/2025-03-26/basic/transports.mdx#session-management", "spec/2026-07-28/basic/transports/streamable-http.mdx#backward-compatibility"],
  }),
  rule({
    name: "resumableStreams",
    type: "boolean",
    summary:
      "Streamable HTTP SSE streams MAY carry event ids (unique across the session's streams) and be resumed by a GET with Last-Event-ID, replaying only the disconnected stream, from 2025-03-26 until 2025-11-25; 2026-07-28 has no resumable streams (a Last-Event-ID header is ignored).",
    otherwise: false,
    ranges: [{ from: "2025-03-26", until: "2025-11-25", value: true }],
    cite: [
      "spec/2025-03-26/basic/transports.mdx#resumability-and-redelivery",
      "spec/2025-11-25/basic/transports.mdx#resumability-and-redelivery",
      "spec/2026-07-28/basic/transports/streamable-http.mdx#earlier-streamable-http-revisions",
    ],
  }),
  rule({
    name: "primesSseStreams",
    type: "boolean",
    summary:
      "A server that starts an SSE stream for a POST SHOULD first send an event with an event id and empty data (priming the client to reconnect with Last-Event-ID), and MAY then close the connection before the response (SSE polling, with a retry field), from 2025-11-25; clients of earlier revisions may not expect an event without data, and earlier servers SHOULD NOT close a POST stream before its response.",
    otherwise: false,
    ranges: [{ from: "2025-11-25", until: "2025-11-25", value: true }],
    cite: ["spec/2025-11-25/basic/transports.mdx#sending-messages-to-the-server", "spec/2025-06-18/basic/transports.mdx#sending-messages-to-the-server"],
  }),
  rule({
    name: "disconnectIsCancellation",
    type: "boolean",
    summary: "On HTTP, a client disconnect MUST be treated as cancellation from 2026-07-28; in the legacy revisions it SHOULD NOT be.",
    otherwise: false,
    ranges: [{ from: "2026-07-28", value: true }],
    cite: ["spec/2025-06-18/basic/transports.mdx#sending-messages-to-the-server", "spec/2026-07-28/basic/transports/streamable-http.mdx#cancellation"],
  }),
  rule({
    name: "unknownMethodHttpStatus",
    type: "number",
    summary: "Over Streamable HTTP an unknown method is HTTP 404 with -32601 from 2026-07-28; earlier revisions answer 200 with the JSON-RPC error.",
    otherwise: 200,
    ranges: [{ from: "2026-07-28", value: 404 }],
    cite: ["spec/2026-07-28/basic/transports/streamable-http.mdx#server-validation"],
  }),
  rule({
    name: "serverMaySendRequests",
    type: "boolean",
    summary: "A 2026-07-28 server MUST NOT send requests to the client; questions travel as inputRequests of an input_required result.",
    otherwise: true,
    ranges: [{ from: "2026-07-28", value: false }],
    cite: ["spec/2026-07-28/basic/patterns/mrtr.mdx", "spec/2026-07-28/basic/index.mdx#statelessness"],
  }),
  rule({
    name: "httpErrorStatuses",
    type: "string[]",
    summary:
      'Over Streamable HTTP, JSON-RPC errors that carry a fixed HTTP status, as "code:status" pairs: from 2026-07-28 HeaderMismatch (-32020), MissingRequiredClientCapability (-32021) and UnsupportedProtocolVersion (-32022) are 400 Bad Request (schema doc comments and prose); -32601 is unknownMethodHttpStatus. Other errors are 200.',
    otherwise: [],
    ranges: [{ from: "2026-07-28", value: ["-32020:400", "-32021:400", "-32022:400"] }],
    cite: [
      "spec/2026-07-28/basic/transports/streamable-http.mdx#server-validation",
      "spec/2026-07-28/basic/transports/streamable-http.mdx#protocol-version-header",
      "spec/2026-07-28/basic/index.mdx#_meta",
    ],
  }),
  rule({
    name: "nameHeaderSources",
    type: "string[]",
    summary:
      'Over Streamable HTTP, the requests whose Mcp-Name header mirrors a params field, as "method:field" pairs (2026-07-28: tools/call and prompts/get params.name, resources/read params.uri); the header is required for them.',
    otherwise: [],
    ranges: [{ from: "2026-07-28", value: ["tools/call:name", "prompts/get:name", "resources/read:uri", "tasks/get:taskId", "tasks/update:taskId", "tasks/cancel:taskId"] }],
    cite: [
      "spec/2026-07-28/basic/transports/streamable-http.mdx#standard-request-headers",
      "spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#streamable-http-routing-headers",
    ],
  }),
  rule({
    name: "taskWireForm",
    type: "string",
    summary:
      'How tasks reach the wire: "none" before 2025-11-25; "core" in 2025-11-25 (the `tasks` capability, task-augmented requests with `params.task`, nested CreateTaskResult, tasks/get, tasks/result, tasks/list, tasks/cancel); "extension" from 2026-07-28, where tasks left the core for the `io.modelcontextprotocol/tasks` extension (declared per request, flat CreateTaskResult with `resultType: "task"`, tasks/get, tasks/update, tasks/cancel).',
    otherwise: "none",
    ranges: [
      { from: "2025-11-25", until: "2025-11-25", value: "core" },
      { from: "2026-07-28", value: "extension" },
    ],
    cite: [
      "spec/2025-11-25/basic/utilities/tasks.mdx#capabilities",
      "spec/2026-07-28/changelog.mdx#major-changes",
      "spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#capability-negotiation",
    ],
  }),
  rule({
    name: "taskMethods",
    type: "string[]",
    summary:
      "The client→server task methods: tasks/get, tasks/result, tasks/list and tasks/cancel in 2025-11-25; tasks/get, tasks/update and tasks/cancel in the 2026-07-28 extension (tasks/result and tasks/list are gone: -32601).",
    otherwise: [],
    ranges: [
      { from: "2025-11-25", until: "2025-11-25", value: ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"] },
      { from: "2026-07-28", value: ["tasks/get", "tasks/update", "tasks/cancel"] },
    ],
    cite: [
      "spec/2025-11-25/basic/utilities/tasks.mdx#protocol-messages",
      "spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#supported-methods",
      "spec/extensions/tasks/seps/2663-tasks-extension.md#backward-compatibility",
    ],
  }),
  rule({
    name: "cancelOfTerminalTask",
    type: "string",
    summary:
      'tasks/cancel on a task already completed, failed or cancelled: "invalid-params" (-32602) in 2025-11-25; "acknowledge" (the same empty acknowledgement as any cancel) in the 2026-07-28 extension.',
    otherwise: "invalid-params",
    ranges: [{ from: "2026-07-28", value: "acknowledge" }],
    cite: ["spec/2025-11-25/basic/utilities/tasks.mdx#task-cancellation", "spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#task-cancellation"],
  }),
  rule({
    name: "toolErrorTaskStatus",
    type: "string",
    summary: 'The status of a task whose tool returned a result with `isError: true`: "failed" in 2025-11-25; "completed" in the 2026-07-28 extension, where "failed" is for JSON-RPC errors only.',
    otherwise: "failed",
    ranges: [{ from: "2026-07-28", value: "completed" }],
    cite: ["spec/2025-11-25/basic/utilities/tasks.mdx#task-execution-errors", "spec/extensions/tasks/modelcontextprotocol-ext-tasks/specification/2026-07-28/tasks.md#task-execution-errors"],
  }),
];

/** Error codes the prose defines outside schema.ts, with their values per revision (from the rule named). */
export const PROSE_ERROR_CODES: { name: string; rule: string; cite: (revision: string) => string }[] = [
  { name: "RESOURCE_NOT_FOUND", rule: "resourceNotFoundCode", cite: (r) => `spec/${r}/server/resources.mdx#error-handling` },
];

/**
 * Reviewed patches to defects of the official `schema.json` files, applied to the parsed schema before anything
 * is generated from it (validators and the rules data alike; the types come from `schema.ts`, which is right).
 *
 * Upstream renders schema.ts to schema.json with `--defaultNumberType integer` (spec/2026-07-28/changelog.mdx#other-schema-changes),
 * so a TypeScript `number` becomes JSON `integer` unless the field carries `@TJS-type number`. That is intended for
 * request ids, progress tokens and error codes (the prose says integer: spec/<rev>/basic/index.mdx#requests,
 * #error-codes) and harmless for counts and lengths; it is a defect where the value may be fractional.
 *
 * Each erratum asserts the upstream value it replaces, so generation fails once upstream changes it (fixed or
 * otherwise): then review the erratum and drop it. Errata are keyed by revision id; a revision without errata
 * (such as an added draft) is used as published.
 */
export interface SchemaErratum {
  revision: string;
  /** JSON Pointer (RFC 6901) into the revision's schema.json. */
  pointer: string;
  /** The value upstream publishes at `pointer` (deep-equal), asserted before patching. */
  expected: unknown;
  replacement: unknown;
  /** `schemas/<revision>/schema.ts: <Interface.field> is \`<TS type>\`` — the declaration schema.json must render. */
  cite: string;
  why: string;
}

const ELICIT_ANSWER_WHY = 'An elicitation answer to a NumberSchema field of type "number" may be fractional (e.g. 0.7); schema.json admits only integers.';

export const SCHEMA_ERRATA: SchemaErratum[] = [
  {
    revision: "2025-06-18",
    pointer: "/definitions/ElicitResult/properties/content/additionalProperties/type",
    expected: ["string", "integer", "boolean"],
    replacement: ["string", "number", "boolean"],
    cite: "schemas/2025-06-18/schema.ts: ElicitResult.content is `{ [key: string]: string | number | boolean }`",
    why: `${ELICIT_ANSWER_WHY} spec/2025-06-18/client/elicitation.mdx#supported-schema-types`,
  },
  {
    revision: "2025-11-25",
    pointer: "/$defs/ElicitResult/properties/content/additionalProperties/anyOf/1/type",
    expected: ["string", "integer", "boolean"],
    replacement: ["string", "number", "boolean"],
    cite: "schemas/2025-11-25/schema.ts: ElicitResult.content is `{ [key: string]: string | number | boolean | string[] }`",
    why: `${ELICIT_ANSWER_WHY} spec/2025-11-25/client/elicitation.mdx#requested-schema`,
  },
  {
    revision: "2026-07-28",
    pointer: "/$defs/ElicitResult/properties/content/additionalProperties/anyOf/1/type",
    expected: ["string", "integer", "boolean"],
    replacement: ["string", "number", "boolean"],
    cite: "schemas/2026-07-28/schema.ts: ElicitResult.content is `{ [key: string]: string | number | boolean | string[] }`",
    why: `${ELICIT_ANSWER_WHY} spec/2026-07-28/client/elicitation.mdx#requested-schema`,
  },
  {
    revision: "2026-07-28",
    pointer: "/$defs/JSONValue/anyOf/2/type",
    expected: ["string", "integer", "boolean"],
    replacement: ["string", "number", "boolean", "null"],
    cite: "schemas/2026-07-28/schema.ts: JSONValue is `string | number | boolean | null | JSONObject | JSONArray`",
    why:
      "schema.json drops null and fractions from JSONValue, so every JSONObject (experimental and extension capabilities, _meta values, " +
      "sampling and elicitation capability objects) rejects a decimal or a null that schema.ts allows. spec/2026-07-28/schema.mdx#jsonvalue",
  },
];
