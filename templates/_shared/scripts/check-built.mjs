// `npm start`'s prestart: a project not built yet gets one line saying what to run, instead of Node's stack trace
// for a missing dist/src/main.js. It reads no file but that one's existence, so `npm start` stays as quick.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const main = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "src", "main.js");
if (!existsSync(main)) {
  // The package manager running the script names itself first in its user agent (`pnpm/9.1.0 npm/? node/…`).
  const pm = /^(npm|pnpm|yarn)\//.exec(process.env.npm_config_user_agent ?? "")?.[1] ?? "npm";
  process.stderr.write(
    `dist/src/main.js is missing: run \`${pm} run build\` first (mcp.json → generated/, then tsc → dist/)\n`,
  );
  process.exit(1);
}
