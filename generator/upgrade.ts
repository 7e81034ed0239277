/**
 * `create-mcp-server upgrade`, run inside a scaffolded project: moves the project to this command's runtime (which
 * carries the rules data its tests read) and codegen (`create-mcp-server-generate`), published or vendored, and
 * installs so that the lock file follows; prints the rule diff of every revision that became available and offers to
 * serve it; re-renders the files the project has not changed since they were scaffolded. A file the user changed is
 * listed and never overwritten, and a file that needs what a kept one lacks is left out (upgrade-needs.ts); nothing
 * of the user's is deleted (only the vendored tarballs it superseded).
 *
 * What "not changed" means: the file's sha256 is the one recorded in .create-mcp-server.json when it was written.
 * A project scaffolded before that manifest existed is judged against generator/released-files.json, the hashes of
 * every version of the template files that earlier releases wrote.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { diffRules, formatDiff } from "./diff.js";
import { packageManagerCommands } from "./package-manager.js";
import { PROJECT_ROOT } from "./manifest.js";
import type { RulesData } from "./rules.js";
import { knownRevisions } from "./manifest.js";
import { SCAFFOLD_MANIFEST, scaffoldManifest, writeProject, type ScaffoldManifestData } from "./project-files.js";
import { looksLikePath, type RuntimeDependency } from "./dependencies.js";
import { CODEGEN_PACKAGE, RUNTIME_PACKAGE, ScaffoldError, TEMPLATES_DIR, defaultIo, listTemplates, renderProject, runStep, type Io, type ResolvedOptions, type TransportChoice } from "./scaffold.js";
import { blockedWrites } from "./upgrade-needs.js";
import { sha256 } from "./sync.js";

export interface UpgradeOptions {
  /** As for scaffolding: a published version or range, or a runtime tarball or directory. Default: this checkout's runtime. */
  runtime?: string;
  /** Add every newly available revision to mcp.json's "revisions" without asking. */
  addRevisions?: boolean;
  install?: boolean;
}

export interface UpgradeResult {
  added: string[];
  served: string[];
  written: string[];
  /** Files the user changed since they were scaffolded: kept as they are. */
  changed: string[];
  /** Files an earlier release wrote that this one no longer does (kept; the project does not use them). */
  retired: string[];
  /** Files left out because a kept file lacks what they need (upgrade-needs.ts). */
  blocked: string[];
}

const refuse = (message: string): never => {
  throw new ScaffoldError(message);
};

/** Files earlier releases wrote that are not templates (generated at scaffold time), and that this one no longer writes. */
const LEGACY_GENERATED = ["test/revisions.json"];

/** The handler directories of src/: a handler file is only (re)added when the project's mcp.json declares it. */
const HANDLER_DIRS = ["src/tools/", "src/prompts/", "src/resources/"];

interface ProjectManifest {
  revisions?: string[];
  transports?: string[];
  tools?: { name: string }[];
  prompts?: { name: string }[];
  resources?: { name: string }[];
  resourceTemplates?: { name: string }[];
}

const readJson = <T>(path: string): T => {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch (err) {
    return refuse(`${path}: ${(err as Error).message}`);
  }
};

/** The template a project without a manifest was made from: the one most of whose own files it has. */
function inferTemplate(dir: string): string {
  const score = (t: string) => readdirSync(join(TEMPLATES_DIR, t), { recursive: true, encoding: "utf8" }).filter((f) => !f.endsWith(".hbs") && existsSync(join(dir, f))).length;
  return listTemplates().sort((a, b) => score(b) - score(a))[0];
}

const fileStem = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, "_");

interface Project {
  dir: string;
  pkg: PackageJson;
  mcp: ProjectManifest;
  manifest?: ScaffoldManifestData;
  /** Without a manifest: the sha256 of every version of each template file earlier releases wrote. */
  released?: Record<string, string[]>;
}

