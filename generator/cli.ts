/**
 * The `create-mcp-server` command line (commander).
 *
 *   create-mcp-server [dir] [--template …]   scaffold a server project (generator/scaffold.ts)
 *   create-mcp-server upgrade                in a project: new runtime, new revisions, re-rendered files (generator/upgrade.ts)
 *   create-mcp-server add tool|prompt|resource NAME   in a project: declare one, its handler and test (generator/add-feature.ts)
 *   create-mcp-server import openapi DOCUMENT         in a project: add or refresh the tools of an OpenAPI document (generator/openapi/)
 *   create-mcp-server generate [--check]     schemas → out/
 *   create-mcp-server schemas sync           fetch and verify the pinned schemas, spec pages and examples
 *   create-mcp-server schemas pin            (maintainers) re-pin the spec pages and examples from a mirror
 *   create-mcp-server schemas add <rev>      add a new revision and print its rule diff
 *   create-mcp-server rules diff <a> <b>     what changed between two revisions
 *   create-mcp-server rules show [rev]       the rules of one revision
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Command, CommanderError } from "commander";
import { PROJECT_ROOT } from "./manifest.js";

const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string };

function fail(err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`create-mcp-server: ${message.split("\n")[0]}\n`);
  process.exit(1);
}

/**
 * The maintainers' generator (`generate`, `schemas add`) needs the repository's development dependencies (ts-morph,
 * json-schema-to-typescript, ajv), which an installed create-mcp-server does not carry: say so in one line.
 */
async function maintainerModule<T>(load: () => Promise<T>, command: string): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if ((err as { code?: string }).code !== "ERR_MODULE_NOT_FOUND") throw err;
    return fail(`'${command}' is a maintainer's command: run it in a clone of create-mcp-server after \`npm install\` (${(err as Error).message.split("\n")[0]})`);
  }
}

