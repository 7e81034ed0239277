/** The mistakes the generator reports: each one line for the user, never a stack trace. */

/** Mistakes in the project (mcp.json, its runtime): the command prints each message on its own line and exits 1. */
export class ManifestError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.join("\n"));
    this.name = "ManifestError";
    this.problems = problems;
  }
}

/** Stop with one mistake. */
export function fail(problem: string): never {
  throw new ManifestError([problem]);
}

/** A JSON pointer (RFC 6901) from its reference tokens: ["tools", 2, "name"] → `/tools/2/name`. */
export function pointer(...tokens: (string | number)[]): string {
  return tokens.map((t) => `/${String(t).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/** One problem in mcp.json: `mcp.json: /tools/2/name: <message>` (the whole file when the pointer is empty). */
export function at(path: string, message: string): string {
  return path ? `mcp.json: ${path}: ${message}` : `mcp.json: ${message}`;
}
