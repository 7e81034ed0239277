/** Shared helpers of the scaffolder suites: run the CLI, run npm in a project, hash a folder. */
import { execFile, type ChildProcess, type ExecFileOptions } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { CLI, ROOT } from "../helpers.js";

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function run(command: string, args: string[], options: ExecFileOptions & { timeoutMs?: number } = {}): Promise<Run> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: ROOT, encoding: "utf8", maxBuffer: 64 << 20, timeout: options.timeoutMs ?? 300_000, ...options, env: { ...process.env, CI: "true", ...options.env } },
      (err, stdout, stderr) => {
        const status = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : null) : 0;
        resolve({ status, stdout: String(stdout), stderr: String(stderr), ms: performance.now() - t0 });
      },
    );
  });
}

/** `create-mcp-server ...args` as a real process (no TTY, CI=true: no questions). */
export const create = (args: string[], cwd = ROOT) => run(process.execPath, [CLI, ...args], { cwd });

/** At most `n` of the wrapped jobs at once (the scaffold suites run their tests concurrently; CPU is the limit). */
export function limiter(n: number): <T>(job: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (job) => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await job();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
const heavy = limiter(Number(process.env.SCAFFOLD_TEST_JOBS ?? 2));

/** `npm ...args` in a project (at most two at a time). */
export const npm = (cwd: string, args: string[], timeoutMs = 300_000) => heavy(() => run(process.platform === "win32" ? "npm.cmd" : "npm", args, { cwd, timeoutMs }));

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `cms-${prefix}-`));
}

/** sha256 over every file under `dir` (path and content) but the git repository, for idempotency and determinism checks. */
export function hashTree(dir: string): string {
  const h = createHash("sha256");
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      // .git/ holds commit times: two runs with the same flags differ there and only there.
      if (d === dir && name === ".git") continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else h.update(relative(dir, p)).update("\0").update(readFileSync(p));
    }
  };
  if (existsSync(dir)) walk(dir);
  return h.digest("hex");
}

/** Fail with the command's output when it did not exit 0. */
export function expectOk(r: Run, what: string): void {
  if (r.status !== 0) throw new Error(`${what} exited ${r.status}\n--- stdout\n${r.stdout.slice(-6000)}\n--- stderr\n${r.stderr.slice(-6000)}`);
}

export type Template = "basic" | "everything";
export type TransportChoice = "stdio" | "http" | "both";

/**
 * A project that shares another's node_modules: a real node_modules folder whose entries are symlinks to the
 * installed one's, except the entries in `own` (copied, so they can be changed without touching the original).
 */
export function linkNodeModules(from: string, to: string, own: string[] = []): void {
  const src = join(from, "node_modules");
  const dst = join(to, "node_modules");
  mkdirSync(dst, { recursive: true });
  for (const entry of readdirSync(src)) {
    if (entry.startsWith("@")) {
      mkdirSync(join(dst, entry), { recursive: true });
      for (const pkg of readdirSync(join(src, entry))) {
        const name = `${entry}/${pkg}`;
        if (own.includes(name)) cpSync(join(src, name), join(dst, name), { recursive: true, dereference: true });
        else symlinkSync(join(src, name), join(dst, name));
      }
    } else if (own.includes(entry)) cpSync(join(src, entry), join(dst, entry), { recursive: true, dereference: true });
    else symlinkSync(join(src, entry), join(dst, entry));
  }
}

/**
 * A copy of the project `from` in `to` (made, with its parents): every file but node_modules, which is linked to
 * `from`'s as linkNodeModules does (`own` entries copied). For a test that changes a project: the shared one stays as
 * scaffolded. A copy of a built project keeps dist/ and tsc's build info, so its next build is incremental.
 */
export function copyProject(from: string, to: string, own: string[] = []): string {
  mkdirSync(to, { recursive: true });
  cpSync(from, to, { recursive: true, verbatimSymlinks: true, filter: (src) => src !== join(from, "node_modules") });
  if (existsSync(join(from, "node_modules"))) linkNodeModules(from, to, own);
  return to;
}

/** The flags of the installed `--auth oauth` project that auth.test.ts and auth-dev.test.ts share (sharedProject, named oauth-server). */
export const OAUTH_FLAGS = ["--transport", "http", "--auth", "oauth", "--no-git"];

const shared = new Map<string, Promise<{ dir: string; run: Run }>>();

