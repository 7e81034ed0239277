/**
 * What the feature modules (tools, resources, prompts, completion) read of a server: its registrations and its page
 * size. McpServer is one; the feature functions take any Registry, so that they need no server class.
 */
import type { Revision } from "../rules.js";
import type { SchemaValidator } from "./schema.js";
import type { FailureOptions } from "./failures.js";
import type { PromptDefinition, ResourceDefinition, ResourceTemplateDefinition, ToolDefinition } from "./types.js";
import type { UriTemplate } from "./uri-template.js";

/** A registered tool, with its validators once compiled (on first use unless precompiled ones were given). */
export interface CompiledTool extends ToolDefinition {
  input?: SchemaValidator;
  output?: SchemaValidator;
}

/** A registered resource template with its parsed URI template. */
export interface TemplateEntry {
  def: ResourceTemplateDefinition;
  template: UriTemplate;
}

export interface Registry {
  readonly tools: ReadonlyMap<string, CompiledTool>;
  readonly resources: ReadonlyMap<string, ResourceDefinition>;
  /** In registration order: resources/read tries them in that order. */
  readonly templates: readonly TemplateEntry[];
  readonly prompts: ReadonlyMap<string, PromptDefinition>;
  /** Items per page of the list methods; where handler failures are logged, and whether clients see their text. */
  readonly options: { readonly pageSize: number } & FailureOptions;
}

/** Whether a registration exists in `revision` (its `revisions`, default all). */
export function inRevision(def: { revisions?: readonly Revision[] }, revision: Revision): boolean {
  return !def.revisions || def.revisions.includes(revision);
}
