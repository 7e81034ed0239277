// The shell lines the scaffolder prints to be pasted (`cd <dir>`, `node <clone>/bin/create-mcp-server.js`, the MCP
// Inspector and add-to-client commands) quote a path so that a real POSIX shell reads it back as the same one word,
// expanding and running nothing in it.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { clientConfig, shellQuote } from "../../generator/client-config.js";

const throughShell = (line: string) => execFileSync("sh", ["-c", `printf '%s\\n' ${line}`]).toString();

describe("shellQuote", () => {
  it.each(["plain/dir", "we $HOME `id` proj", "r&d(x)", "cost$5", "it's", "a b", 'say "hi"', "*", "~user", "tab\there", "-dash"])("%j reaches the shell as one word, unchanged", (path) => {
    expect(throughShell(shellQuote(path))).toBe(`${path}\n`);
  });

  it("leaves a path of only safe characters as it is", () => {
    expect(shellQuote("/tmp/my-server_1.2/x@y")).toBe("/tmp/my-server_1.2/x@y");
  });

  it("quotes the Inspector and add-to-client lines' paths", () => {
    const c = clientConfig("s", "both", "/tmp/r&d $HOME");
    expect(c.inspector).toBe("npx @modelcontextprotocol/inspector node '/tmp/r&d $HOME/dist/src/main.js' --transport stdio");
    expect(c.addToClient).toBe("node '/tmp/r&d $HOME/scripts/add-to-client.mjs'");
  });
});
