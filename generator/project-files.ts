/**
 * A rendered project on disk: how its files compare with what is there (so that --force never loses a user's
 * file), writing them, and the manifest of what the scaffolder wrote (so that `upgrade` re-renders only what the
 * user has not changed).
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PROJECT_ROOT, knownRevisions } from "./manifest.js";
import type { PackageManager } from "./package-manager.js";
import type { AuthChoice, ResolvedOptions, TransportChoice } from "./scaffold-options.js";
import { sha256 } from "./sync.js";

/** What the scaffolder wrote, for `create-mcp-server upgrade`: a file whose sha256 is still this one is not the user's. */
export const SCAFFOLD_MANIFEST = ".create-mcp-server.json";

export interface ScaffoldManifestData {
  $comment?: string;
  /** The create-mcp-server version that last wrote the project. */
  version: string;
  options: { template: string; transport: TransportChoice; auth?: AuthChoice; telemetry?: boolean; revisions: string[]; name: string; description: string; packageManager?: PackageManager };
  /** The revisions the runtime knew when the project was last written (the ones upgrade finds new are the others). */
  knownRevisions: string[];
  /** Project path → sha256 of the content the scaffolder wrote (vendored runtimes excluded: upgrade replaces them). */
  files: Record<string, string>;
}

/** The manifest, formatted as the project's other JSON files are (prettier, width 120; only its JSON plugins are loaded). */
export async function scaffoldManifest(
  o: Pick<ResolvedOptions, "template" | "transport" | "auth" | "revisions" | "name" | "description" | "packageManager"> & { telemetry?: boolean },
  files: Map<string, Buffer>,
  keep: Record<string, string> = {},
): Promise<Buffer> {
  const own = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string };
  const data: ScaffoldManifestData = {
    $comment: "Written by create-mcp-server: the sha256 of every file as it was scaffolded. `npx create-mcp-server upgrade` re-renders only the files still so, and lists the others. Keep this file.",
    version: own.version,
    // auth and telemetry only when chosen: the manifests of projects without them stay as they were.
    options: {
      template: o.template,
      transport: o.transport,
      ...(o.auth === "oauth" ? { auth: o.auth } : {}),
      ...(o.telemetry ? { telemetry: true } : {}),
      revisions: o.revisions,
      name: o.name,
      description: o.description,
      packageManager: o.packageManager,
    },
    knownRevisions: knownRevisions(),
    // `keep`: files whose recorded hash stays (upgrade: the ones the user changed or deleted stay theirs).
    files: Object.fromEntries(
      [...new Set([...files.keys(), ...Object.keys(keep)])]
        .filter((path) => path !== SCAFFOLD_MANIFEST && !path.startsWith("vendor/"))
        .sort()
        .map((path) => [path, keep[path] ?? sha256(files.get(path)!)]),
    ),
  };
  const [prettier, ...plugins] = await Promise.all([import("prettier/standalone"), import("prettier/plugins/estree"), import("prettier/plugins/babel")]);
  return Buffer.from(await prettier.format(JSON.stringify(data), { parser: "json", printWidth: 120, plugins: plugins as unknown as import("prettier").Plugin[] }));
}

/**
 * How the rendered files compare with what is in `dir`: `write` the files that are absent or differ, `differ` the
 * ones that exist with other content (a user's edit, or another template's or option's version), `blocked` the
 * paths that are a directory or lie under a file, so that no file can be written there.
 */
export function planWrite(dir: string, files: Map<string, Buffer>): { write: string[]; differ: string[]; same: string[]; blocked: string[] } {
  const plan = { write: [] as string[], differ: [] as string[], same: [] as string[], blocked: [] as string[] };
  for (const [rel, data] of files) {
    const target = join(dir, rel);
    let parent = dirname(target);
    while (parent.length > dir.length && !existsSync(parent)) parent = dirname(parent);
    if (existsSync(parent) && !statSync(parent).isDirectory()) plan.blocked.push(rel);
    else if (!existsSync(target)) plan.write.push(rel);
    else if (!statSync(target).isFile()) plan.blocked.push(rel);
    else if (readFileSync(target).equals(data)) plan.same.push(rel);
    else {
      plan.differ.push(rel);
      plan.write.push(rel);
    }
  }
  return plan;
}

/** Write the rendered files (those named by `only`, default all) into `dir` (created if needed). Nothing is deleted. */
export function writeProject(dir: string, files: Map<string, Buffer>, only: Iterable<string> = files.keys()): void {
  for (const rel of only) {
    const target = join(dir, rel);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, files.get(rel)!);
  }
}
