/** tools/list and tools/call. spec/2025-11-25/server/tools.mdx */
import { isObject, McpError } from "../wire/jsonrpc.js";
import { conform, copyOf } from "../wire/encode.js";
import { type Revision, errorCode, hasField, isModern, structuredContentMustBeObject, taskWireForm, toolInputErrorsAsResult } from "../rules.js";
import { MissingCapabilityError } from "./errors.js";
import { HandlerFailure, RefusedResult, handlerFailure, refuseRuntimeFields, siteOf } from "./failures.js";
import { withSuggestion } from "./suggest.js";
import { page } from "./pagination.js";
import { type CompiledTool, type Registry, inRevision } from "./registry.js";
import { compileSchema } from "./schema.js";
import type { Principal, RequestContext, ToolResult } from "./types.js";
import { allowed, privateList, requireScopes } from "./authorization.js";

export function listTools(registry: Registry, revision: Revision, params?: Record<string, unknown>, principal?: Principal): Record<string, unknown> {
  const all = [...registry.tools.values()]
    .filter((t) => servedIn(t, revision) && allowed(t, principal))
    .map((t) => {
      let outputSchema = t.outputSchema;
      // An outputSchema whose values are not objects cannot be honoured where structuredContent must be an object.
      if (outputSchema && structuredContentMustBeObject(revision) && outputSchema.type !== "object") outputSchema = undefined;
      return conform(revision, "Tool", {
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema,
        outputSchema,
        annotations: t.annotations,
        // Tool-level task negotiation (2025-11-25; conform drops it elsewhere). spec/2025-11-25/basic/utilities/tasks.mdx#tool-level-negotiation
        execution: t.taskSupport && t.taskSupport !== "forbidden" ? { taskSupport: t.taskSupport } : undefined,
        icons: t.icons,
        _meta: t._meta,
      });
    });
  const { items, nextCursor } = page("tools", all, params, revision, registry.options.pageSize);
  return privateList({ tools: items, ...(nextCursor ? { nextCursor } : {}) }, revision, "tools/list", principal);
}

export function callTool(registry: Registry, revision: Revision, params: Record<string, unknown>, ctx: RequestContext): Record<string, unknown> | Promise<Record<string, unknown>> {
  const call = resolveToolCall(registry, revision, params, ctx.principal);
  if ("result" in call) return call.result;
  return runTool(registry, revision, call.tool, call.args, ctx);
}

/** A tool that must run as a task does not exist where the revision has no tasks. */
export function servedIn(tool: CompiledTool, revision: Revision): boolean {
  return inRevision(tool, revision) && (tool.taskSupport !== "required" || taskWireForm(revision) !== "none");
}

/**
 * The tool a tools/call names and its checked arguments, or the result that answers it at once (invalid arguments,
 * from 2025-11-25). Throws McpError: an unknown tool, or (up to 2025-06-18) invalid arguments.
 */
export function resolveToolCall(
  registry: Registry,
  revision: Revision,
  params: Record<string, unknown>,
  principal: Principal | undefined,
): { tool: CompiledTool; args: Record<string, unknown> } | { result: Record<string, unknown> } {
  const name = params.name as string;
  const found = registry.tools.get(name);
  const tool = found && servedIn(found, revision) ? found : undefined;
  // Unknown tool: a protocol error in every revision (naming a close one the caller may see and call).
  // spec/2025-11-25/server/tools.mdx#error-handling
  if (!tool) throw new McpError(errorCode(revision, "INVALID_PARAMS")!, withSuggestion(`Unknown tool: ${name}`, name, visibleTools(registry, revision, principal)));
  requireScopes(tool, principal, revision, `tool ${name}`);
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  tool.input ??= compileSchema(tool.inputSchema as Record<string, unknown>);
  if (!tool.input(args)) {
    const message = `Invalid arguments for tool ${name}: ${tool.input.describe()}`;
    // Up to 2025-06-18 a protocol error; from 2025-11-25 a tool result the model can correct itself from.
    if (toolInputErrorsAsResult(revision)) return { result: { content: [{ type: "text", text: message }], isError: true } };
    throw new McpError(errorCode(revision, "INVALID_PARAMS")!, message);
  }
  return { tool, args };
}

/** The names of the tools `principal` may see (and call) in `revision`, in registration order. */
function* visibleTools(registry: Registry, revision: Revision, principal: Principal | undefined): Iterable<string> {
  for (const t of registry.tools.values()) if (servedIn(t, revision) && allowed(t, principal)) yield t.name;
}

