/**
 * One OpenAPI operation → its MCP tool (the mcp.json entry) and its OperationDescriptor (src/api/operations.ts), by
 * the rules of docs/openapi.md, "Mapping": one input object of the parameters and the body, the outputSchema from
 * the first success response's JSON schema, annotations from the method.
 */
import type { BodyDescriptor, JsonSchema, OperationDescriptor, ParameterDescriptor, ResponseDescriptor } from "../../templates/_openapi/src/api/descriptor.js";
import { argName } from "./names.js";
import { isObject, isObjectSchema, type SchemaConverter } from "./schema.js";
import type { Operation } from "./select.js";

/** A tool of mcp.json, as the importer writes it. */
export interface ToolEntry {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: Record<string, boolean>;
}

/** A description longer than this is cut at a sentence or word end, with ` …`: tool lists are read by models on every turn. */
export const MAX_DESCRIPTION = 1000;
const LOCATIONS = ["path", "query", "header", "cookie"] as const;
/** Headers that OpenAPI says a parameter definition shall not describe (the client sets them). */
const IGNORED_HEADERS = ["accept", "content-type", "authorization"];
const BODY_TYPES = [/^application\/(.+\+)?json(;.*)?$/i, /^application\/x-www-form-urlencoded/i, /^multipart\/form-data/i, /^text\/plain/i, /^application\/octet-stream/i];

/** The operation's tool and descriptor, under the tool name chosen for it. */
export function mapOperation(o: Operation, tool: string, conv: SchemaConverter): { entry: ToolEntry; descriptor: OperationDescriptor } {
  const params = parameters(o);
  const body = requestBody(o, conv);
  const args = argNames(params, body !== undefined);
  const parameterDescriptors: ParameterDescriptor[] = params.map((p, i) => parameterDescriptor(p, args[i], conv));
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [i, p] of parameterDescriptors.entries()) {
    properties[p.arg] = withDescription(p.schema ?? {}, params[i].description);
    if (p.required) required.push(p.arg);
  }
  if (body) {
    properties[body.arg] = withDescription(body.schema ?? {}, body.description);
    if (body.required) required.push(body.arg);
  }
  const responses = responseDescriptors(o, conv);
  const success = successResponse(responses);
  const output: OperationDescriptor["output"] = !success?.schema ? "text" : isObjectSchema(success.schema) ? "body" : "wrapped";
  const entry: ToolEntry = {
    name: tool,
    ...(titleOf(o) ? { title: titleOf(o) } : {}),
    description: descriptionOf(o),
    inputSchema: { type: "object", properties, ...(required.length ? { required } : {}), additionalProperties: false },
    ...(output === "text" ? {} : { outputSchema: outputSchema(success!.schema!, output) }),
    annotations: annotations(o.method),
  };
  const descriptor: OperationDescriptor = {
    tool,
    operationId: o.id,
    method: o.method,
    path: o.path,
    parameters: parameterDescriptors,
    ...(body ? { body: { arg: body.arg, required: body.required, contentType: body.contentType, ...(body.schema === undefined ? {} : { schema: body.schema }) } } : {}),
    responses,
    output,
    ...(Array.isArray(o.op.security) ? { security: o.op.security as OperationDescriptor["security"] } : {}),
  };
  return { entry, descriptor };
}

/** The path item's parameters and the operation's (which win for the same name and location), less the headers OpenAPI ignores. */
function parameters(o: Operation): Record<string, unknown>[] {
  const all = new Map<string, Record<string, unknown>>();
  for (const list of [o.pathItem.parameters, o.op.parameters]) {
    for (const p of Array.isArray(list) ? list : []) {
      if (!isObject(p) || typeof p.name !== "string" || !LOCATIONS.includes(p.in as (typeof LOCATIONS)[number])) continue;
      if (p.in === "header" && IGNORED_HEADERS.includes(p.name.toLowerCase())) continue;
      all.set(`${p.in} ${p.name}`, p);
    }
  }
  return [...all.values()];
}

/**
 * Each parameter's argument: its name (argName); where two collide, or one is `body` while there is a body, each of
 * them takes its location as prefix (`path_id`, `query_id`), and a collision left after that a `_2`, `_3` suffix.
 */
export function argNames(params: { name?: unknown; in?: unknown }[], hasBody: boolean): string[] {
  const plain = params.map((p) => argName(String(p.name)));
  const count = (n: string) => plain.filter((x) => x === n).length + (hasBody && n === "body" ? 1 : 0);
  const prefixed = plain.map((n, i) => (count(n) > 1 ? argName(`${String(params[i].in)}_${n}`) : n));
  const taken = new Set<string>(hasBody ? ["body"] : []);
  return prefixed.map((n) => {
    let candidate = n;
    for (let k = 2; taken.has(candidate); k++) candidate = `${n}_${k}`;
    taken.add(candidate);
    return candidate;
  });
}

