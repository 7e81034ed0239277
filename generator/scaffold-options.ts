/**
 * The scaffolder's choices: the options `create-mcp-server [dir]` takes, each checked (a refusal is one line naming
 * what is wrong and what is allowed), and the questions asked on a terminal for what the flags left open.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join, resolve } from "node:path";
import { PROJECT_ROOT, knownRevisions } from "./manifest.js";
import { resolvePackageManager, type PackageManager } from "./package-manager.js";
export const TEMPLATES_DIR = join(PROJECT_ROOT, "templates");
export const RUNTIME_DIR = join(PROJECT_ROOT, "runtime");
export const RUNTIME_PACKAGE = "@create-mcp-server/runtime";
export const CODEGEN_DIR = join(PROJECT_ROOT, "codegen");
export const CODEGEN_PACKAGE = "@create-mcp-server/codegen";
export const TRANSPORT_CHOICES = ["stdio", "http", "both"] as const;
export type TransportChoice = (typeof TRANSPORT_CHOICES)[number];
export const AUTH_CHOICES = ["none", "oauth"] as const;
export type AuthChoice = (typeof AUTH_CHOICES)[number];

export interface ScaffoldOptions {
  template?: string;
  transport?: string;
  /** "none" (default) or "oauth": the HTTP server verifies OAuth access tokens (spec/2025-11-25/basic/authorization.mdx). */
  auth?: string;
  /** Comma-separated list, or an array. Default: every revision the rules module knows. */
  revisions?: string | string[];
  name?: string;
  description?: string;
  yes?: boolean;
  install?: boolean;
  force?: boolean;
  /** With force: replace the files that differ from what the scaffolder writes (implies force). */
  overwrite?: boolean;
  runtime?: string;
  /** npm, pnpm or yarn; default: the one running this command (npm_config_user_agent), else npm. */
  packageManager?: string;
  /** false (`--no-git`): no `git init` and first commit. */
  git?: boolean;
  /** `--telemetry`: the OpenTelemetry Node SDK as a dependency (src/telemetry.ts starts it when OTEL_* or MCP_METRICS_PORT is set). */
  telemetry?: boolean;
  /** `--from-openapi <document>`: an API project (template openapi), one tool per operation of the document (docs/openapi.md). */
  fromOpenapi?: string;
  /** With fromOpenapi: comma-separated tags and operationIds to select by (generator/openapi/select.ts). */
  includeTags?: string;
  excludeOperations?: string;
}

/** The template of a project made --from-openapi: templates/_shared and templates/_openapi, its tools the document's. */
export const OPENAPI_TEMPLATE = "openapi";

/** A refusal: printed as one line, exit 1, nothing written. */
export class ScaffoldError extends Error {}

export const refuse = (message: string): never => {
  throw new ScaffoldError(message);
};

/** Template names: the folders of templates/ that do not start with `_`. */
export function listTemplates(): string[] {
  return readdirSync(TEMPLATES_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith("_") && !d.name.startsWith("."))
    .map((d) => d.name)
    .sort();
}

function validatePackageName(name: string): string[] {
  const validate = createRequire(import.meta.url)("validate-npm-package-name") as (n: string) => { validForNewPackages: boolean; errors?: string[]; warnings?: string[] };
  const r = validate(name);
  return r.validForNewPackages ? [] : [...(r.errors ?? []), ...(r.warnings ?? [])];
}

export interface ResolvedOptions {
  dir: string;
  template: string;
  transport: TransportChoice;
  auth: AuthChoice;
  revisions: string[];
  name: string;
  description: string;
  install: boolean;
  force: boolean;
  overwrite: boolean;
  runtime?: string;
  packageManager: PackageManager;
  git: boolean;
  telemetry: boolean;
}

