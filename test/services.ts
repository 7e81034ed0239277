/**
 * The shared services some tests need (PostgreSQL, Redis), found on 127.0.0.1 as every development machine and CI
 * runs them. Without one, those tests skip with one line saying what to start, except where MCP_REQUIRE_SHARED_STORES=1
 * (.ci/run sets it): there a missing service fails the run, so shared-store tests never skip silently on CI.
 */
import { existsSync } from "node:fs";
import { connect } from "node:net";

export const POSTGRES_URL = process.env.MCP_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const REDIS_URL = process.env.MCP_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

const required = process.env.MCP_REQUIRE_SHARED_STORES === "1";

function reachable(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: u.hostname, port: Number(u.port) }, () => {
      socket.end();
      resolve(true);
    });
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on("error", () => resolve(false));
  });
}

/**
 * Whether the service at `url` can be used: true when reachable; false (after printing what to start) when not and
 * not required; throws when required and unreachable.
 */
export async function service(name: "PostgreSQL" | "Redis", url: string, start: string): Promise<boolean> {
  if (await reachable(url)) return true;
  const line = `${name} is not reachable at ${url}: its tests are skipped; start it (${start}) or set ${name === "Redis" ? "MCP_TEST_REDIS_URL" : "MCP_TEST_DATABASE_URL"}`;
  if (required) throw new Error(`${line}. MCP_REQUIRE_SHARED_STORES=1: they must not be skipped here`);
  process.stderr.write(`${line}\n`);
  return false;
}

export const hasPostgres = () => service("PostgreSQL", POSTGRES_URL, "pg_ctlcluster <version> main start");
export const hasRedis = () => service("Redis", REDIS_URL, "redis-server --daemonize yes --port 6379");

/** The nginx binary the deployment rig runs: MCP_TEST_NGINX, else nginx on PATH or in /usr/sbin. */
export const NGINX = process.env.MCP_TEST_NGINX ?? [...(process.env.PATH ?? "").split(":"), "/usr/sbin"].map((d) => `${d}/nginx`).find((p) => existsSync(p)) ?? "nginx";

/** Whether nginx can be run (test/deploy/), with the same skip-or-fail rule as the services above. */
export async function hasNginx(): Promise<boolean> {
  if (existsSync(NGINX)) return true;
  const line = `nginx is not installed (${NGINX}): the deployment rig is skipped; install it (apt-get install -y nginx-light) or set MCP_TEST_NGINX`;
  if (required) throw new Error(`${line}. MCP_REQUIRE_SHARED_STORES=1: it must not be skipped here`);
  process.stderr.write(`${line}\n`);
  return false;
}