function parameterDescriptor(p: Record<string, unknown>, arg: string, conv: SchemaConverter): ParameterDescriptor {
  // A parameter may carry its schema in `content` (one media type) instead of `schema`.
  const media = isObject(p.content) ? Object.values(p.content).find(isObject) : undefined;
  const schema = p.schema ?? media?.schema;
  return {
    name: String(p.name),
    in: p.in as ParameterDescriptor["in"],
    arg,
    required: p.in === "path" || p.required === true,
    ...(typeof p.style === "string" ? { style: p.style as ParameterDescriptor["style"] } : {}),
    ...(typeof p.explode === "boolean" ? { explode: p.explode } : {}),
    ...(p.allowReserved === true ? { allowReserved: true } : {}),
    ...(schema === undefined ? {} : { schema: conv.convert(schema, "input") }),
  };
}

/** The request body: the first media type of BODY_TYPES's order (JSON first), else the first documented, as a string. */
function requestBody(o: Operation, conv: SchemaConverter): (BodyDescriptor & { description?: string }) | undefined {
  const rb = o.op.requestBody;
  if (!isObject(rb) || !isObject(rb.content)) return undefined;
  const types = Object.keys(rb.content);
  if (!types.length) return undefined;
  const contentType = BODY_TYPES.map((re) => types.find((t) => re.test(t))).find(Boolean) ?? types[0];
  const media = rb.content[contentType];
  const textual = !BODY_TYPES.slice(0, 3).some((re) => re.test(contentType));
  const schema = textual ? { type: "string" } : isObject(media) && media.schema !== undefined ? conv.convert(media.schema, "input") : {};
  const description = typeof rb.description === "string" ? rb.description : undefined;
  return { arg: "body", required: rb.required === true, contentType, schema, ...(description ? { description } : {}) };
}

/** Every documented response: its JSON media type (else the first) and schema. */
function responseDescriptors(o: Operation, conv: SchemaConverter): Record<string, ResponseDescriptor> {
  const out: Record<string, ResponseDescriptor> = {};
  for (const [status, r] of Object.entries(isObject(o.op.responses) ? o.op.responses : {})) {
    if (!isObject(r)) continue;
    const content = isObject(r.content) ? r.content : {};
    const types = Object.keys(content);
    const json = types.find((t) => BODY_TYPES[0].test(t));
    const contentType = json ?? types[0];
    const media = contentType ? content[contentType] : undefined;
    out[status] = {
      ...(contentType ? { contentType } : {}),
      ...(json && isObject(media) && media.schema !== undefined ? { schema: conv.convert(media.schema, "output") } : {}),
    };
  }
  return out;
}

/** The first success response in status order (`200` … `299`, then `2XX`). */
export function successResponse(responses: Record<string, ResponseDescriptor>): ResponseDescriptor | undefined {
  const statuses = Object.keys(responses)
    .filter((s) => /^2(\d\d|XX)$/i.test(s))
    .sort((a, b) => (a.toUpperCase() < b.toUpperCase() ? -1 : 1));
  return statuses.length ? responses[statuses[0]] : undefined;
}

function outputSchema(schema: JsonSchema, output: "body" | "wrapped"): Record<string, unknown> {
  if (output === "wrapped") return { type: "object", properties: { result: schema }, required: ["result"] };
  return { ...(schema as Record<string, unknown>), type: "object" };
}

/** GET/HEAD read only; DELETE destructive; PUT and DELETE idempotent (HTTP's own semantics); every API is an open world. */
export function annotations(method: string): Record<string, boolean> {
  return {
    ...(method === "get" || method === "head" ? { readOnlyHint: true } : {}),
    ...(method === "delete" ? { destructiveHint: true } : {}),
    ...(method === "put" || method === "delete" ? { idempotentHint: true } : {}),
    openWorldHint: true,
  };
}

function titleOf(o: Operation): string | undefined {
  const summary = typeof o.op.summary === "string" ? o.op.summary.trim().replace(/\s+/g, " ") : "";
  return summary ? cut(summary, 120) : undefined;
}

/** x-mcp's description, else the operation's, else its summary, else `METHOD /path`; deprecated ones say so first. */
function descriptionOf(o: Operation): string {
  const text = o.extension.description ?? [o.op.description, o.op.summary].find((t): t is string => typeof t === "string" && t.trim() !== "")?.trim() ?? `${o.method.toUpperCase()} ${o.path}`;
  return cut((o.op.deprecated === true ? "Deprecated. " : "") + text, MAX_DESCRIPTION);
}

/** `text` cut to `max` characters at the last sentence end (else word end) in its second half, with ` …`. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 2);
  const sentence = Math.max(...[". ", ".\n", "! ", "? "].map((e) => head.lastIndexOf(e)));
  const end = sentence > max / 2 ? sentence + 1 : head.lastIndexOf(" ") > max / 2 ? head.lastIndexOf(" ") : head.length;
  return `${head.slice(0, end).trimEnd()} …`;
}

function withDescription(schema: JsonSchema, description: unknown): JsonSchema {
  if (typeof description !== "string" || !description.trim() || !isObject(schema) || schema.description !== undefined) return schema;
  return { ...schema, description: cut(description.trim(), MAX_DESCRIPTION) };
}