export function buildProgram(): Command {
  const program = new Command("create-mcp-server")
    .description("Scaffold and generate spec-exact, dual-era MCP servers from the official schemas")
    .version(pkg.version, "-v, --version")
    .showHelpAfterError()
    // A subcommand's own options (upgrade's --no-install, --runtime) are its own, not the scaffolding ones.
    .enablePositionalOptions();

  program
    .command("generate")
    .description("generate types, validators, error tables and the revision rules module into out/")
    .option("--check", "exit non-zero and name the stale files when out/ differs from what the schemas produce")
    .option("--out <dir>", "output directory", join(PROJECT_ROOT, "out"))
    .option("--schemas <dir>", "directory with manifest.json and <revision>/schema.{ts,json}", join(PROJECT_ROOT, "schemas"))
    .option("--verbose", "print where the time goes")
    .action(async (opts: { check?: boolean; out: string; schemas: string; verbose?: boolean }) => {
      const { generate } = await maintainerModule(() => import("./generate.js"), "generate");
      const t0 = performance.now();
      // A render loads the development dependencies (prettier, ajv, ts-morph) only now: their absence is said the same way.
      const { stale, count, generated } = await maintainerModule(() => generate({ check: opts.check, outDir: opts.out, schemasDir: opts.schemas }), "generate");
      const ms = performance.now() - t0;
      if (opts.verbose) {
        if (!generated) process.stdout.write(`  stamp       ${ms.toFixed(0)} ms (out/stamp.json is for these inputs: nothing rendered)\n`);
        else for (const [k, v] of Object.entries(generated.timings)) process.stdout.write(`  ${k.padEnd(11)} ${v.toFixed(0)} ms\n`);
      }
      if (opts.check) {
        if (stale.length) {
          process.stderr.write(`create-mcp-server: out/ is stale; run 'npm run generate' (in this clone). Stale files:\n${stale.map((s) => `  ${s}`).join("\n")}\n`);
          process.exit(1);
        }
        process.stdout.write(`out/ is up to date (${count} files)\n`);
        return;
      }
      if (!generated) return void process.stdout.write(`out/ is up to date (${count} files): nothing to generate\n`);
      process.stdout.write(`generated ${count} files for ${generated.rules.revisions.map((r) => r.id).join(", ")} in ${(ms / 1000).toFixed(1)} s\n`);
    });

  program
    .command("upgrade")
    .description(
      "run inside a project: bump its runtime (and generator), print the rule diff of each revision that became available and offer to serve it, regenerate, and re-render the files you have not changed since they were scaffolded (changed ones are listed, never overwritten)",
    )
    .option("--runtime <spec>", "runtime to depend on, as when scaffolding; a version also sets the codegen's (default: this checkout's runtime and codegen, packed into vendor/)")
    .option("--add-revisions", 'add every newly available revision to mcp.json\'s "revisions" without asking (without a terminal they are only added with this flag)')
    .option("--no-install", "do not run npm install and npm run generate")
    .option("--dir <dir>", "the project (default: the current directory)")
    .action(async (opts: { runtime?: string; addRevisions?: boolean; install: boolean; dir?: string }) => {
      const { upgradeCommand } = await import("./upgrade.js");
      await upgradeCommand(opts);
    });

  program
    .command("add <kind> <name>")
    .description(
      "run inside a project: declare a tool, prompt or resource (kind: tool, prompt or resource) in mcp.json, write its handler file and a test to start from, and regenerate; an existing or invalid name is refused",
    )
    .option("--dir <dir>", "the project (default: the current directory or the nearest one above with an mcp.json)")
    .action(async (kind: string, name: string, opts: { dir?: string }) => {
      const { addCommand } = await import("./add-feature.js");
      const { ScaffoldError } = await import("./scaffold-options.js");
      try {
        process.exitCode = addCommand(kind, name, opts);
      } catch (err) {
        if (err instanceof ScaffoldError) fail(err.message);
        throw err;
      }
    });

  program
    .command("import <kind> <document>")
    .description(
      "run inside a project: add or refresh one tool per operation of an OpenAPI 3.0/3.1 document (kind: openapi; a path or an http(s) URL) in mcp.json, src/api/operations.ts and src/tools/, keeping your own tools and every handler you edited, and print the tools added, changed and removed (docs/openapi.md)",
    )
    .option("--include-tags <tags>", "only the operations with one of these comma-separated tags")
    .option("--exclude-operations <ids>", "leave out these comma-separated operationIds")
    .option("--dir <dir>", "the project (default: the current directory)")
    .action(async (kind: string, document: string, opts: { dir?: string; includeTags?: string; excludeOperations?: string }) => {
      const { importCommand } = await import("./openapi/command.js");
      const { ScaffoldError } = await import("./scaffold-options.js");
      try {
        process.stdout.write((await importCommand(kind, document, opts)).join("\n") + "\n");
      } catch (err) {
        if (err instanceof ScaffoldError) fail(err.message);
        throw err;
      }
    });

  const schemas = program.command("schemas").description("manage the pinned official schemas");
  schemas
    .command("sync")
    .description("fill schemas/ with the pinned schemas, spec pages and examples from --mirror DIR or MCP_SCHEMA_MIRROR, else download the pinned URLs; every file is checked against its sha256")
    .option("--mirror <dir>", "local schemas mirror laid out as <revision>/schema.{ts,json}, with the spec pages in <dir>/../spec/<revision>/")
    .option("--schemas <dir>", "target schemas directory (with manifest.json)", join(PROJECT_ROOT, "schemas"))
    .action(async (opts: { mirror?: string; schemas: string }) => {
      const { syncSchemas } = await import("./sync.js");
      const { loadManifest } = await import("./manifest.js");
      const result = await syncSchemas(loadManifest(join(opts.schemas, "manifest.json")), { mirror: opts.mirror, schemasDir: opts.schemas });
      process.stdout.write(`schemas: ${result.written.length} written, ${result.unchanged.length} already verified\n`);
    });
  schemas
    .command("pin")
    .description("(maintainers) rebuild the pinned spec pages, examples and draft schema in manifest.json from --mirror DIR or MCP_SCHEMA_MIRROR, and list what changed")
    .option("--mirror <dir>", "local schemas mirror, with the spec pages in <dir>/../spec/")
    .option("--schemas <dir>", "schemas directory (with manifest.json)", join(PROJECT_ROOT, "schemas"))
    .action(async (opts: { mirror?: string; schemas: string }) => {
      const { pinFiles } = await import("./pin.js");
      process.stdout.write(pinFiles({ schemasDir: opts.schemas, mirror: opts.mirror }) + "\n");
    });
  schemas
    .command("add <revision>")
    .description("add a new revision (era inferred from the schema), regenerate, and print the rule diff against the previous revision")
    .requiredOption("--from <dir|url>", "directory or base URL holding schema.ts and schema.json of the revision")
    .option("--url <base-url>", "pinned upstream base URL recorded in the manifest (default: --from when it is a URL; required when --from is a directory)")
    .option("--schemas <dir>", "schemas directory (with manifest.json)", join(PROJECT_ROOT, "schemas"))
    .option("--out <dir>", "output directory", join(PROJECT_ROOT, "out"))
    .action(async (revision: string, opts: { from: string; url?: string; schemas: string; out: string }) => {
      const { addRevision } = await maintainerModule(() => import("./add.js"), "schemas add");
      process.stdout.write((await addRevision(revision, opts.from, { schemasDir: opts.schemas, outDir: opts.out, url: opts.url })) + "\n");
    });

  const rules = program.command("rules").description("read the generated revision rules");
  rules
    .command("diff <from> <to>")
    .description(
      "print what changed between two revisions: requests, input requests, notifications, error codes, capabilities, _meta keys, cacheable and input_required methods, prose rules, definitions and fields",
    )
    .option("--out <dir>", "generated output directory", join(PROJECT_ROOT, "out"))
    .action(async (from: string, to: string, opts: { out: string }) => {
      const { diffRules, formatDiff } = await import("./diff.js");
      process.stdout.write(formatDiff(diffRules(readRules(opts.out), from, to)) + "\n");
    });
  rules
    .command("show [revision]")
    .description("print the methods, error codes and prose rules of one revision (default: all revisions, as JSON)")
    .option("--out <dir>", "generated output directory", join(PROJECT_ROOT, "out"))
    .action(async (revision: string | undefined, opts: { out: string }) => {
      const data = readRules(opts.out);
      if (!revision) return void process.stdout.write(JSON.stringify(data.revisions, null, 2) + "\n");
      if (!data.revisions.some((r) => r.id === revision)) fail(`unknown revision ${revision}; known: ${data.revisions.map((r) => r.id).join(", ")}`);
      const era = data.revisions.find((r) => r.id === revision)!.era;
      const lines = [`revision ${revision} (${era})`, "methods:"];
      for (const [m, rule] of Object.entries(data.methods)) if (rule.byRevision[revision]) lines.push(`  ${m}  ${rule.byRevision[revision].kind} ${rule.byRevision[revision].directions.join(", ")}`);
      lines.push("error codes:");
      for (const [n, list] of Object.entries(data.errorCodes)) for (const c of list) if (c.revisions.includes(revision)) lines.push(`  ${n} ${c.code}  (${c.source})`);
      lines.push("prose rules:");
      for (const [n, p] of Object.entries(data.prose)) lines.push(`  ${n} = ${JSON.stringify(p.byRevision[revision])}`);
      process.stdout.write(lines.join("\n") + "\n");
    });

  program
    .argument("[dir]", "directory of the new server project (create-mcp-server my-server)")
    .option("-t, --template <name>", "project template: basic or everything (the conformance fixture)", "basic")
    .option("--transport <kind>", "stdio, http or both", "both")
    .option("--auth <kind>", "none, or oauth: the HTTP server is an OAuth 2.1 resource server (issuer from MCP_AUTH_ISSUER at start; scopes per tool in mcp.json)", "none")
    .option("--revisions <list>", "comma-separated MCP revisions to serve (default: all)")
    .option("--name <name>", "npm package name (default: the directory's name)")
    .option("--description <text>", "package description")
    .option("-y, --yes", "ask no questions; use the flags and defaults")
    .option("--no-install", "do not run npm install")
    .option("--force", "write into a non-empty directory: add the missing files, keep identical ones; refuses (writing nothing) if a file differs, listing it")
    .option("--overwrite", "with --force, replace the files that differ from what would be written (listed); nothing is ever deleted")
    .option(
      "--runtime <spec>",
      "runtime to depend on: a published version, range or tag (the codegen devDependency then takes the same one), or a path to a runtime tarball or directory (default: this checkout's runtime and codegen, packed into vendor/)",
    )
    .option("--package-manager <pm>", "npm, pnpm or yarn, to install with and to name in the next steps, README and CI workflow (default: the one running this command, else npm)")
    .option("--no-git", "do not run git init and make a first commit")
    .option("--from-openapi <document>", "an API project: one tool per operation of this OpenAPI 3.0/3.1 document (a path or an http(s) URL), each calling the API (docs/openapi.md)")
    .option("--include-tags <tags>", "with --from-openapi: only the operations with one of these comma-separated tags")
    .option("--exclude-operations <ids>", "with --from-openapi: leave out these comma-separated operationIds")
    .option("--telemetry", "add the OpenTelemetry Node SDK: OTEL_EXPORTER_OTLP_ENDPOINT sends traces and metrics over OTLP/HTTP, MCP_METRICS_PORT serves Prometheus /metrics (off unless set)")
    .allowUnknownOption(false)
    .action(async (dir: string | undefined, opts: Record<string, unknown>, command: Command) => {
      // `create-mcp-server help` asks for help, and a mistyped command is not a project name.
      if (dir === "help") return program.help();
      const { scaffoldCommand } = await import("./scaffold.js");
      // Only flags given on the command line count as answers: the rest may be asked on a terminal.
      const given = Object.fromEntries(Object.entries(opts).filter(([k]) => command.getOptionValueSource(k) === "cli"));
      await scaffoldCommand(dir, given);
    });
  return program;
}

