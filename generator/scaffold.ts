/**
 * `create-mcp-server [dir]`: scaffold a typed, schema-first MCP server project
 * from the Handlebars templates under templates/ (templates/_shared plus
 * templates/<template>, the latter winning), formatted with prettier.
 *
 * Everything is decided and rendered in memory first: a refusal (non-empty
 * directory, invalid package name, unknown template, transport or revision)
 * is one line on stderr, a non-zero exit, and nothing written. The choices and
 * their checks are scaffold-options.ts's; this module renders, writes and installs.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import Handlebars from "handlebars";
import { clientConfig, clientConfigLines } from "./client-config.js";
import { initRepository } from "./git.js";
import { PROJECT_ROOT } from "./manifest.js";
import { listFiles, packRuntime } from "./pack.js";
import { packageManagerCommands } from "./package-manager.js";
import { planWrite, SCAFFOLD_MANIFEST, scaffoldManifest, writeProject } from "./project-files.js";
import { RUNTIME_DIR, RUNTIME_PACKAGE, ScaffoldError, TEMPLATES_DIR, ask, refuse, resolveOptions, type ResolvedOptions, type ScaffoldOptions } from "./scaffold-options.js";

// The choices are scaffold-options.ts's; importers of this module see them here too.
export * from "./scaffold-options.js";

export interface RuntimeDependency {
  /** The dependency spec written into package.json. */
  spec: string;
  /** Files to write into the project (a vendored tarball), path → bytes. */
  files: Map<string, Buffer>;
  describe: string;
}

const looksLikePath = (s: string) => /^(file:|\.{0,2}\/|[A-Za-z]:\\)/.test(s) || s.endsWith(".tgz");

/**
 * Which runtime the project depends on:
 * - `--runtime <version|range|tag>`: the published package;
 * - `--runtime <path/to/runtime.tgz | file:dir>`: that tarball (copied into vendor/) or directory;
 * - otherwise, from a checkout with a built runtime (runtime/dist): this checkout's runtime, packed into vendor/;
 * - otherwise the published package of the same version as this command.
 */
export function runtimeDependency(runtime: string | undefined): RuntimeDependency {
  const files = new Map<string, Buffer>();
  if (runtime !== undefined) {
    if (!looksLikePath(runtime)) return { spec: runtime, files, describe: `${RUNTIME_PACKAGE}@${runtime} from the registry` };
    const path = resolve(runtime.replace(/^file:/, ""));
    if (!existsSync(path)) refuse(`--runtime ${runtime}: ${path} does not exist`);
    if (statSync(path).isDirectory()) return { spec: `file:${path}`, files, describe: `${RUNTIME_PACKAGE} linked from ${path}` };
    const target = `vendor/${basename(path)}`;
    files.set(target, readFileSync(path));
    return { spec: `file:${target}`, files, describe: `${RUNTIME_PACKAGE} from ${target} (copied from ${path})` };
  }
  const pkgPath = join(RUNTIME_DIR, "package.json");
  if (existsSync(pkgPath)) {
    const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { version: string };
    if (!existsSync(join(RUNTIME_DIR, "dist", "index.js"))) {
      refuse(`the runtime in ${RUNTIME_DIR} is not built: run \`npm run build\` in ${PROJECT_ROOT} first, or pass --runtime <version> to use the published package`);
    }
    const tarball = packRuntime(RUNTIME_DIR);
    const target = `vendor/create-mcp-server-runtime-${pkg.version}.tgz`;
    files.set(target, tarball);
    return { spec: `file:${target}`, files, describe: `${RUNTIME_PACKAGE} ${pkg.version} as bundled with create-mcp-server, packed into ${target}` };
  }
  const own = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string };
  return { spec: `^${own.version}`, files, describe: `${RUNTIME_PACKAGE}@^${own.version} from the registry` };
}

// ---- rendering ----

const handlebars = Handlebars.create();
handlebars.registerHelper("json", (value: unknown) => JSON.stringify(value));
handlebars.registerHelper("eq", (a: unknown, b: unknown) => a === b);

/**
 * Output path of a template file: `.hbs` dropped; `gitignore` → `.gitignore` (npm strips dot-files named so from
 * packages), and `dockerignore` → `.dockerignore` likewise, so that every dot-file of a project is kept the same way.
 */