/** Validate every choice; refuses with one line naming what is wrong and what is allowed. */
export function resolveOptions(dirArg: string | undefined, opts: ScaffoldOptions): ResolvedOptions {
  if (!dirArg) refuse("name the directory of the new project, e.g. `create-mcp-server my-server` (or run it on a terminal to be asked)");
  const dir = resolve(dirArg!);
  const templates = listTemplates();
  const template = opts.template ?? (opts.fromOpenapi ? OPENAPI_TEMPLATE : "basic");
  if (opts.fromOpenapi && template !== OPENAPI_TEMPLATE) refuse(`--from-openapi makes an API project of its own (the document's tools); it takes no --template`);
  if (!opts.fromOpenapi && (opts.includeTags !== undefined || opts.excludeOperations !== undefined))
    refuse(`--include-tags and --exclude-operations select the operations of --from-openapi <document>`);
  if (!templates.includes(template) && !(template === OPENAPI_TEMPLATE && opts.fromOpenapi)) refuse(`unknown template "${template}"; known templates: ${templates.join(", ")}`);
  const transport = (opts.transport ?? "both") as TransportChoice;
  if (!TRANSPORT_CHOICES.includes(transport)) refuse(`unknown transport "${opts.transport}"; choose one of: ${TRANSPORT_CHOICES.join(", ")}`);
  const auth = (opts.auth ?? "none") as AuthChoice;
  if (!AUTH_CHOICES.includes(auth)) refuse(`unknown --auth "${opts.auth}"; choose one of: ${AUTH_CHOICES.join(", ")}`);
  // Authorization is an HTTP concern: a stdio server takes its credentials from the environment and never runs OAuth.
  // spec/2025-11-25/basic/authorization.mdx#protocol-requirements
  if (auth === "oauth" && transport === "stdio") refuse(`--auth oauth needs the http transport (--transport http or both): a stdio server takes its credentials from the environment, never OAuth`);
  const known = knownRevisions();
  let revisions = known;
  if (opts.revisions !== undefined) {
    const asked = (Array.isArray(opts.revisions) ? opts.revisions : opts.revisions.split(",")).map((r) => r.trim()).filter(Boolean);
    if (asked.length === 1 && asked[0] === "all") revisions = known;
    else {
      const unknown = asked.filter((r) => !known.includes(r));
      if (unknown.length) refuse(`unknown revision${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}; known revisions: ${known.join(", ")}`);
      if (!asked.length) refuse(`--revisions needs at least one revision; known revisions: ${known.join(", ")}`);
      revisions = known.filter((r) => asked.includes(r));
    }
  }
  const pm = resolvePackageManager(opts.packageManager, process.env.npm_config_user_agent);
  if ("error" in pm) return refuse(pm.error);
  const name = opts.name ?? basename(dir);
  const problems = validatePackageName(name);
  if (problems.length) refuse(`"${name}" is not a valid npm package name: ${problems.join("; ")}${opts.name ? "" : " (use --name to choose another)"}`);
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) refuse(`${dir} exists and is not a directory`);
    if (readdirSync(dir).length && !opts.force && !opts.overwrite) refuse(`${dir} is not empty; choose another directory, or pass --force to write into it`);
  }
  return {
    dir,
    template,
    transport,
    auth,
    revisions,
    name,
    description: opts.description ?? defaultDescription(template),
    install: opts.install ?? true,
    force: (opts.force ?? false) || (opts.overwrite ?? false),
    overwrite: opts.overwrite ?? false,
    runtime: opts.runtime,
    packageManager: pm.packageManager,
    git: opts.git ?? true,
    telemetry: opts.telemetry === true,
  };
}

// ---- the runtime dependency ----

/** The description a project gets when none is given, with or without questions. */
function defaultDescription(template: string): string {
  if (template === OPENAPI_TEMPLATE) return "An MCP server for an API, its tools imported by create-mcp-server from the API's OpenAPI document";
  return `An MCP server scaffolded by create-mcp-server (${template} template)`;
}

/** Questions, asked only on a terminal, never in CI or with --yes, and only for what the flags left open. */
export async function ask(dirArg: string | undefined, opts: ScaffoldOptions): Promise<{ dir: string | undefined; opts: ScaffoldOptions }> {
  const { input, select, confirm } = await import("@inquirer/prompts");
  const next = { ...opts };
  let dir = dirArg;
  if (!dir) dir = await input({ message: "Project directory:", default: "my-mcp-server", validate: (v) => (v.trim() ? true : "a directory is needed") });
  if (!next.name) {
    const fallback = basename(resolve(dir));
    // The directory's name, unless npm would refuse it (as --yes says): then say why the default is another.
    const why = validatePackageName(fallback);
    const message = why.length ? `Package name (the directory's, ${JSON.stringify(fallback)}, is not one: ${why.join("; ")}):` : "Package name:";
    next.name = await input({ message, default: why.length ? "my-mcp-server" : fallback, validate: (v) => validatePackageName(v).join("; ") || true });
  }
  if (!next.template) {
    next.template = await select({
      message: "Template:",
      choices: listTemplates().map((t) => ({
        value: t,
        name: t,
        description: t === "everything" ? "the fixture of the official conformance suite: every feature" : t === "basic" ? "echo, a structured tool, a resource, a template and a prompt" : undefined,
      })),
    });
  }
  if (next.description === undefined) next.description = await input({ message: "Description:", default: defaultDescription(next.template ?? "basic") });
  if (!next.transport) {
    next.transport = await select({
      message: "Transport:",
      choices: [
        { value: "both", name: "both (stdio and Streamable HTTP)" },
        { value: "stdio", name: "stdio" },
        { value: "http", name: "Streamable HTTP" },
      ],
    });
  }
  if (!next.auth && next.transport !== "stdio") {
    next.auth = await select({
      message: "Authorization of the HTTP server:",
      choices: [
        { value: "none", name: "none (loopback only, or behind an authenticating proxy)" },
        { value: "oauth", name: "OAuth 2.1 resource server (access tokens of your authorization server)" },
      ],
    });
  }
  if (next.install === undefined) next.install = await confirm({ message: "Install dependencies now?", default: true });
  const target = resolve(dir);
  if (existsSync(target) && statSync(target).isDirectory() && readdirSync(target).length && !next.force) {
    next.force = await confirm({ message: `${target} is not empty. Write into it anyway?`, default: false });
    if (!next.force) refuse(`${target} is not empty; choose another directory, or pass --force to write into it`);
  }
  return { dir, opts: next };
}
