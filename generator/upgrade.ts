/**
 * `create-mcp-server upgrade`, run inside a scaffolded project: bumps the runtime dependency (which carries the
 * project's generator, `create-mcp-server-generate`, and the rules data its tests read), prints the rule diff of
 * every revision that became available and offers to serve it, and re-renders the files the project has not changed
 * since they were scaffolded. A file the user changed is listed and never overwritten; nothing is deleted.
 *
 * What "not changed" means: the file's sha256 is the one recorded in .create-mcp-server.json when it was written.
 * A project scaffolded before that manifest existed is judged against generator/released-files.json, the hashes of
 * every version of the template files that earlier releases wrote.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { diffRules, formatDiff } from "./diff.js";
import { packageManagerCommands } from "./package-manager.js";
import { PROJECT_ROOT } from "./manifest.js";
import type { RulesData } from "./rules.js";
import { knownRevisions } from "./manifest.js";
import { SCAFFOLD_MANIFEST, scaffoldManifest, writeProject, type ScaffoldManifestData } from "./project-files.js";
import { CODEGEN_PACKAGE, RUNTIME_PACKAGE, ScaffoldError, TEMPLATES_DIR, defaultIo, listTemplates, renderProject, runStep, type Io, type TransportChoice } from "./scaffold.js";
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

export async function upgrade(dirArg: string, opts: UpgradeOptions, io: Io = defaultIo()): Promise<UpgradeResult> {
  const dir = resolve(dirArg);
  const pkgPath = join(dir, "package.json");
  const mcpPath = join(dir, "mcp.json");
  if (!existsSync(pkgPath) || !existsSync(mcpPath)) refuse(`${dir} has no package.json and mcp.json: run upgrade inside a project made by create-mcp-server`);
  const pkg = readJson<{ name: string; description?: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string>; scripts?: Record<string, string> }>(pkgPath);
  if (!pkg.dependencies?.[RUNTIME_PACKAGE]) refuse(`${pkgPath} does not depend on ${RUNTIME_PACKAGE}: not a project made by create-mcp-server`);
  const mcp = readJson<ProjectManifest>(mcpPath);
  const manifestPath = join(dir, SCAFFOLD_MANIFEST);
  const manifest = existsSync(manifestPath) ? readJson<ScaffoldManifestData>(manifestPath) : undefined;
  const released = manifest ? undefined : readJson<{ files: Record<string, string[]> }>(join(PROJECT_ROOT, "generator", "released-files.json")).files;
  /** The file as the scaffolder last wrote it (its sha256 is the recorded one): the user has not changed it. */
  const asScaffolded = (path: string, data: Buffer) => (manifest ? manifest.files[path] === sha256(data) : (released![path] ?? []).includes(sha256(data)));

  // ---- the revisions that became available, with their rule diff ----
  const rules = readJson<RulesData>(join(PROJECT_ROOT, "out", "rules.json"));
  const known = knownRevisions();
  const installedRules = join(dir, "node_modules", ...RUNTIME_PACKAGE.split("/"), "dist", "out", "rules.json");
  const legacyFacts = join(dir, "test", "revisions.json");
  // What the project knew: its manifest's record, else the installed runtime's rules data, else (a project from before
  // both) the revisions its frozen test facts covered, else the ones its mcp.json serves.
  const previous =
    manifest?.knownRevisions ??
    (existsSync(installedRules)
      ? readJson<RulesData>(installedRules).revisions.map((r) => r.id)
      : existsSync(legacyFacts)
        ? Object.keys(readJson<Record<string, unknown>>(legacyFacts)).filter((k) => !k.startsWith("$"))
        : (mcp.revisions ?? known));
  const added = known.filter((r) => !previous.includes(r));
  for (const r of added) {
    const before = known[known.indexOf(r) - 1];
    io.out(before ? `${formatDiff(diffRules(rules, before, r))}\n\n` : `revision ${r} is available\n\n`);
  }
  let served = (mcp.revisions ?? known).filter((r) => known.includes(r));
  let addToMcp = false;
  if (added.length && mcp.revisions) {
    const list = added.join(", ");
    if (opts.addRevisions) addToMcp = true;
    else if (io.tty && !process.env.CI) {
      const { confirm } = await import("@inquirer/prompts");
      addToMcp = await confirm({ message: `Serve ${list} too (add to mcp.json's "revisions")?`, default: true });
    }
    if (addToMcp) served = known.filter((r) => served.includes(r) || added.includes(r));
    else io.out(`Not added to mcp.json: ${list} (rerun with --add-revisions, or add ${added.length === 1 ? "it" : "them"} to "revisions" yourself)\n`);
  } else if (added.length) io.out(`mcp.json has no "revisions": the project serves every revision its runtime knows, ${added.join(", ")} included\n`);

  // ---- re-render, and write what the user has not changed ----
  const options = {
    dir,
    template: manifest?.options.template ?? inferTemplate(dir),
    transport: (manifest?.options.transport ?? (mcp.transports?.length === 1 ? mcp.transports[0] : "both")) as TransportChoice,
    auth: manifest?.options.auth ?? "none",
    revisions: served,
    name: manifest?.options.name ?? pkg.name,
    description: manifest?.options.description ?? pkg.description ?? "",
    install: opts.install ?? true,
    force: true,
    overwrite: false,
    runtime: opts.runtime,
    // The package manager the project was scaffolded for (npm before the manifest recorded it); upgrade never runs git.
    packageManager: manifest?.options.packageManager ?? "npm",
    git: false,
  };
  const { files, runtime, codegen } = await renderProject(options);
  const declared = new Set([
    ...(mcp.tools ?? []).map((t) => `src/tools/${fileStem(t.name)}.ts`),
    ...(mcp.prompts ?? []).map((p) => `src/prompts/${fileStem(p.name)}.ts`),
    ...[...(mcp.resources ?? []), ...(mcp.resourceTemplates ?? [])].map((r) => `src/resources/${fileStem(r.name)}.ts`),
  ]);
  const write: string[] = [];
  const changed: string[] = [];
  const keep: Record<string, string> = {};
  const skip = new Set<string>();
  for (const [path, data] of files) {
    if (path === SCAFFOLD_MANIFEST) continue;
    const target = join(dir, path);
    if (path.startsWith("vendor/")) {
      write.push(path); // the dependency itself: always the new one
      continue;
    }
    if (!existsSync(target)) {
      // A file the user deleted stays deleted; a handler is only added for what mcp.json declares.
      if (manifest?.files[path]) keep[path] = manifest.files[path];
      if (manifest?.files[path] || (HANDLER_DIRS.some((d) => path.startsWith(d)) && !declared.has(path))) skip.add(path);
      else write.push(path);
      continue;
    }
    const current = readFileSync(target);
    if (current.equals(data)) continue;
    if (asScaffolded(path, current)) write.push(path);
    else {
      changed.push(path);
      if (manifest?.files[path]) keep[path] = manifest.files[path];
      else skip.add(path); // never written by the scaffolder as it is now: the user's
    }
  }
  for (const path of skip) files.delete(path);

  // The user's package.json and mcp.json still get what the upgrade is for: the new runtime, the generate command
  // (a bin of the codegen package, no longer a copied script nor the runtime's), and the added revisions.
  const edited = new Map<string, Buffer>();
  if (changed.includes("package.json")) {
    const p = JSON.parse(readFileSync(pkgPath, "utf8")) as typeof pkg;
    p.dependencies![RUNTIME_PACKAGE] = runtime.spec;
    (p.devDependencies ??= {})[CODEGEN_PACKAGE] = codegen.spec;
    for (const [k, v] of Object.entries(p.scripts ?? {})) p.scripts![k] = v.replaceAll("node scripts/generate.mjs", "create-mcp-server-generate");
    edited.set("package.json", Buffer.from(JSON.stringify(p, null, 2) + "\n"));
  }
  if (addToMcp && changed.includes("mcp.json")) {
    const m = JSON.parse(readFileSync(mcpPath, "utf8")) as ProjectManifest;
    m.revisions = served;
    const prettier = await import("prettier");
    edited.set("mcp.json", Buffer.from(await prettier.format(JSON.stringify(m), { parser: "json", printWidth: 120 })));
  }
  writeProject(dir, files, write);
  writeProject(dir, edited);
  writeProject(dir, new Map([[SCAFFOLD_MANIFEST, await scaffoldManifest(options, files, keep)]]));

  const before = manifest ? Object.keys(manifest.files) : [...Object.keys(released!), ...LEGACY_GENERATED];
  const retired = before.filter((p) => !files.has(p) && !skip.has(p) && existsSync(join(dir, p)));
  const listed = (paths: string[]) => paths.map((p) => `  ${p}\n`).join("");
  io.out(
    `✔ Upgraded ${pkg.name} in ${dir} (runtime: ${runtime.describe}); ${write.length} file${write.length === 1 ? "" : "s"} written (the vendored packages included), serving ${served.join(", ")}\n`,
  );
  if (changed.length) {
    // Without a manifest, a file rendered from the project's options by an earlier release cannot be told from an edit.
    const why = manifest
      ? `you changed since ${changed.length === 1 ? "it was" : "they were"} scaffolded`
      : "that differ from every version earlier releases wrote (your changes, or rendered from your options before .create-mcp-server.json was kept)";
    io.out(
      `Kept ${changed.length} file${changed.length === 1 ? "" : "s"} ${why} (not overwritten${edited.size ? `; ${[...edited.keys()].join(" and ")} only updated where the upgrade needs it` : ""}):\n${listed(changed)}`,
    );
  }
  if (retired.length) io.out(`No longer used by the project (kept; delete them):\n${listed(retired)}`);
  if (opts.install ?? true) {
    const pm = packageManagerCommands(options.packageManager);
    await runStep(`Installing dependencies with ${pm.installLine}`, pm.bin, pm.install, dir, io);
    await runStep(`Regenerating generated/ with ${pm.run} generate`, pm.bin, ["run", "generate"], dir, io);
    io.out(`Next: npm run build && npm test\n`);
  } else io.out(`Next: npm install, then npm run build && npm test\n`);
  return { added, served, written: write, changed, retired };
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
