/**
 * What a new project prints (and its README shows) for connecting a client: the stdio `mcpServers` entry, the
 * Streamable HTTP URL, the MCP Inspector command, and the one line that adds the stdio entry to a desktop client's
 * configuration file (the project's scripts/add-to-client.mjs, which knows that file's path per platform).
 */
import { join } from "node:path";
import type { PackageManagerCommands } from "./package-manager.js";

export type Transport = "stdio" | "http" | "both";

/** The port `npm start -- --transport http` listens on when none is given (the template's main.ts default). */
export const DEFAULT_HTTP_PORT = 3000;

export interface ClientConfig {
  /** `{ "mcpServers": { name: entry } }`: the stdio entry, or for an HTTP-only project the URL entry. */
  json: string;
  /** The Streamable HTTP endpoint, when the project serves HTTP. */
  httpUrl?: string;
  /** The `mcpServers` entry for clients that take a URL, when the project also serves stdio (else it is `json`). */
  httpJson?: string;
  inspector: string;
  /** The command that adds the stdio entry to a desktop client's configuration file, when the project serves stdio. */
  addToClient?: string;
}

/**
 * `s` as one word of a POSIX shell command line: as it is when it holds only characters no shell treats specially,
 * else in single quotes (in which nothing is special; a `'` is written `'\''`), so that `$`, backquotes, `&` or `(` in
 * a directory's name are never run or expanded by the line printed to be pasted.
 */
export const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
const quote = shellQuote;

export function clientConfig(name: string, transport: Transport, dir: string): ClientConfig {
  const main = join(dir, "dist", "src", "main.js");
  const httpUrl = transport === "stdio" ? undefined : `http://127.0.0.1:${DEFAULT_HTTP_PORT}/mcp`;
  const stdioEntry = { command: "node", args: [main, "--transport", "stdio"] };
  const wrap = (entry: object) => JSON.stringify({ mcpServers: { [name]: entry } }, null, 2);
  if (transport === "http") {
    return {
      json: wrap({ url: httpUrl }),
      httpUrl,
      inspector: `npx @modelcontextprotocol/inspector   # with \`npm start -- --port ${DEFAULT_HTTP_PORT}\` running, connect to ${httpUrl} (Streamable HTTP)`,
    };
  }
  return {
    json: wrap(stdioEntry),
    httpUrl,
    httpJson: httpUrl ? wrap({ url: httpUrl }) : undefined,
    inspector: `npx @modelcontextprotocol/inspector node ${quote(main)} --transport stdio`,
    addToClient: `node ${quote(join(dir, "scripts", "add-to-client.mjs"))}`,
  };
}

/** The client part of the next steps printed after scaffolding. */
export function clientConfigLines(name: string, transport: Transport, dir: string, pm: PackageManagerCommands): string[] {
  const c = clientConfig(name, transport, dir);
  const build = `\`${pm.run} build\``;
  const lines: string[] = [];
  if (transport === "http") {
    lines.push(`Client configuration (Streamable HTTP at ${c.httpUrl}, with \`${pm.start} ${pm.argsSeparator}--port ${DEFAULT_HTTP_PORT}\` running), an "mcpServers" entry:`, c.json, ``);
  } else {
    lines.push(`Client configuration over stdio (the client starts the server), an "mcpServers" entry, after ${build}:`, c.json, ``);
    if (c.httpUrl) {
      lines.push(
        `Over Streamable HTTP, with \`${pm.start} ${pm.argsSeparator}--transport http --port ${DEFAULT_HTTP_PORT}\` running: ${c.httpUrl}`,
        `  (an "mcpServers" entry for clients that take a URL: ${JSON.stringify({ [name]: { url: c.httpUrl } })})`,
        ``,
      );
    }
    lines.push(`Add the stdio entry to a desktop client's configuration file (Claude Desktop on macOS or Windows; elsewhere add --config <file>):`, `  ${c.addToClient}`, ``);
  }
  lines.push(`MCP Inspector:`, `  ${c.inspector}`);
  return lines;
}