const COMMANDS = ["generate", "upgrade", "add", "import", "schemas", "rules", "help"];

/**
 * The word commander takes as the command or the project directory: the first argument that is neither one of the
 * root's options nor the value of one.
 */
function firstOperand(program: Command, args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") return args[i + 1];
    if (!arg.startsWith("-") || arg === "-") return arg;
    if (arg.includes("=")) continue;
    // `--runtime 1.2.3` takes the next argument; `-tbasic`, `--name=x` and flags do not.
    if (program.options.find((o) => o.long === arg || o.short === arg)?.required) i++;
  }
  return undefined;
}

/**
 * A mistyped command is not a project name: refuse it with one line and a suggestion, before commander parses the
 * rest (which would otherwise report the command's own arguments or options as excess, followed by the help).
 */
function refuseMistypedCommand(program: Command, args: string[]): void {
  const word = firstOperand(program, args);
  if (!word || word.includes("/") || COMMANDS.includes(word)) return;
  // Two edits of a three-letter command reach ordinary project names (`app`, `api` from `add`): one there.
  const near = COMMANDS.find((c) => editDistance(c, word) <= (c.length <= 3 ? 1 : 2));
  if (near && !existsSync(word)) fail(`'${word}' is not a command (did you mean '${near}'?); to create a project with that name, pass ./${word}`);
}

/** Levenshtein distance, for "did you mean" on a mistyped command. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

function readRules(outDir: string) {
  try {
    return JSON.parse(readFileSync(join(outDir, "rules.json"), "utf8")) as import("./rules.js").RulesData;
  } catch {
    fail(`${join(outDir, "rules.json")}: not found; run 'create-mcp-server generate' first`);
  }
}

export async function main(argv = process.argv): Promise<void> {
  const program = buildProgram();
  program.exitOverride();
  refuseMistypedCommand(program, argv.slice(2));
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode);
    fail(err);
  }
}
