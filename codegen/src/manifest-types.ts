/**
 * What mcp.json holds, typed by the runtime's own definition types: each entry is the runtime's definition without
 * its code (handlers, validators, completers), so mcp.json and the registered definitions cannot drift apart.
 * mcp.schema.json describes the same shape for editors and for the checks (test/codegen/schema.test.ts keeps the two
 * equal).
 */
import type { PromptDefinition, ResourceDefinition, ResourceTemplateDefinition, Revision, ServerOptions, ToolDefinition } from "@create-mcp-server/runtime";

/** A tool of mcp.json: its ToolDefinition without the handler and the validators (generated from its schemas). */
export type ToolEntry = Omit<ToolDefinition, "handler" | "validateInput" | "validateOutput">;

/** An argument of a prompt: the protocol's PromptArgument, and whether src/prompts/<name>.ts completes it. */
export type PromptArgumentEntry = NonNullable<PromptDefinition["arguments"]>[number] & {
  /** The prompt's handler file exports a completer for this argument (`export const complete = { <name>: … }`). */
  complete?: boolean;
};

/** A prompt of mcp.json: its PromptDefinition without the code, its arguments marked for completion. */
export type PromptEntry = Omit<PromptDefinition, "get" | "complete" | "arguments"> & { arguments?: PromptArgumentEntry[] };

/** A resource of mcp.json: its ResourceDefinition without the read function. */
export type ResourceEntry = Omit<ResourceDefinition, "read">;

/** A resource template of mcp.json: its ResourceTemplateDefinition without the code, the variables it completes named. */
export type ResourceTemplateEntry = Omit<ResourceTemplateDefinition, "read" | "complete"> & {
  /** Variables of the URI template that src/resources/<name>.ts completes. */
  complete?: string[];
};

/** The server's identity in mcp.json: what createServer() takes of it. */
export type ServerInfo = Pick<ServerOptions, "name" | "version" | "title" | "description" | "websiteUrl" | "instructions">;

/** The transports the project's entry point offers. */
export type Transport = "stdio" | "http";

/** mcp.json, as mcp.schema.json accepts it. */
export interface McpJson extends ServerInfo {
  /** The JSON Schema of this file, for editors (ignored by the generator). */
  $schema?: string;
  revisions?: Revision[];
  transports?: Transport[];
  authorization?: "oauth";
  tools?: ToolEntry[];
  prompts?: PromptEntry[];
  resources?: ResourceEntry[];
  resourceTemplates?: ResourceTemplateEntry[];
}

/** mcp.json once checked, with the lists that may be absent filled in. */
export interface Manifest extends McpJson {
  tools: ToolEntry[];
  prompts: (PromptEntry & { arguments: PromptArgumentEntry[] })[];
  resources: ResourceEntry[];
  resourceTemplates: (ResourceTemplateEntry & { variables: string[] })[];
}
