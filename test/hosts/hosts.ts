/** Starting and stopping the non-Node hosts for the tests: Bun and Deno as child processes, workerd via miniflare. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { Miniflare } from "miniflare";
import { ROOT } from "../helpers.js";

/** The binaries that the `bun` and `deno` npm packages install (from their per-platform optional dependencies). */
export const BUN = join(ROOT, "node_modules", ".bin", "bun");
export const DENO = join(ROOT, "node_modules", ".bin", "deno");
export const HOSTS_DIR = join(ROOT, "test", "hosts");
/** Bundles and other files the host tests write (gitignored). */
export const TMP = join(ROOT, ".vitest-tmp", "hosts");

/**
 * Deno's permissions for serving: the network for Deno.serve, nothing else. The runtime reads its environment
 * variables (MCP_RUNTIME_VALIDATE_RESULTS, MCP_REQUEST_STATE_SECRET) only where allowed (`--allow-env=...` to use
 * them), and imports its validators and ajv with specifiers Deno resolves ahead of time, so it needs no --allow-read.
 */
export const DENO_FLAGS = ["--no-prompt", "--allow-net=127.0.0.1"];

/**
 * workerd's settings, as a wrangler.toml would give them: Node APIs (node:crypto, process, Buffer) come from
 * `nodejs_compat`; the date is one this workerd supports.
 */
export const WORKERD = { compatibilityDate: "2026-04-01", compatibilityFlags: ["nodejs_compat"] };

export interface Output {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a command to completion (killed after `timeoutMs`). */
export function run(command: string, args: string[], timeoutMs = 30_000): Promise<Output> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface Host {
  /** http://127.0.0.1:PORT (no path). */
  origin: string;
  stop(): Promise<void>;
  /** What the host printed so far. */
  logs(): string;
}

/** Start a server process that prints `listening PORT` on stdout once it listens on 127.0.0.1. */
export function startProcess(command: string, args: string[], timeoutMs = 15_000): Promise<Host> {
  const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${command} did not start in ${timeoutMs} ms:\n${out}\n${err}`));
    }, timeoutMs);
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      out += c;
      const m = /listening (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ origin: `http://127.0.0.1:${m[1]}`, stop, logs: () => out + err });
      }
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited ${code} before listening:\n${out}\n${err}`));
    });
  });
}

/**
 * Serve a bundled Workers module with workerd (miniflare) on 127.0.0.1, a free port. What the Worker writes
 * (console, process.stderr) is kept in `logs()` rather than printed, for a failing test's message.
 */
export async function startWorkerd(scriptPath: string): Promise<Host> {
  let logs = "";
  const keep = (stream: Readable) => stream.setEncoding("utf8").on("data", (c: string) => (logs += c));
  const miniflare = new Miniflare({
    modules: true,
    scriptPath,
    host: "127.0.0.1",
    port: 0,
    ...WORKERD,
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      keep(stdout);
      keep(stderr);
    },
  });
  let url: URL;
  try {
    url = await miniflare.ready;
  } catch (err) {
    await miniflare.dispose().catch(() => {});
    throw new Error(`workerd did not start: ${(err as Error).message}\n${logs}`, { cause: err });
  }
  return { origin: url.origin, logs: () => logs, stop: () => miniflare.dispose() };
}
