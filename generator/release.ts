/**
 * The release command of the maintainers: `npm run release -- [--registry <url>] [--version <semver>] [--tag <tag>]
 * [--no-build] [--provenance] [--dry-run]`.
 *
 * The three packages are released in lockstep, at one version: `@create-mcp-server/runtime`, then
 * `@create-mcp-server/codegen` (a project's generator, in its devDependencies), then `create-mcp-server` (the command),
 * last, so that no published command ever names packages that are not on the registry yet. A scaffolded project
 * depends on the runtime and the codegen of the command's own version.
 *
 * Steps: set the version in each package.json (and the codegen's peer range on the runtime) → move each CHANGELOG.md's
 * `## Unreleased` section under the version → build → `npm pack` each package (scripts off: it was just built) →
 * check each tarball holds what it must and nothing it must not → `npm publish` the tarballs. A version already on
 * the registry with the same tarball is skipped (a release that failed half-way can be run again); with another
 * tarball it is refused, as a registry never replaces a published version.
 *
 * The registry is npm's configured one unless `--registry` names another (the tests publish to a local registry on
 * 127.0.0.1 with this same command); credentials are npm's own (`npm login`, or a token in .npmrc). `--provenance`
 * (default: on in a GitHub Actions job that may request an OIDC token) asks npm for a provenance statement, which
 * only a CI that can attest the build and a registry that supports it accept.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { PROJECT_ROOT } from "./manifest.js";

export interface ReleasePackage {
  /** The package's folder, relative to the repository. */
  dir: string;
  name: string;
  /** Paths the tarball must hold (relative to its package/ folder). */
  required: string[];
  /** Path prefixes the tarball must not hold: what the package needs only in the repository. */
  forbidden: string[];
}

/** In publication order: what a package needs is published before it. */
export const PACKAGES: ReleasePackage[] = [
  { dir: "runtime", name: "@create-mcp-server/runtime", required: ["dist/index.js", "dist/index.d.ts", "dist/out/rules.json", "CHANGELOG.md"], forbidden: ["src/", "bin/"] },
  { dir: "codegen", name: "@create-mcp-server/codegen", required: ["mcp.schema.json", "CHANGELOG.md"], forbidden: ["src/", "test/"] },
  {
    dir: ".",
    name: "create-mcp-server",
    required: ["bin/create-mcp-server.js", "dist/cli.js", "dist/scaffold.js", "dist/upgrade.js", "templates/_shared/package.json.hbs", "out/rules.json", "schemas/manifest.json", "CHANGELOG.md"],
    forbidden: ["runtime/", "codegen/", "test/", "node_modules/", "generator/cli.ts", "dist/release.js"],
  },
];

/** Semantic Versioning 2.0.0 (semver.org's own pattern): no leading zeros, no empty identifiers, which npm refuses. */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** Whether `version` is a semantic version npm publishes. */
export const isSemver = (version: string): boolean => SEMVER.test(version);

/**
 * The dist-tag a release is published under: `--tag`, else `latest` for a release and `next` for a prerelease, so
 * that `npx create-mcp-server` (latest) never gets a release candidate nobody asked for. npm itself refuses a
 * prerelease without a tag, but this command always passes one.
 */
export function distTag(version: string, tag: string | undefined): string {
  return tag ?? (/^[^+]*-/.test(version) ? "next" : "latest");
}

export class ReleaseError extends Error {}

export interface ReleaseOptions {
  /** The repository (default: this one). */
  root?: string;
  registry?: string;
  version?: string;
  tag?: string;
  build?: boolean;
  provenance?: boolean;
  dryRun?: boolean;
  out?: (line: string) => void;
  /** The date a CHANGELOG section is headed with (YYYY-MM-DD; default today, UTC). */
  date?: string;
}

export interface Published {
  name: string;
  version: string;
  tarball: string;
  integrity: string;
  skipped: boolean;
}

function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(command, args, { cwd, encoding: "utf8", maxBuffer: 64 << 20, env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false" } }, (err, stdout, stderr) => {
      if (err) reject(new ReleaseError(`${command} ${args.join(" ")} (in ${cwd}) failed: ${(stderr || stdout || err.message).trim().split("\n").slice(-5).join(" / ")}`));
      else resolvePromise(stdout);
    });
  });
}

const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown> & { version: string };
const writeJson = (path: string, data: unknown) => writeFileSync(path, JSON.stringify(data, null, 2) + "\n");

