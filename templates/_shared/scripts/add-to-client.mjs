// Adds this server's stdio entry to a desktop client's configuration file ("mcpServers"), keeping everything else:
//
//   node scripts/add-to-client.mjs                  Claude Desktop's file on macOS or Windows
//   node scripts/add-to-client.mjs --config <file>  any client that reads an "mcpServers" object (created if absent)
//
// Run `npm run build` first: the entry starts dist/src/main.js. Restart the client afterwards.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function fail(message) {
  process.stderr.write(`add-to-client: ${message}\n`);
  process.exit(1);
}

/** Where Claude Desktop keeps its configuration, on the platforms where that is documented. */
function desktopConfigPath() {
  if (process.platform === "darwin")
    return join(homedir(), "Library", "Application Support", "Claude", "claude_desktop_config.json");
  if (process.platform === "win32" && process.env.APPDATA)
    return join(process.env.APPDATA, "Claude", "claude_desktop_config.json");
  return undefined;
}

let values;
try {
  ({ values } = parseArgs({ options: { config: { type: "string" }, name: { type: "string" } }, strict: true }));
} catch (err) {
  fail(err.message);
}
const file = values.config ? resolve(values.config) : desktopConfigPath();
if (!file) fail(`no known desktop client configuration file on ${process.platform}; pass --config <file>`);

const manifest = JSON.parse(readFileSync(join(ROOT, "mcp.json"), "utf8"));
if (Array.isArray(manifest.transports) && !manifest.transports.includes("stdio")) {
  fail('this server does not serve stdio (mcp.json "transports"); connect the client to its HTTP URL instead');
}
const main = join(ROOT, "dist", "src", "main.js");
if (!existsSync(main)) fail(`${main} is missing; run \`npm run build\` first`);
const name = values.name ?? JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).name;

let config = {};
if (existsSync(file)) {
  try {
    config = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    // Never replace a file that cannot be read back: the user's other servers are in it.
    fail(`${file} is not valid JSON (${err.message}); fix it, nothing was changed`);
  }
  if (typeof config !== "object" || config === null || Array.isArray(config))
    fail(`${file} is not a JSON object; nothing was changed`);
}
const servers = typeof config.mcpServers === "object" && config.mcpServers !== null ? config.mcpServers : {};
const replaced = name in servers;
// The absolute path of this node: a desktop client does not start with the shell's PATH (nvm, volta, brew).
servers[name] = { command: process.execPath, args: [main, "--transport", "stdio"] };
config.mcpServers = servers;
mkdirSync(dirname(file), { recursive: true });
// Written next to the file, then renamed over it: a crash never leaves half a configuration.
writeFileSync(`${file}.tmp`, JSON.stringify(config, null, 2) + "\n");
renameSync(`${file}.tmp`, file);
process.stdout.write(`${replaced ? "Replaced" : "Added"} "${name}" in ${file}; restart the client to load it\n`);
