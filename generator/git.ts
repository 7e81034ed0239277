/**
 * `git init` and a first commit of a scaffolded project (skipped with `--no-git`). Never fatal: the project is
 * already written, so a missing git, a directory inside another repository, or a failed commit is one line saying
 * so, and the project stays as it is.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";

/** The identity of the first commit when git has none configured (a fresh CI machine or container). */
export const FALLBACK_AUTHOR = { name: "create-mcp-server", email: "create-mcp-server@localhost" };

export type GitResult = { committed: true; commit: string } | { committed: false; reason: string };

function git(dir: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync("git", args, { cwd: dir, encoding: "utf8", env, stdio: ["ignore", "pipe", "pipe"] });
  return { ok: !r.error && r.status === 0, out: (r.stdout ?? "").trim(), err: r.error ? r.error.message : (r.stderr ?? "").trim() };
}

export function initRepository(dir: string, message = "Initial commit from create-mcp-server"): GitResult {
  const version = git(dir, ["--version"]);
  if (!version.ok) return { committed: false, reason: "git is not installed" };
  // A project created inside an existing repository (a monorepo) belongs to that repository.
  const inside = git(dir, ["rev-parse", "--is-inside-work-tree"]);
  if (inside.ok && inside.out === "true") return { committed: false, reason: `${dir} is already inside a git repository` };
  const init = git(dir, ["init", "-q"]);
  if (!init.ok) return { committed: false, reason: `git init failed: ${init.err.split("\n")[0]}` };
  const add = git(dir, ["add", "-A"]);
  // Without a configured identity `git commit` refuses; the user's own, when set, is kept.
  const env = { ...process.env };
  if (!git(dir, ["config", "user.name"]).ok) {
    env.GIT_AUTHOR_NAME ??= FALLBACK_AUTHOR.name;
    env.GIT_COMMITTER_NAME ??= FALLBACK_AUTHOR.name;
  }
  if (!git(dir, ["config", "user.email"]).ok) {
    env.GIT_AUTHOR_EMAIL ??= FALLBACK_AUTHOR.email;
    env.GIT_COMMITTER_EMAIL ??= FALLBACK_AUTHOR.email;
  }
  // --no-verify: a global hook (commit-msg, pre-commit) is not this project's.
  const commit = add.ok ? git(dir, ["commit", "-q", "--no-verify", "--no-gpg-sign", "-m", message], env) : add;
  if (!commit.ok) {
    // A repository without its first commit is more confusing than none: remove what this run created.
    rmSync(join(dir, ".git"), { recursive: true, force: true });
    return { committed: false, reason: `git commit failed: ${commit.err.split("\n")[0]}` };
  }
  return { committed: true, commit: git(dir, ["rev-parse", "--short", "HEAD"]).out };
}