interface PackageJson {
  name: string;
  description?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

function readProject(dir: string): Project {
  const pkgPath = join(dir, "package.json");
  if (!existsSync(pkgPath) || !existsSync(join(dir, "mcp.json"))) refuse(`${dir} has no package.json and mcp.json: run upgrade inside a project made by create-mcp-server`);
  const pkg = readJson<PackageJson>(pkgPath);
  if (!pkg.dependencies?.[RUNTIME_PACKAGE]) refuse(`${pkgPath} does not depend on ${RUNTIME_PACKAGE}: not a project made by create-mcp-server`);
  const manifestPath = join(dir, SCAFFOLD_MANIFEST);
  const manifest = existsSync(manifestPath) ? readJson<ScaffoldManifestData>(manifestPath) : undefined;
  const released = manifest ? undefined : readJson<{ files: Record<string, string[]> }>(join(PROJECT_ROOT, "generator", "released-files.json")).files;
  return { dir, pkg, mcp: readJson<ProjectManifest>(join(dir, "mcp.json")), manifest, released };
}

/** The file as the scaffolder last wrote it (its sha256 is the recorded one): the user has not changed it. */
const asScaffolded = (p: Project, path: string, data: Buffer) => (p.manifest ? p.manifest.files[path] === sha256(data) : (p.released![path] ?? []).includes(sha256(data)));

/** The revisions that became available (each with its rule diff printed), and those the project will serve. */
async function newRevisions(p: Project, opts: UpgradeOptions, io: Io): Promise<{ added: string[]; served: string[]; addToMcp: boolean }> {
  const rules = readJson<RulesData>(join(PROJECT_ROOT, "out", "rules.json"));
  const known = knownRevisions();
  const installedRules = join(p.dir, "node_modules", ...RUNTIME_PACKAGE.split("/"), "dist", "out", "rules.json");
  const legacyFacts = join(p.dir, "test", "revisions.json");
  // What the project knew: its manifest's record, else the installed runtime's rules data, else (a project from before
  // both) the revisions its frozen test facts covered, else the ones its mcp.json serves.
  const previous =
    p.manifest?.knownRevisions ??
    (existsSync(installedRules)
      ? readJson<RulesData>(installedRules).revisions.map((r) => r.id)
      : existsSync(legacyFacts)
        ? Object.keys(readJson<Record<string, unknown>>(legacyFacts)).filter((k) => !k.startsWith("$"))
        : (p.mcp.revisions ?? known));
  const added = known.filter((r) => !previous.includes(r));
  for (const r of added) {
    const before = known[known.indexOf(r) - 1];
    io.out(before ? `${formatDiff(diffRules(rules, before, r))}\n\n` : `revision ${r} is available\n\n`);
  }
  const served = (p.mcp.revisions ?? known).filter((r) => known.includes(r));
  if (!added.length) return { added, served, addToMcp: false };
  if (!p.mcp.revisions) {
    io.out(`mcp.json has no "revisions": the project serves every revision its runtime knows, ${added.join(", ")} included\n`);
    return { added, served, addToMcp: false };
  }
  const list = added.join(", ");
  let addToMcp = Boolean(opts.addRevisions);
  if (!addToMcp && io.tty && !process.env.CI) {
    const { confirm } = await import("@inquirer/prompts");
    addToMcp = await confirm({ message: `Serve ${list} too (add to mcp.json's "revisions")?`, default: true });
  }
  if (!addToMcp) {
    io.out(`Not added to mcp.json: ${list} (rerun with --add-revisions, or add ${added.length === 1 ? "it" : "them"} to "revisions" yourself)\n`);
    return { added, served, addToMcp };
  }
  return { added, served: known.filter((r) => served.includes(r) || added.includes(r)), addToMcp };
}

/** The options the project was scaffolded with (its manifest's, else inferred), serving `served`. */
function projectOptions(p: Project, served: string[], opts: UpgradeOptions): ResolvedOptions {
  const m = p.manifest?.options;
  return {
    dir: p.dir,
    template: m?.template ?? inferTemplate(p.dir),
    transport: (m?.transport ?? (p.mcp.transports?.length === 1 ? p.mcp.transports[0] : "both")) as TransportChoice,
    auth: m?.auth ?? "none",
    revisions: served,
    name: m?.name ?? p.pkg.name,
    description: m?.description ?? p.pkg.description ?? "",
    install: opts.install ?? true,
    force: true,
    overwrite: false,
    runtime: opts.runtime,
    // The package manager the project was scaffolded for (npm before the manifest recorded it); upgrade never runs git.
    packageManager: m?.packageManager ?? "npm",
    git: false,
    telemetry: m?.telemetry === true,
  };
}

interface Plan {
  /** Files to write: absent ones, and those still as the scaffolder wrote them. */
  write: string[];
  /** Files the user changed: kept as they are. */
  changed: string[];
  /** Recorded hashes that stay (files the user changed or deleted stay theirs). */
  keep: Record<string, string>;
  /** Rendered files that are not written (deleted by the user, undeclared handlers, the user's own). */
  skip: Set<string>;
}

/** Which rendered files upgrade writes, and which it keeps as the user has them. */
function plan(p: Project, files: Map<string, Buffer>): Plan {
  const declared = new Set([
    ...(p.mcp.tools ?? []).map((t) => `src/tools/${fileStem(t.name)}.ts`),
    ...(p.mcp.prompts ?? []).map((t) => `src/prompts/${fileStem(t.name)}.ts`),
    ...[...(p.mcp.resources ?? []), ...(p.mcp.resourceTemplates ?? [])].map((r) => `src/resources/${fileStem(r.name)}.ts`),
  ]);
  const recorded = p.manifest?.files ?? {};
  const result: Plan = { write: [], changed: [], keep: {}, skip: new Set() };
  for (const [path, data] of files) {
    if (path === SCAFFOLD_MANIFEST) continue;
    const target = join(p.dir, path);
    if (path.startsWith("vendor/")) {
      // The dependency itself: always the new one (its name holds its digest: the same name, the same bytes).
      if (!existsSync(target) || !readFileSync(target).equals(data)) result.write.push(path);
      continue;
    }
    if (!existsSync(target)) {
      // A file the user deleted stays deleted; a handler is only added for what mcp.json declares.
      if (recorded[path]) result.keep[path] = recorded[path];
      if (recorded[path] || (HANDLER_DIRS.some((d) => path.startsWith(d)) && !declared.has(path))) result.skip.add(path);
      else result.write.push(path);
      continue;
    }
    const current = readFileSync(target);
    if (current.equals(data)) continue;
    if (asScaffolded(p, path, current)) result.write.push(path);
    else {
      result.changed.push(path);
      if (recorded[path]) result.keep[path] = recorded[path];
      else result.skip.add(path); // never written by the scaffolder as it is now: the user's
    }
  }
  return result;
}

/**
 * The user's package.json and mcp.json still get what the upgrade is for: the new runtime and codegen, the generate
 * command (the codegen's bin, no longer a copied script nor the runtime's), and the added revisions.
 */
async function editKept(p: Project, kept: string[], deps: { runtime: string; codegen: string }, served: string[] | undefined): Promise<Map<string, Buffer>> {
  const edited = new Map<string, Buffer>();
  if (kept.includes("package.json")) {
    const pkg = JSON.parse(readFileSync(join(p.dir, "package.json"), "utf8")) as PackageJson;
    pkg.dependencies![RUNTIME_PACKAGE] = deps.runtime;
    (pkg.devDependencies ??= {})[CODEGEN_PACKAGE] = deps.codegen;
    for (const [k, v] of Object.entries(pkg.scripts ?? {})) pkg.scripts![k] = v.replaceAll("node scripts/generate.mjs", "create-mcp-server-generate");
    // The upgrade itself runs `<pm> run generate` after installing: a package.json without that script gets it.
    (pkg.scripts ??= {}).generate ??= "create-mcp-server-generate";
    edited.set("package.json", Buffer.from(JSON.stringify(pkg, null, 2) + "\n"));
  }
  if (served && kept.includes("mcp.json")) {
    const m = JSON.parse(readFileSync(join(p.dir, "mcp.json"), "utf8")) as ProjectManifest;
    m.revisions = served;
    const prettier = await import("prettier");
    edited.set("mcp.json", Buffer.from(await prettier.format(JSON.stringify(m), { parser: "json", printWidth: 120 })));
  }
  return edited;
}

/**
 * Leave out the files that need something a kept file lacks (upgrade-needs.ts): one line each says why. A left-out
 * file that was there before keeps its recorded hash, so a later upgrade still sees it as the scaffolder's.
 */
function leaveOutBlocked(p: Project, files: Map<string, Buffer>, work: Plan, edited: Map<string, Buffer>, io: Io): string[] {
  const writes = new Map(work.write.filter((path) => !path.startsWith("vendor/")).map((path) => [path, files.get(path)!.toString("utf8")]));
  const final = (path: string) => (edited.get(path) ?? (writes.has(path) ? files.get(path) : existsSync(join(p.dir, path)) ? readFileSync(join(p.dir, path)) : undefined))?.toString("utf8");
  const blocked = blockedWrites(writes, new Set(work.changed), final, (path) => files.get(path)?.toString("utf8"));
  for (const b of blocked) {
    work.write.splice(work.write.indexOf(b.path), 1);
    if (p.manifest?.files[b.path]) work.keep[b.path] = p.manifest.files[b.path];
    else if (!existsSync(join(p.dir, b.path))) work.skip.add(b.path);
    io.out(`Not written: ${b.reason}\n`);
  }
  return blocked.map((b) => b.path);
}

/**
 * The vendored tarballs of our packages that package.json named before the upgrade and no longer does (superseded by
 * the ones just written). Only those: any other file in vendor/ is the user's, even one whose name looks like ours
 * (their own build of the runtime, say), and stays.
 */
function supersededTarballs(dir: string, before: PackageJson, specs: string[]): string[] {
  const vendored = (spec: string | undefined) => (spec?.startsWith("file:vendor/") ? spec.slice("file:".length) : undefined);
  const named = new Set(specs.map(vendored));
  const previous = [before.dependencies?.[RUNTIME_PACKAGE], before.devDependencies?.[CODEGEN_PACKAGE]].map(vendored);
  return previous.filter((f): f is string => f !== undefined && !f.includes("..") && !named.has(f) && existsSync(join(dir, f)));
}

/**
 * A registry spec must name a published version before anything is written: `npm view` in the project (its own npm
 * configuration and registry) must find the runtime and the codegen of it.
 */
async function checkPublished(spec: string, dir: string): Promise<void> {
  for (const name of [RUNTIME_PACKAGE, CODEGEN_PACKAGE]) {
    const found = await new Promise<string>((resolvePromise) =>
      execFile("npm", ["view", `${name}@${spec}`, "version", "--json"], { cwd: dir, encoding: "utf8" }, (err, stdout, stderr) =>
        resolvePromise(err ? `error: ${(stderr || err.message).split("\n").find((l) => l.trim()) ?? ""}` : stdout.trim()),
      ),
    );
    if (!found || found.startsWith("error:")) refuse(`--runtime ${spec}: no published version of ${name} matches it (${found ? found.slice(7) : "npm view found none"}); nothing was changed`);
  }
}

export async function upgrade(dirArg: string, opts: UpgradeOptions, io: Io = defaultIo()): Promise<UpgradeResult> {
  const p = readProject(resolve(dirArg));
  const dir = p.dir;
  if (opts.runtime !== undefined && !looksLikePath(opts.runtime)) await checkPublished(opts.runtime, dir);
  const { added, served, addToMcp } = await newRevisions(p, opts, io);
  const options = projectOptions(p, served, opts);
  const { files, runtime, codegen } = await renderProject(options);
  const work = plan(p, files);
  const edited = await editKept(p, work.changed, { runtime: runtime.spec, codegen: codegen.spec }, addToMcp ? served : undefined);
  const blocked = leaveOutBlocked(p, files, work, edited, io);
  for (const path of work.skip) files.delete(path);

  writeProject(dir, files, work.write);
  writeProject(dir, edited);
  writeProject(dir, new Map([[SCAFFOLD_MANIFEST, await scaffoldManifest(options, files, work.keep)]]));
  const superseded = supersededTarballs(dir, p.pkg, [runtime.spec, codegen.spec]);
  for (const f of superseded) rmSync(join(dir, f));

  const before = p.manifest ? Object.keys(p.manifest.files) : [...Object.keys(p.released!), ...LEGACY_GENERATED];
  const retired = before.filter((path) => !files.has(path) && !work.skip.has(path) && !blocked.includes(path) && existsSync(join(dir, path)));
  report(p, { runtime, codegen, served, work, edited, retired, superseded }, io);
  const pm = packageManagerCommands(options.packageManager);
  if (opts.install ?? true) {
    // The install makes the lock file follow package.json: a new version or a tarball of another name is resolved anew.
    await runStep(`Installing dependencies with ${pm.installLine}`, pm.bin, pm.installFresh, dir, io);
    await runStep(`Regenerating generated/ with ${pm.run} generate`, pm.bin, ["run", "generate"], dir, io);
    io.out(`✔ Upgraded ${p.pkg.name}. Next: ${pm.run} build && ${pm.test}\n`);
  } else io.out(`✔ Upgraded ${p.pkg.name}, not installed. Next: ${pm.installLine}, then ${pm.run} build && ${pm.test}\n`);
  return { added, served, written: work.write, changed: work.changed, retired, blocked };
}

function report(
  p: Project,
  r: { runtime: RuntimeDependency; codegen: RuntimeDependency; served: string[]; work: Plan; edited: Map<string, Buffer>; retired: string[]; superseded: string[] },
  io: Io,
): void {
  const listed = (paths: string[]) => paths.map((path) => `  ${path}\n`).join("");
  const n = r.work.write.length;
  const vendored = r.work.write.filter((path) => path.startsWith("vendor/")).length;
  const of = vendored ? ` (${vendored} of them vendored packages)` : "";
  io.out(`Upgrading ${p.pkg.name} in ${p.dir} (runtime: ${r.runtime.describe}; codegen: ${r.codegen.describe}): ${n} file${n === 1 ? "" : "s"} written${of}, serving ${r.served.join(", ")}\n`);
  if (r.superseded.length) io.out(`Removed the superseded vendored package${r.superseded.length === 1 ? "" : "s"}:\n${listed(r.superseded)}`);
  const changed = r.work.changed;
  if (changed.length) {
    // Without a manifest, a file rendered from the project's options by an earlier release cannot be told from an edit.
    const why = p.manifest
      ? `you changed since ${changed.length === 1 ? "it was" : "they were"} scaffolded`
      : "that differ from every version earlier releases wrote (your changes, or rendered from your options before .create-mcp-server.json was kept)";
    const only = r.edited.size ? `; ${[...r.edited.keys()].join(" and ")} only updated where the upgrade needs it` : "";
    io.out(`Kept ${changed.length} file${changed.length === 1 ? "" : "s"} ${why} (not overwritten${only}):\n${listed(changed)}`);
  }
  if (r.retired.length) io.out(`No longer used by the project (kept; delete them):\n${listed(r.retired)}`);
}

/** The command: `create-mcp-server upgrade [--runtime <spec>] [--add-revisions] [--no-install]`. */
export async function upgradeCommand(opts: UpgradeOptions & { dir?: string }): Promise<void> {
  const io = defaultIo();
  try {
    await upgrade(opts.dir ?? process.cwd(), opts, io);
  } catch (err) {
    if ((err as Error)?.name === "ExitPromptError") {
      io.err("create-mcp-server upgrade: cancelled\n");
      process.exit(1);
    }
    if (err instanceof ScaffoldError) {
      io.err(`create-mcp-server upgrade: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
