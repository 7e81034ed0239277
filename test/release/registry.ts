/**
 * A real npm registry on 127.0.0.1 for the release tests: verdaccio (a devDependency), storing what is published to
 * it and proxying every other package to the registry npm is configured with here (never named in this code), and
 * the environment under which npm, npx and `npm create` use that registry only: a user config naming it with a
 * token of a user registered at start, and none of the npm_* variables of the `npm test` that runs the suite
 * (npm_config_user_agent would otherwise make the scaffolder think it runs under that npm).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../helpers.js";

export interface LocalRegistry {
  url: string;
  /** The environment for child processes: npm's user config names this registry only; a cache of the run's own. */
  env: NodeJS.ProcessEnv;
  /** A fresh, empty npm cache directory (for `npm ci` from an empty cache). */
  emptyCache(): string;
  /** What verdaccio logged (warnings and errors), for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

/** Our packages, kept only on the local registry (never proxied: names on the public registry may be someone else's). */
const OWN = ["create-mcp-server", "@create-mcp-server/*"];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** npm's configured registry, read from npm itself (whatever this machine's or CI's configuration says). */
function upstreamRegistry(): string {
  return execFileSync("npm", ["config", "get", "registry"], { encoding: "utf8", env: withoutNpmVariables(process.env) }).trim();
}

function withoutNpmVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !/^npm_/i.test(k)));
}

/**
 * Start verdaccio. Packages proxied from upstream are cached under node_modules/.cache (kept between runs, so a
 * second run downloads nothing); our own packages are kept apart, per registry, and removed when it stops, so each
 * run publishes them anew.
 */
export async function startRegistry(): Promise<LocalRegistry> {
  const home = mkdtempSync(join(tmpdir(), "registry-"));
  const storage = join(ROOT, "node_modules", ".cache", "create-mcp-server-registry");
  mkdirSync(storage, { recursive: true });
  // Our packages go to a folder of this registry's own (verdaccio's per-package storage, below the shared one), so
  // that two registries started from one checkout never see or remove each other's; a crashed run's is removed later.
  const own = `own-${process.pid}-${Date.now().toString(36)}`;
  for (const entry of readdirSync(storage).filter((e) => e.startsWith("own-"))) {
    if (Date.now() - statSync(join(storage, entry)).mtimeMs > 86_400_000) rmSync(join(storage, entry), { recursive: true, force: true });
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = [
    `storage: ${JSON.stringify(storage)}`,
    `auth:`,
    `  htpasswd:`,
    `    file: ${JSON.stringify(join(home, "htpasswd"))}`,
    `    max_users: 10`,
    `uplinks:`,
    `  upstream:`,
    `    url: ${JSON.stringify(upstreamRegistry())}`,
    `    timeout: 60s`,
    `    max_fails: 5`,
    `packages:`,
    ...OWN.flatMap((p) => [`  ${JSON.stringify(p)}:`, `    access: $all`, `    publish: $authenticated`, `    storage: ${own}`]),
    `  "**":`,
    `    access: $all`,
    `    publish: $authenticated`,
    `    proxy: upstream`,
    // Tokens as JWTs: the default token is verified against the bcrypt password on every request (~250 ms each).
    `security:`,
    `  api:`,
    `    jwt:`,
    `      sign:`,
    `        expiresIn: 1d`,
    `server:`,
    `  keepAliveTimeout: 60`,
    `log: { type: stdout, format: pretty, level: warn }`,
  ].join("\n");
  writeFileSync(join(home, "config.yaml"), config + "\n");
  const bin = join(ROOT, "node_modules", "verdaccio", "bin", "verdaccio");
  const child: ChildProcess = spawn(process.execPath, [bin, "--config", join(home, "config.yaml"), "--listen", `127.0.0.1:${port}`], {
    stdio: ["ignore", "pipe", "pipe"],
    env: withoutNpmVariables(process.env),
  });
  let log = "";
  child.stdout!.on("data", (c: Buffer) => (log += c));
  child.stderr!.on("data", (c: Buffer) => (log += c));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`verdaccio exited at start:\n${log}`);
      try {
        if ((await fetch(`${url}-/ping`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`verdaccio did not answer on ${url} within 30 s:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // A user of this registry, as `npm adduser` would register one; its token goes into the user config.
    const res = await fetch(`${url}-/user/org.couchdb.user:release-test`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "release-test", password: "release-test-password" }),
    });
    const { token } = (await res.json()) as { token?: string };
    if (!token) throw new Error(`verdaccio registered no user (${res.status}):\n${log}`);
    const npmrc = join(home, "npmrc");
    const authority = url.replace(/^http:/, "");
    writeFileSync(npmrc, `registry=${url}\n${authority}:_authToken=${token}\nfund=false\naudit=false\nupdate-notifier=false\n`);
    const cache = join(home, "npm-cache");
    let caches = 0;
    return {
      url,
      env: { ...withoutNpmVariables(process.env), npm_config_userconfig: npmrc, npm_config_globalconfig: join(home, "no-global-npmrc"), npm_config_cache: cache },
      emptyCache: () => {
        const dir = join(home, `empty-cache-${++caches}`);
        if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
        return dir;
      },
      log: () => log,
      stop: async () => {
        child.kill();
        await exited;
        rmSync(home, { recursive: true, force: true });
        rmSync(join(storage, own), { recursive: true, force: true });
      },
    };
  } catch (err) {
    child.kill();
    rmSync(home, { recursive: true, force: true });
    throw err;
  }
}

/** The version after `version`: its patch number plus one (0.1.0 → 0.1.1). */
export function nextPatch(version: string): string {
  const [major, minor, patch] = version.split(/[.-]/).map(Number);
  return `${major}.${minor}.${patch + 1}`;
}

/** The version of the checkout's packages. */
export const CHECKOUT_VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