/**
 * `text` (a package.json) with the first `"key": "…"` of each pair set to its value, so the file keeps its own layout;
 * the result must parse to `expected`, else it is written out plainly.
 */
function edited(text: string, expected: unknown, pairs: readonly (readonly [string, string])[]): string {
  let out = text;
  for (const [key, value] of pairs) out = out.replace(new RegExp(`("${key.replace(/[/\\^$.*+?()[\]{}|-]/g, "\\$&")}"\\s*:\\s*)"[^"]*"`), `$1${JSON.stringify(value)}`);
  try {
    if (JSON.stringify(JSON.parse(out)) === JSON.stringify(expected)) return out;
  } catch {
    // fall through
  }
  return JSON.stringify(expected, null, 2) + "\n";
}

/** Set `version` in every package.json, the codegen's peer range on the runtime, and the lock file's root entry. */
export function setVersions(root: string, version: string, write = true): boolean {
  let changed = false;
  for (const p of PACKAGES) {
    const path = join(root, p.dir, "package.json");
    const pkg = readJson(path);
    const peers = pkg.peerDependencies as Record<string, string> | undefined;
    const range = peers?.["@create-mcp-server/runtime"];
    // Keep the range's operator (^, ~ or none): the lockstep is the version, not the operator.
    const peer = range === undefined ? undefined : `${/^[\^~]/.exec(range)?.[0] ?? ""}${version}`;
    if (pkg.version === version && range === peer) continue;
    changed = true;
    if (!write) continue;
    pkg.version = version;
    if (peers && peer) peers["@create-mcp-server/runtime"] = peer;
    writeFileSync(path, edited(readFileSync(path, "utf8"), pkg, [["version", version], ...(peer ? ([["@create-mcp-server/runtime", peer]] as const) : [])]));
  }
  if (!write) return changed;
  const lockPath = join(root, "package-lock.json");
  try {
    const lock = readJson(lockPath) as { version: string; packages?: Record<string, { version?: string }> };
    if (lock.version !== version) {
      lock.version = version;
      if (lock.packages?.[""]) lock.packages[""].version = version;
      writeJson(lockPath, lock);
    }
  } catch {
    // No lock file: nothing to keep in step.
  }
  return changed;
}

/**
 * Move the `## Unreleased` section of `text` (a CHANGELOG.md) under `## <version> (<date>)`, leaving an empty
 * `## Unreleased` above it. A CHANGELOG that already has the version's section is returned as it is; one whose
 * Unreleased section is empty is refused: a release says what changed, and what `upgrade` does about it.
 */
export function changelogFor(text: string, version: string, date: string, file: string): string {
  const lines = text.split("\n");
  if (lines.some((l) => l.startsWith(`## ${version} `) || l === `## ${version}`)) return text;
  const start = lines.findIndex((l) => /^## Unreleased\s*$/i.test(l));
  if (start < 0) throw new ReleaseError(`${file}: no '## Unreleased' section to release as ${version}`);
  const next = lines.findIndex((l, i) => i > start && /^## /.test(l));
  const body = lines.slice(start + 1, next < 0 ? undefined : next);
  if (!body.some((l) => l.trim())) throw new ReleaseError(`${file}: nothing under '## Unreleased' for ${version}: write what changed, and what \`upgrade\` does about it`);
  return [...lines.slice(0, start), "## Unreleased", "", `## ${version} (${date})`, ...body, ...(next < 0 ? [] : lines.slice(next))].join("\n");
}

interface Packed {
  filename: string;
  integrity: string;
  files: { path: string }[];
}

async function pack(root: string, p: ReleasePackage, dest: string): Promise<Packed> {
  const [packed] = JSON.parse(await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dest], join(root, p.dir))) as Packed[];
  const paths = packed.files.map((f) => f.path);
  const missing = p.required.filter((r) => !paths.includes(r));
  if (missing.length) throw new ReleaseError(`${p.name}: the tarball lacks ${missing.join(", ")} (was the build run?)`);
  const stray = paths.filter((f) => p.forbidden.some((x) => f.startsWith(x)));
  if (stray.length)
    throw new ReleaseError(`${p.name}: the tarball holds ${stray.slice(0, 5).join(", ")}${stray.length > 5 ? ", …" : ""}, which only the repository needs (its "files" in package.json)`);
  return { ...packed, filename: join(dest, packed.filename) };
}

