/** Scaffolding (`create-mcp-server [dir]`) lands with the scaffolder issue. */
export async function scaffoldCommand(_dir: string | undefined, _argv: string[]): Promise<void> {
  throw new Error("scaffolding is not available yet in this version; see README.md");
}