function outputPath(rel: string): string {
  const path = rel.replace(/\.hbs$/, "");
  return path.replace(/(^|\/)(gitignore|dockerignore)$/, "$1.$2");
}

const PRETTIER_PARSERS: Record<string, string> = { ts: "typescript", mjs: "babel", js: "babel", json: "json", md: "markdown" };

export interface RenderedProject {
  files: Map<string, Buffer>;
  context: Record<string, unknown>;
  runtime: RuntimeDependency;
}

/** Render the project in memory (nothing is written). */
export async function renderProject(o: ResolvedOptions): Promise<RenderedProject> {
  const runtime = runtimeDependency(o.runtime);
  const transports = o.transport === "both" ? ["stdio", "http"] : [o.transport];
  const pm = packageManagerCommands(o.packageManager);
  const context: Record<string, unknown> = {
    name: o.name,
    description: o.description,
    template: o.template,
    revisions: o.revisions,
    transports,
    transportList: transports.join("|"),
    stdio: transports.includes("stdio"),
    http: transports.includes("http"),
    both: transports.length === 2,
    auth: o.auth === "oauth",
    runtimeDependency: runtime.spec,
    runtimeDescription: runtime.describe,
    // The Dockerfile copies vendor/ before installing when package.json names a tarball there.
    vendoredRuntime: runtime.spec.startsWith("file:vendor/"),
    clientConfig: clientConfig(o.name, o.transport, `/path/to/${basename(o.dir)}`).json,
    inspectorCommand: clientConfig(o.name, o.transport, `/path/to/${basename(o.dir)}`).inspector,
    packageManager: o.packageManager,
    npm: o.packageManager === "npm",
    pmInstall: pm.installLine,
    pmRun: pm.run,
    pmTest: pm.test,
    aboutText: `${o.name}: ${o.description}. Generated by create-mcp-server; serves MCP ${o.revisions.join(", ")}.`,
  };
  const sources = new Map<string, string>(); // output path → template file
  for (const layer of ["_shared", o.template]) {
    const base = join(TEMPLATES_DIR, layer);
    for (const rel of listFiles(base)) sources.set(outputPath(rel), join(base, rel));
  }
  // prettier's standalone build with the four plugins needed loads in a fraction of the time of its full entry point.
  const [prettier, ...plugins] = await Promise.all([
    import("prettier/standalone"),
    import("prettier/plugins/typescript"),
    import("prettier/plugins/estree"),
    import("prettier/plugins/babel"),
    import("prettier/plugins/markdown"),
  ]);
  const files = new Map<string, Buffer>();
  for (const [out, src] of [...sources].sort(([a], [b]) => (a < b ? -1 : 1))) {
    let text = readFileSync(src, "utf8");
    if (src.endsWith(".hbs")) {
      text = handlebars.compile(text, { noEscape: true, strict: true })(context);
      // A conditional template that renders to nothing is not written.
      if (!text.trim()) continue;
    }
    // Plain template files are kept prettier-formatted in the repository (a test checks it) and copied as they are.
    // package.json gets prettier's own parser for it (every object expanded, as npm writes it).
    const parser = !src.endsWith(".hbs") ? undefined : basename(out) === "package.json" ? "json-stringify" : PRETTIER_PARSERS[out.split(".").pop()!];
    if (parser) {
      try {
        text = await prettier.format(text, { parser, printWidth: 120, plugins: plugins as unknown as import("prettier").Plugin[] });
      } catch (err) {
        throw new Error(`template ${relative(TEMPLATES_DIR, src)}: output is not valid ${parser}: ${(err as Error).message.split("\n")[0]}`, { cause: err });
      }
    }
    files.set(out, Buffer.from(text));
  }
  // The project's tests read each revision's rules from the installed runtime's rules data (its "./rules.json"), so
  // a runtime upgrade brings them; nothing of the rules is frozen into the project.
  files.set(SCAFFOLD_MANIFEST, await scaffoldManifest(o, files));
  for (const [path, data] of runtime.files) files.set(path, data);
  return { files, context, runtime };
}

// ---- the command ----

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  tty: boolean;
}