/** The integrity of `name@version` on the registry, or undefined when that version is not there. */
async function publishedIntegrity(name: string, version: string, registry: string | undefined, cwd: string): Promise<string | undefined> {
  try {
    const out = await run("npm", ["view", `${name}@${version}`, "dist.integrity", "--json", ...(registry ? ["--registry", registry] : [])], cwd);
    return out.trim() ? (JSON.parse(out) as string) : undefined;
  } catch (err) {
    if (/\bE?404\b|is not in this registry/.test((err as Error).message)) return undefined;
    throw err;
  }
}

/** Release every package (see the module comment). Returns what was published, or would be with `dryRun`. */
export async function release(options: ReleaseOptions = {}): Promise<Published[]> {
  const root = resolve(options.root ?? PROJECT_ROOT);
  const out = options.out ?? ((line: string) => process.stdout.write(line + "\n"));
  const version = options.version ?? readJson(join(root, "package.json")).version;
  if (!isSemver(version)) throw new ReleaseError(`--version ${version}: not a semantic version (e.g. 0.2.0 or 0.2.0-rc.1)`);
  const date = options.date ?? new Date().toISOString().slice(0, 10);
  const provenance = options.provenance ?? (process.env.GITHUB_ACTIONS === "true" && Boolean(process.env.ACTIONS_ID_TOKEN_REQUEST_URL));

  // Notes first: a release without them stops before anything is changed.
  const changelogs = PACKAGES.map((p) => {
    const file = join(root, p.dir, "CHANGELOG.md");
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      throw new ReleaseError(`${join(p.dir, "CHANGELOG.md")}: missing; every package keeps one`);
    }
    return { file, before: text, after: changelogFor(text, version, date, join(p.dir, "CHANGELOG.md")) };
  });
  // The runtime reports its version (RUNTIME_VERSION), set when it is built.
  if (options.build === false && setVersions(root, version, false)) throw new ReleaseError(`the version changes to ${version}: the packages must be built again (leave out --no-build)`);
  if (options.dryRun) out(`dry run: would release ${PACKAGES.map((p) => p.name).join(", ")} at ${version}`);
  else {
    setVersions(root, version);
    for (const c of changelogs) if (c.after !== c.before) writeFileSync(c.file, c.after);
  }
  if (options.build !== false) {
    out("building (npm run build)");
    await run("npm", ["run", "build"], root);
  }
  const dest = mkdtempSync(join(tmpdir(), "create-mcp-server-release-"));
  try {
    const packed: { p: ReleasePackage; tarball: Packed }[] = [];
    for (const p of PACKAGES) packed.push({ p, tarball: await pack(root, p, dest) });
    const published: Published[] = [];
    for (const { p, tarball } of packed) {
      const existing = await publishedIntegrity(p.name, version, options.registry, root);
      if (existing && existing !== tarball.integrity) throw new ReleaseError(`${p.name}@${version} is already on the registry with other contents; release another version`);
      const entry = { name: p.name, version, tarball: tarball.filename, integrity: tarball.integrity, skipped: Boolean(existing) };
      published.push(entry);
      if (existing) out(`${p.name}@${version}: already on the registry with this tarball; skipped`);
      else if (options.dryRun) out(`${p.name}@${version}: would publish ${tarball.files.length} files under the dist-tag ${distTag(version, options.tag)}`);
      else {
        const args = ["publish", tarball.filename, "--access", "public", "--ignore-scripts", "--tag", distTag(version, options.tag)];
        if (options.registry) args.push("--registry", options.registry);
        if (provenance) args.push("--provenance");
        await run("npm", args, root);
        out(`${p.name}@${version}: published under the dist-tag ${distTag(version, options.tag)} (${tarball.files.length} files${provenance ? ", with provenance" : ""})`);
      }
    }
    return published;
  } finally {
    rmSync(dest, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      registry: { type: "string" },
      version: { type: "string" },
      tag: { type: "string" },
      "no-build": { type: "boolean" },
      provenance: { type: "boolean" },
      "dry-run": { type: "boolean" },
    },
    strict: true,
  });
  try {
    await release({ registry: values.registry, version: values.version, tag: values.tag, build: !values["no-build"], provenance: values.provenance, dryRun: values["dry-run"] });
  } catch (err) {
    if (!(err instanceof ReleaseError)) throw err;
    process.stderr.write(`release: ${err.message}\n`);
    process.exit(1);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(PROJECT_ROOT, "generator", "release.ts")) await main();
