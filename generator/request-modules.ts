/**
 * One validator module per client request method (`out/<revision>/requests/<method>.js`): dispatch loads the module of
 * a method when it is first called, so a server's first answer waits for that method's code only (a legacy
 * `initialize` 29 KB, a modern `tools/call` 34 KB) instead of the revision's whole dispatch set (220 and 176 KB, which
 * V8 parses at about 20 µs a KB: #22's cold start). Kept light (no ajv): stamp.ts names these files without rendering.
 */

/** The methods of a revision's `ClientRequest` union in its schema.json (sorted), or [] when it has none. */
export function clientRequestMethods(schemaJson: unknown): string[] {
  const root = schemaJson as Record<string, Record<string, unknown> | undefined> | null;
  const defs = (root?.$defs ?? root?.definitions) as Record<string, { anyOf?: { $ref?: unknown }[]; properties?: { method?: { const?: unknown } } }> | undefined;
  const methods = new Set<string>();
  for (const alt of defs?.ClientRequest?.anyOf ?? []) {
    const name = typeof alt.$ref === "string" ? alt.$ref.split("/").pop()! : "";
    const method = defs?.[name]?.properties?.method?.const;
    if (typeof method === "string") methods.add(method);
  }
  return [...methods].sort();
}

/** The module of `method`'s request validator, under its revision's folder: `requests/tools-call.js` for `tools/call`. */
export function requestModulePath(method: string): string {
  return `requests/${method.replace(/[^A-Za-z0-9_]/g, "-")}.js`;
}

/**
 * Two methods whose modules would be one file, or undefined: `tools/call` and `tools-call` are both
 * `requests/tools-call.js`, and `tools/Call` is the same file as `tools/call` where file names ignore case (macOS,
 * Windows), so a project generated there would load the wrong validator.
 */
export function sharedModule(methods: readonly string[]): [string, string] | undefined {
  const seen = new Map<string, string>();
  for (const m of methods) {
    const file = requestModulePath(m).toLowerCase();
    const other = seen.get(file);
    if (other !== undefined) return [other, m];
    seen.set(file, m);
  }
  return undefined;
}