export const defaultIo = (): Io => ({
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  tty: Boolean(process.stdout.isTTY && process.stdin.isTTY),
});

/** Run a command in `cwd`, showing a spinner with the elapsed time on a terminal; its output is shown if it fails. */
export function runStep(label: string, command: string, args: string[], cwd: string, io: Io): Promise<void> {
  const t0 = performance.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_fund: "false", npm_config_audit: "false", npm_config_update_notifier: "false" } });
    let output = "";
    child.stdout!.on("data", (c: Buffer) => (output += c));
    child.stderr!.on("data", (c: Buffer) => (output += c));
    const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
    let i = 0;
    const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
    const timer = io.tty ? setInterval(() => io.out(`\r${frames[i++ % frames.length]} ${label} (${elapsed()})`), 100) : undefined;
    if (!io.tty) io.out(`${label}...\n`);
    child.on("error", (err) => {
      if (timer) clearInterval(timer);
      reject(new ScaffoldError(`${command} ${args[0]} could not be started: ${err.message}`));
    });
    child.on("close", (code) => {
      if (timer) clearInterval(timer);
      if (code === 0) {
        io.out(`${io.tty ? "\r" : ""}✔ ${label} (${elapsed()})${io.tty ? "\x1b[K" : ""}\n`);
        resolvePromise();
      } else {
        io.out(io.tty ? "\n" : "");
        io.err(output);
        reject(new ScaffoldError(`${command} ${args[0]} failed (exit code ${code}; its output is above)`));
      }
    });
  });
}

export { clientConfig } from "./client-config.js";

/** `dir` as a user types it from here: relative inside the current directory, absolute where that would climb out (../../tmp/x). */
function shownDir(dir: string): string {
  const rel = relative(process.cwd(), dir) || ".";
  return rel.split(/[\\/]/)[0] === ".." ? dir : rel;
}

/** What to do next, and a client configuration to paste. */
export function nextSteps(o: ResolvedOptions, installed: boolean): string {
  const rel = shownDir(o.dir);
  const pm = packageManagerCommands(o.packageManager);
  const pad = (command: string) => `  ${command.padEnd(19)}`;
  const lines = [``, `Created ${o.name} in ${o.dir} (template ${o.template}, transport ${o.transport}${o.auth === "oauth" ? ", OAuth" : ""}, revisions ${o.revisions.join(", ")}).`, ``, `Next:`];
  lines.push(`  cd ${rel.includes(" ") ? JSON.stringify(rel) : rel}`);
  if (!installed) lines.push(`  ${pm.installLine}`);
  lines.push(`${pad(`${pm.run} build`)}# mcp.json → generated/, then tsc → dist/`, `${pad(pm.test)}# starts the built server and checks it in every revision it serves`);
  if (o.transport !== "http") lines.push(`${pad(pm.start)}# serve over stdio`);
  if (o.transport !== "stdio" && o.auth === "oauth")
    lines.push(`  MCP_AUTH_ISSUER=https://auth.example.com ${pm.start} ${pm.argsSeparator}--transport http   # tokens of that issuer, for http://127.0.0.1:3000/mcp`);
  else if (o.transport !== "stdio") lines.push(`  ${pm.start} ${pm.argsSeparator}--transport http --port 3000   # serve Streamable HTTP at http://127.0.0.1:3000/mcp`);
  lines.push(`${pad(`${pm.run} dev`)}# regenerate, type-check and rebuild on every change${o.transport === "stdio" ? ", with the MCP Inspector" : ", restarting the HTTP server"}`);
  lines.push(``, `Add a tool: declare it in mcp.json, run \`${pm.run} generate\`, implement src/tools/<name>.ts, \`${pm.run} build\`.`, ``);
  lines.push(...clientConfigLines(o.name, o.transport, o.dir, pm));
  return lines.join("\n") + "\n";
}