/**
 * One scaffolded and installed project per template and flags for the whole test run, shared by the test files
 * (each runs in a worker process of its own): `create-mcp-server <dir> --yes --template <template> ...flags` with its
 * npm install and git commit, in the run's temporary folder, made by the first caller while the others wait for it.
 * The project is named `<template>-both` unless `name` says otherwise. Read-only for its users: copyProject it (or
 * linkNodeModules to it) to change anything. `run` is the create command's result (the same for every caller).
 */
export function sharedProject(template: Template, flags: string[] = [], name = `${template}-both`): Promise<{ dir: string; run: Run }> {
  const key = [template, name, ...flags].join(" ").replace(/[^\w.-]+/g, "_");
  let made = shared.get(key);
  if (!made) shared.set(key, (made = makeShared(key, template, flags, name)));
  return made;
}

async function makeShared(key: string, template: Template, flags: string[], name: string): Promise<{ dir: string; run: Run }> {
  const base = join(tmpdir(), "cms-shared-projects", key);
  const dir = join(base, name);
  const result = join(base, "created.json");
  mkdirSync(dirname(base), { recursive: true });
  let mine = true;
  try {
    mkdirSync(base);
  } catch {
    mine = false; // another test file is making it (or made it): wait for its result
  }
  if (mine) {
    const r = await create([dir, "--yes", "--template", template, ...flags]);
    writeFileSync(`${result}.tmp`, JSON.stringify(r));
    renameSync(`${result}.tmp`, result);
  }
  const deadline = Date.now() + 600_000;
  while (!existsSync(result)) {
    if (Date.now() > deadline) throw new Error(`the shared ${template} project (${flags.join(" ")}) was not made within 600 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const r: Run = JSON.parse(readFileSync(result, "utf8"));
  expectOk(r, `create-mcp-server ${template} ${flags.join(" ")} (the shared installed project)`);
  return { dir, run: r };
}

/**
 * A check that more than one test file makes of the same thing (e.g. the Dockerfile of the shared basic project), run
 * once for the whole test run: the first caller runs `check`, every caller (in any worker) gets its outcome, and a
 * failure fails each of them with the same message. `key` names what is checked; the same key must mean the same check.
 */
export async function sharedCheck(key: string, check: () => Promise<void>): Promise<void> {
  const base = join(tmpdir(), "cms-shared-checks", key.replace(/[^\w.-]+/g, "_"));
  const result = join(base, "outcome.json");
  mkdirSync(dirname(base), { recursive: true });
  let mine = true;
  try {
    mkdirSync(base);
  } catch {
    mine = false; // another test file runs it (or ran it): wait for its outcome
  }
  if (mine) {
    const outcome = await check().then(
      () => ({ ok: true, message: "" }),
      (err: unknown) => ({ ok: false, message: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
    );
    writeFileSync(`${result}.tmp`, JSON.stringify(outcome));
    renameSync(`${result}.tmp`, result);
  }
  const deadline = Date.now() + 600_000;
  while (!existsSync(result)) {
    if (Date.now() > deadline) throw new Error(`the shared check ${key} did not end within 600 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const outcome: { ok: boolean; message: string } = JSON.parse(readFileSync(result, "utf8"));
  if (!outcome.ok) throw new Error(`${key}${mine ? "" : " (run by another test file)"}: ${outcome.message}`);
}

/** "Tests  N passed (N)" from vitest's summary. */
export function passedCount(output: string): number {
  // eslint-disable-next-line no-control-regex -- ESC starts the ANSI colour codes vitest prints; stripping them is the point.
  const m = /Tests\s+(\d+) passed/.exec(output.replace(/\x1b\[[0-9;]*m/g, ""));
  return m ? Number(m[1]) : 0;
}

/** Collects a child's output (stdout and stderr); `waitFor` resolves when `pattern` appears in what came after `from`, and rejects after `ms` or once the child exits. */
export function watchOutput(child: ChildProcess, defaultMs = 90_000) {
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c));
  child.stderr!.on("data", (c: Buffer) => (output += c));
  return {
    get text() {
      return output;
    },
    waitFor(pattern: RegExp, from: number, ms = defaultMs): Promise<RegExpExecArray> {
      return new Promise((resolve, reject) => {
        const t0 = Date.now();
        const poll = setInterval(() => {
          const m = pattern.exec(output.slice(from));
          if (m) {
            clearInterval(poll);
            resolve(m);
          } else if (Date.now() - t0 > ms || child.exitCode !== null) {
            clearInterval(poll);
            reject(new Error(`${pattern} did not appear within ${ms} ms (exit ${child.exitCode}):\n${output.slice(-4000)}`));
          }
        }, 100);
      });
    },
  };
}
