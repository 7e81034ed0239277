/**
 * What a file `upgrade` would write needs of the files it keeps. A project's files work together: the Dockerfile runs
 * `dist/src/main.ts` with flags, the CI workflow runs package.json's scripts, a script in scripts/ is run by one of
 * them. When the user changed one of those (so upgrade keeps it as it is), a newer file that needs something the kept
 * one lacks would break the project (an image that never starts, a CI job that fails at once): such a file is not
 * written, and upgrade says in one line which kept file blocks it and what to change.
 *
 * The needs are read from the files themselves, not listed by hand: the `npm run`/`pnpm run`/`yarn` scripts a file
 * runs, the command-line flags of main.js its CMD passes, the HTTP path its HEALTHCHECK probes, the script file that
 * the new package.json runs (one run by hand, as scripts/add-to-client.mjs, needs nothing), and the options main.ts
 * passes to src/server.ts's buildServer.
 */

/** A file `upgrade` would write that it leaves out, and why. */
export interface Blocked {
  path: string;
  /** The kept file that lacks what it needs. */
  by: string;
  /** One line: what the new file needs, and what to change. */
  reason: string;
}

interface Need {
  /** The file that must provide it. */
  file: string;
  /** Whether that file, as it will be, provides it. */
  met: (content: string) => boolean;
  what: string;
}

const scriptsOf = (packageJson: string): Record<string, string> => {
  try {
    return (JSON.parse(packageJson) as { scripts?: Record<string, string> }).scripts ?? {};
  } catch {
    return {};
  }
};

/** The package.json scripts a workflow or Dockerfile runs (`npm run lint`, `npm test`, `pnpm run build`, `yarn lint`). */
function scriptsRun(content: string): string[] {
  const names = new Set<string>();
  for (const [, name] of content.matchAll(/\b(?:npm|pnpm) run ([\w:-]+)/g)) names.add(name);
  for (const [, name] of content.matchAll(/\b(?:npm|pnpm|yarn) (test|start)\b/g)) names.add(name);
  for (const [, name] of content.matchAll(/\byarn (?!install|add|run|create|dlx)([\w:-]+)/g)) names.add(name);
  return [...names];
}

/** The `--flags` a Dockerfile's CMD/ENTRYPOINT passes to dist/src/main.js. */
function mainFlags(dockerfile: string): string[] {
  const flags = new Set<string>();
  for (const line of dockerfile.split("\n").filter((l) => /^\s*(CMD|ENTRYPOINT)\b/.test(l) && l.includes("main.js"))) {
    for (const [, flag] of line.matchAll(/(?<![\w-])--([\w-]+)/g)) flags.add(flag);
  }
  return [...flags];
}

/** Whether main.ts declares a parseArgs option `flag` (`"allow-remote": { type: … }` or `port: { … }`). */
const declaresFlag = (mainTs: string, flag: string) => new RegExp(`(^|[\\s{,])["']?${flag.replace(/-/g, "\\-")}["']?\\s*:\\s*\\{\\s*type:`, "m").test(mainTs);

/**
 * What the file at `path` with `content` needs of the project's other files; `rendered` is what upgrade renders for a
 * path (the new package.json names the scripts/ files a script runs).
 */
export function needsOf(path: string, content: string, rendered: (path: string) => string | undefined = () => undefined): Need[] {
  const needs: Need[] = [];
  if (path === "Dockerfile" || path.startsWith(".github/workflows/")) {
    for (const script of scriptsRun(content)) needs.push({ file: "package.json", met: (pkg) => script in scriptsOf(pkg), what: `runs the script "${script}"` });
  }
  if (path === "Dockerfile") {
    for (const flag of mainFlags(content)) needs.push({ file: "src/main.ts", met: (main) => declaresFlag(main, flag), what: `passes --${flag} to dist/src/main.js` });
    const probe = /HEALTHCHECK.*?["'\s](\/[\w-]+)["'\s)]/.exec(content)?.[1];
    if (probe) needs.push({ file: "src/main.ts", met: (main) => main.includes(`"${probe}"`) || main.includes(`'${probe}'`) || main.includes(`\`${probe}`), what: `probes ${probe}` });
  }
  // A main.ts that passes options to buildServer (its logger) needs a src/server.ts whose buildServer takes them.
  if (path === "src/main.ts" && /\bbuildServer\(\s*\{/.test(content))
    needs.push({ file: "src/server.ts", met: (server) => /\bfunction buildServer\(\s*\w+/.test(server), what: "passes options to buildServer()" });
  const script = /^scripts\/[^/]+\.m?js$/.exec(path)?.[0];
  const runBy = (pkg: string | undefined) => pkg !== undefined && Object.values(scriptsOf(pkg)).some((s) => s.includes(script!));
  if (script && runBy(rendered("package.json"))) needs.push({ file: "package.json", met: runBy, what: "is run by a package.json script" });
  return needs;
}

/**
 * Of the files upgrade would write (`writes`: path → new content), those that need something a kept file lacks.
 * `final(path)` is a file's content after the upgrade (the new one if written, else what is on disk; undefined if
 * there is none); `kept` are the files upgrade leaves as the user has them. A need on a file that is written anew is
 * met by construction (the templates are consistent), so only kept files can block. `rendered(path)`: what upgrade
 * renders for a path, written or not.
 */
export function blockedWrites(
  writes: Map<string, string>,
  kept: Set<string>,
  final: (path: string) => string | undefined,
  rendered: (path: string) => string | undefined = () => undefined,
): Blocked[] {
  const blocked: Blocked[] = [];
  for (const [path, content] of writes) {
    for (const need of needsOf(path, content, rendered)) {
      if (!kept.has(need.file)) continue;
      const provided = final(need.file);
      if (provided !== undefined && need.met(provided)) continue;
      blocked.push({ path, by: need.file, reason: `${path} ${need.what}, which your ${need.file} (kept) ${provided === undefined ? "is missing" : "does not have"}: ${remedy(need.file)}` });
      break;
    }
  }
  return blocked;
}

function remedy(file: string): string {
  return file === "package.json"
    ? "add it to package.json's scripts, then run upgrade again"
    : `bring ${file} up to date from a new scaffold (create-mcp-server <dir> with the same options), then run upgrade again`;
}