/**
 * Run a tool's handler and encode its outcome for `revision`. What the handler throws is logged (failures.ts) and
 * becomes an isError result; a protocol error it throws passes; a result that is not a tool result, or fails the
 * outputSchema, is logged and thrown as a HandlerFailure (-32603).
 */
export function runTool(registry: Registry, revision: Revision, tool: CompiledTool, args: Record<string, unknown>, ctx: RequestContext): Record<string, unknown> | Promise<Record<string, unknown>> {
  // No async frame here: this runs for every tools/call (see Dispatcher.dispatch).
  let out: ToolResult | Promise<ToolResult>;
  try {
    out = tool.handler(args, ctx);
  } catch (err) {
    return thrownByTool(registry, revision, tool, ctx, err);
  }
  if (out instanceof Promise)
    return out.then(
      (r) => returnedByTool(registry, revision, tool, ctx, r),
      (err) => thrownByTool(registry, revision, tool, ctx, err),
    );
  return returnedByTool(registry, revision, tool, ctx, out);
}

/** What a tool's handler threw, logged, as its isError result (or thrown on, when it is a protocol error). */
function thrownByTool(registry: Registry, revision: Revision, tool: CompiledTool, ctx: RequestContext, err: unknown): Record<string, unknown> {
  const failure = handlerFailure(registry.options, siteOf(ctx, "tools/call", { tool: tool.name }), err, err instanceof Error ? err.message : String(err));
  // A tool that fails reports it in its result, so the model can see it. spec/2025-11-25/server/tools.mdx#error-handling
  if (failure instanceof HandlerFailure) return { content: [{ type: "text", text: failure.clientMessage }], isError: true };
  return toolFailure(revision, failure);
}

/** What a tool's handler returned, encoded; a result the runtime refuses is logged and thrown as a HandlerFailure. */
function returnedByTool(registry: Registry, revision: Revision, tool: CompiledTool, ctx: RequestContext, result: ToolResult): Record<string, unknown> {
  try {
    return toolSuccess(revision, tool, result);
  } catch (err) {
    throw err instanceof RefusedResult ? handlerFailure(registry.options, siteOf(ctx, "tools/call", { tool: tool.name }), err, err.message) : err;
  }
}

/** A tool's failure as its outcome: protocol errors (and HandlerFailures) are thrown on; the rest is an isError result. */
export function toolFailure(revision: Revision, err: unknown): Record<string, unknown> {
  if (err instanceof McpError || err instanceof HandlerFailure || (err as Error)?.name === "InputRequiredSignal") throw err;
  // Modern: a missing client capability is -32021 with data.requiredCapabilities. Legacy has no such code: the result says it.
  if (err instanceof MissingCapabilityError && isModern(revision)) throw err;
  return { content: [{ type: "text", text: err instanceof Error ? err.message : String(err) }], isError: true };
}

/** What a tool's handler returned, checked to be a tool result and encoded for `revision`. Throws RefusedResult. */
export function toolSuccess(revision: Revision, tool: CompiledTool, result: ToolResult): Record<string, unknown> {
  if (!isObject(result) || !Array.isArray(result.content)) throw new RefusedResult(`tool ${tool.name} returned no content array`);
  refuseRuntimeFields(`tool ${tool.name}`, result);
  return encodeToolResult(revision, tool, result);
}

/**
 * A tool result checked against the tool's outputSchema, with structuredContent also as text, and only the fields
 * `revision` defines. Throws RefusedResult when structuredContent is missing or does not match.
 */
export function encodeToolResult(revision: Revision, tool: CompiledTool, result: ToolResult): Record<string, unknown> {
  let out: Record<string, unknown> = copyOf(result);
  const structured = result.structuredContent as unknown;
  if (tool.outputSchema && !result.isError) {
    tool.output ??= compileSchema(tool.outputSchema);
    if (structured === undefined) throw new RefusedResult(`tool ${tool.name} declares an outputSchema but returned no structuredContent`);
    if (!tool.output(structured)) throw new RefusedResult(`tool ${tool.name} returned structuredContent that does not match its outputSchema: ${tool.output.describe()}`);
  }
  if (structured !== undefined) {
    // Structured content SHOULD also be sent as text. spec/2025-06-18/server/tools.mdx#structured-content
    if ((result.content as unknown[]).length === 0) out.content = [{ type: "text", text: JSON.stringify(structured) }];
    const sendable = hasField(revision, "CallToolResult", "structuredContent") && (!structuredContentMustBeObject(revision) || isObject(structured));
    if (!sendable) delete out.structuredContent;
  }
  out = conform(revision, "CallToolResult", out);
  return out;
}