/** Scaffold without questions: validate, render, write, and (unless install is false) install. */
export async function scaffold(dirArg: string | undefined, opts: ScaffoldOptions, io: Io = defaultIo()): Promise<{ options: ResolvedOptions; files: string[]; ms: number }> {
  const t0 = performance.now();
  const o = resolveOptions(dirArg, opts);
  const { files, runtime } = await renderProject(o);
  // Into a non-empty directory (--force), files already as the scaffolder writes them are left alone, absent ones
  // are added, and one that differs (a user's mcp.json or handler, or another template's) is only replaced with
  // --overwrite: without it the run refuses, naming them, and writes nothing. No file is ever deleted.
  const plan = planWrite(o.dir, files);
  const listed = (paths: string[]) => paths.map((p) => `  ${p}\n`).join("");
  if (plan.blocked.length)
    refuse(`cannot write ${plan.blocked.length} file${plural(plan.blocked)} in ${o.dir}: a directory or a file is in the way; nothing was written:\n${listed(plan.blocked).trimEnd()}`);
  if (plan.differ.length && !o.overwrite) {
    refuse(
      `${plan.differ.length} file${plural(plan.differ)} in ${o.dir} differ${plan.differ.length === 1 ? "s" : ""} from what create-mcp-server would write; nothing was written. ` +
        `Pass --overwrite to replace ${plan.differ.length === 1 ? "it" : "them"} (no other file is changed or deleted):\n${listed(plan.differ).trimEnd()}`,
    );
  }
  writeProject(o.dir, files, plan.write);
  const ms = performance.now() - t0;
  if (plan.differ.length) io.out(`Overwrote ${plan.differ.length} file${plural(plan.differ)} that differed (--overwrite):\n${listed(plan.differ)}`);
  // A replaced mcp.json no longer declares the handlers of the project it replaced: those files are kept (nothing
  // is deleted), but a handler of an undeclared tool, prompt or resource fails the build, so name them.
  if (plan.differ.includes("mcp.json")) {
    const handlers = ["src/tools", "src/prompts", "src/resources"].flatMap((d) => (existsSync(join(o.dir, d)) ? listFiles(join(o.dir, d)).map((f) => `${d}/${f}`) : []));
    const foreign = handlers.filter((f) => !files.has(f));
    if (foreign.length)
      io.out(
        `Kept ${foreign.length} handler file${plural(foreign)} that the new mcp.json may not declare (delete or declare ${foreign.length === 1 ? "it" : "them"} before \`npm run build\`):\n${listed(foreign)}`,
      );
  }
  const kept = plan.same.length ? `; ${plan.same.length} already as the scaffolder writes them` : "";
  io.out(`✔ Wrote ${plan.write.length} files to ${o.dir} in ${ms.toFixed(0)} ms (runtime: ${runtime.describe}${kept})\n`);
  if (o.install) {
    try {
      const pm = packageManagerCommands(o.packageManager);
      await runStep(`Installing dependencies with ${pm.installLine}`, pm.bin, pm.install, o.dir, io);
    } catch (err) {
      // The project is written and a plain rerun would refuse its now non-empty directory: say how to go on.
      const rel = shownDir(o.dir);
      refuse(
        `${(err as Error).message}; the project's files are written in ${o.dir}\n` +
          `To retry, fix the cause shown above, then run \`${packageManagerCommands(o.packageManager).installLine}\` in ${rel.includes(" ") ? JSON.stringify(rel) : rel}, or rerun this command with --force (add --overwrite if you change an option)`,
      );
    }
  }
  // After the install, so that the first commit has the lock file.
  if (o.git) {
    const git = initRepository(o.dir);
    io.out(git.committed ? `✔ Initialized a git repository with a first commit (${git.commit})\n` : `Not initializing git: ${git.reason}\n`);
  }
  io.out(nextSteps(o, o.install));
  return { options: o, files: [...files.keys()], ms };
}

const plural = (list: unknown[]) => (list.length === 1 ? "" : "s");

/** The default command: `create-mcp-server [dir] [options]`. */
export async function scaffoldCommand(dir: string | undefined, opts: ScaffoldOptions = {}): Promise<void> {
  const io = defaultIo();
  try {
    let d = dir;
    let o = opts;
    if (io.tty && !opts.yes && !process.env.CI) ({ dir: d, opts: o } = await ask(dir, opts));
    await scaffold(d, o, io);
  } catch (err) {
    if ((err as Error)?.name === "ExitPromptError") {
      io.err("create-mcp-server: cancelled; nothing was written\n");
      process.exit(1);
    }
    if (err instanceof ScaffoldError) {
      io.err(`create-mcp-server: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
