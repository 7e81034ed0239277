#!/usr/bin/env node
// Run the pinned official MCP conformance suite (@modelcontextprotocol/conformance,
// a devDependency of the repo root) against a running server and score it per scenario.
//
//   node test/conformance/run-conformance.mjs --url http://127.0.0.1:PORT/mcp \
//     --requirements 2025-11-25 --out DIR [--expected-failures FILE] [--timeout MS] [--verbose]
//
// What it does
// 1. `conformance list --requirements R` gives the scored server scenarios of revision R
//    and the server scenarios that are run but never scored (extension / pending / ...).
// 2. `conformance server --url U --requirements R -o DIR` runs all of them at R's wire.
//    Its full output is saved to DIR/conformance-server-R.log (also echoed with --verbose).
// 3. Each scenario's DIR/server-<scenario>-<time>/checks.json written by this run is read.
//    A scenario PASSES when its checks.json exists, no check has status FAILURE, and at
//    least one scenario-specific check (anything but the generic `wire-schema-valid`) is
//    SUCCESS. That is stricter than the suite's own verdict (no FAILURE): against a closed
//    port some SHOULD-level scenarios report only WARNINGs and would otherwise "pass".
//    A scenario that crashed writes no folder and counts as failed.
// 4. Exit status is 1 when a scored scenario fails and is not listed in the expected-failures
//    JSON file ({"<scenario>": "one-line reason"}), when a listed scenario passes (remove it:
//    the file only shrinks), or when a listed name is not a scenario of this run.
//    Failures of not-scored scenarios are reported but never affect the exit status, unless
//    they are listed and pass.
//
// On Node < 22 the CLI cannot start (it imports globSync from node:fs); it is then run with
// `--import ./node20/register.mjs`, an ESM resolve hook that gives the conformance package a
// node:fs with globSync. No network is used except by the suite talking to --url.

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const GENERIC_CHECKS = new Set(["wire-schema-valid"]);
const RESULT_DIR_RE =
  /^server-(.+)-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)$/;

function usage(message) {
  if (message) console.error(`run-conformance: ${message}`);
  console.error(
    "usage: node test/conformance/run-conformance.mjs --url URL --requirements REVISION --out DIR\n" +
      "         [--expected-failures FILE.json] [--timeout MS] [--verbose]",
  );
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { verbose: false };
  const takesValue = new Map([
    ["--url", "url"],
    ["--requirements", "requirements"],
    ["--out", "out"],
    ["--expected-failures", "expectedFailures"],
    ["--timeout", "timeout"],
  ]);
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    let inline;
    const eq = arg.indexOf("=");
    if (arg.startsWith("--") && eq > 0) {
      inline = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    if (arg === "--verbose") opts.verbose = true;
    else if (arg === "--help" || arg === "-h") usage();
    else if (takesValue.has(arg)) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "") usage(`${arg} needs a value`);
      opts[takesValue.get(arg)] = value;
    } else usage(`unknown argument: ${arg}`);
  }
  for (const required of ["url", "requirements", "out"]) {
    if (!opts[required]) usage(`--${required} is required`);
  }
  if (!/^\d{4}-\d{2}-\d{2}$/.test(opts.requirements))
    usage("--requirements takes one revision date, e.g. 2025-11-25");
  if (opts.timeout !== undefined && !/^\d+$/.test(opts.timeout))
    usage("--timeout takes milliseconds");
  return opts;
}

function locateCli() {
  const require = createRequire(import.meta.url);
  let pkgJson;
  try {
    pkgJson = require.resolve("@modelcontextprotocol/conformance/package.json");
  } catch {
    console.error(
      "run-conformance: @modelcontextprotocol/conformance is not installed (run npm install)",
    );
    process.exit(2);
  }
  const pkg = JSON.parse(fs.readFileSync(pkgJson, "utf8"));
  return {
    cli: path.join(path.dirname(pkgJson), pkg.bin.conformance),
    version: pkg.version,
  };
}

function nodeArgs() {
  // node:fs.globSync exists from Node 22; older Node needs the resolve hook.
  return typeof fs.globSync === "function"
    ? []
    : [
        "--import",
        pathToFileURL(path.join(HERE, "node20", "register.mjs")).href,
      ];
}

function runCli(cli, args, { logFile, echo } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs(), cli, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    });
    const log = logFile ? fs.createWriteStream(logFile) : null;
    let output = "";
    const onData = (stream) => (chunk) => {
      output += chunk;
      log?.write(chunk);
      if (echo) stream.write(chunk);
    };
    child.stdout.on("data", onData(process.stdout));
    child.stderr.on("data", onData(process.stderr));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const done = () => resolve({ code, signal, output });
      if (log) log.end(done);
      else done();
    });
  });
}

// Parse `conformance list --requirements R`: the "Server scenarios" block is scored;
// entries "- name [server]" under "Run and reported, but never scored" are not.
function parseRequirementList(text) {
  const scored = [];
  const notScored = new Map(); // name -> reason
  let section = null;
  let reason = null;
  for (const line of text.split("\n")) {
    if (/^Server scenarios/.test(line)) section = "server";
    else if (/^Client scenarios/.test(line)) section = "client";
    else if (/^Run and reported, but never scored/.test(line))
      section = "notScored";
    else if (section === "server") {
      const m = /^ {2}- (\S+)\s*$/.exec(line);
      if (m) scored.push(m[1]);
    } else if (section === "notScored") {
      const head = /^ {2}(\S[^(]*?) \(\d+\):\s*$/.exec(line);
      const item = /^ {4}- (\S+) \[(\w+)\]\s*$/.exec(line);
      if (head) reason = head[1];
      else if (item && item[2] === "server")
        notScored.set(item[1], reason ?? "not scored");
    }
  }
  return { scored, notScored };
}

function readExpectedFailures(file) {
  if (!file) return new Map();
  let data;
  try {
    data = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    console.error(
      `run-conformance: cannot read expected failures ${file}: ${err.message}`,
    );
    process.exit(2);
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) {
    console.error(
      `run-conformance: ${file} must be a JSON object {"<scenario>": "reason"}`,
    );
    process.exit(2);
  }
  const map = new Map();
  for (const [scenario, reason] of Object.entries(data)) {
    if (typeof reason !== "string" || reason.trim() === "") {
      console.error(
        `run-conformance: ${file}: "${scenario}" needs a one-line reason string`,
      );
      process.exit(2);
    }
    map.set(scenario, reason);
  }
  return map;
}

function evaluate(checksFile) {
  let checks;
  try {
    checks = JSON.parse(fs.readFileSync(checksFile, "utf8"));
    if (!Array.isArray(checks)) throw new Error("not an array");
  } catch (err) {
    return {
      passed: false,
      problem: `unreadable checks.json (${err.message})`,
      counts: {},
    };
  }
  const counts = { SUCCESS: 0, FAILURE: 0, WARNING: 0, OTHER: 0 };
  for (const c of checks) {
    if (c.status in counts) counts[c.status]++;
    else counts.OTHER++;
  }
  const failures = checks.filter((c) => c.status === "FAILURE");
  const specificSuccess = checks.some(
    (c) => c.status === "SUCCESS" && !GENERIC_CHECKS.has(c.id),
  );
  const warnings = checks.filter((c) => c.status === "WARNING");
  // A scenario whose every own check the suite reports SKIPPED (e.g. tasks-status-notifications, "pending rewrite")
  // proves nothing either way: SKIP, neither a pass nor a failure.
  const own = checks.filter((c) => !GENERIC_CHECKS.has(c.id));
  if (
    failures.length === 0 &&
    own.length > 0 &&
    own.every((c) => c.status === "SKIPPED")
  ) {
    return {
      passed: false,
      skipped: true,
      problem: "every scenario-specific check is SKIPPED upstream",
      counts,
      upstreamPass: true,
    };
  }
  let problem;
  if (failures.length > 0) {
    const f = failures[0];
    problem = `${f.id}: ${oneLine(f.errorMessage || f.description || "failed")}`;
    if (failures.length > 1)
      problem += ` (+${failures.length - 1} more failing check(s))`;
  } else if (!specificSuccess) {
    const w = warnings[0];
    problem = w
      ? `no scenario-specific check succeeded; ${w.id}: ${oneLine(w.errorMessage || w.description || "warning")}`
      : "no scenario-specific check succeeded";
  }
  return {
    passed: !problem,
    problem,
    counts,
    upstreamPass: failures.length === 0,
  };
}

function oneLine(s) {
  const t = String(s).replace(/\s+/g, " ").trim();
  return t.length > 200 ? `${t.slice(0, 197)}...` : t;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { cli, version } = locateCli();
  const outDir = path.resolve(opts.out);
  fs.mkdirSync(outDir, { recursive: true });
  const expected = readExpectedFailures(opts.expectedFailures);

  const listed = await runCli(cli, [
    "list",
    "--requirements",
    opts.requirements,
  ]);
  if (listed.code !== 0) {
    process.stderr.write(listed.output);
    console.error(
      `run-conformance: conformance list --requirements ${opts.requirements} failed`,
    );
    process.exit(2);
  }
  const { scored, notScored } = parseRequirementList(listed.output);
  if (scored.length === 0) {
    console.error(
      `run-conformance: no server scenarios found for requirements ${opts.requirements}`,
    );
    process.exit(2);
  }

  const before = new Set(fs.readdirSync(outDir));
  const logFile = path.join(
    outDir,
    `conformance-server-${opts.requirements}.log`,
  );
  const args = [
    "server",
    "--url",
    opts.url,
    "--requirements",
    opts.requirements,
    "--output-dir",
    outDir,
  ];
  if (opts.timeout) args.push("--timeout", opts.timeout);
  console.log(`conformance ${version}: server ${args.slice(1).join(" ")}`);
  const started = Date.now();
  const run = await runCli(cli, args, { logFile, echo: opts.verbose });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `suite exited with ${run.signal ?? run.code} after ${seconds}s; log: ${logFile}\n`,
  );

  // Result folders written by this run, newest per scenario.
  const resultDirs = new Map();
  for (const name of fs.readdirSync(outDir).sort()) {
    if (before.has(name)) continue;
    const m = RESULT_DIR_RE.exec(name);
    if (m && fs.existsSync(path.join(outDir, name, "checks.json")))
      resultDirs.set(m[1], path.join(outDir, name));
  }

  const problems = [];
  const tally = { passed: 0, failed: 0 };
  const report = (scenario, isScored, note) => {
    const dir = resultDirs.get(scenario);
    const r = dir
      ? evaluate(path.join(dir, "checks.json"))
      : {
          passed: false,
          problem:
            "no results written (scenario crashed or did not run; see log)",
          counts: {},
        };
    const c = r.counts;
    const countText = dir
      ? ` [${c.SUCCESS ?? 0} ok, ${c.FAILURE ?? 0} failed, ${c.WARNING ?? 0} warnings]`
      : "";
    const reason = expected.get(scenario);
    let tag;
    if (r.skipped) {
      tag = "SKIP ";
    } else if (r.passed) {
      tag = reason !== undefined ? "XPASS" : "PASS ";
      if (reason !== undefined)
        problems.push(
          `${scenario} passes but is listed in expected failures: remove it`,
        );
    } else if (reason !== undefined) {
      tag = "XFAIL";
    } else {
      tag = "FAIL ";
      if (isScored)
        problems.push(`${scenario} failed (not in expected failures)`);
    }
    if (isScored) tally[r.passed || r.skipped ? "passed" : "failed"]++;
    let line = `  ${tag} ${scenario}${note ? ` (${note})` : ""}${countText}`;
    if (!r.passed) line += `\n          ${r.problem}`;
    if (!r.passed && !r.skipped && r.upstreamPass)
      line += " (the suite itself counts this as passed)";
    if (reason !== undefined && !r.passed)
      line += `\n          expected: ${reason}`;
    console.log(line);
  };

  console.log(`Scored scenarios for ${opts.requirements} (${scored.length}):`);
  for (const s of scored) report(s, true);
  if (notScored.size > 0) {
    console.log(
      `\nRun but not scored (${notScored.size}; failures here never fail the run):`,
    );
    for (const [s, why] of notScored) report(s, false, why);
  }

  const known = new Set([...scored, ...notScored.keys()]);
  for (const scenario of expected.keys()) {
    if (!known.has(scenario))
      problems.push(
        `expected failure "${scenario}" is not a server scenario of ${opts.requirements}`,
      );
  }
  if (resultDirs.size === 0)
    problems.push("the suite wrote no results at all (see log)");

  if (problems.length > 0) {
    console.log("\nProblems:");
    for (const p of problems) console.log(`  - ${p}`);
  }
  console.log(
    `\nconformance ${opts.requirements}: ${tally.passed} scenarios passed, ${tally.failed} failed`,
  );
  process.exit(problems.length > 0 ? 1 : 0);
}

main().catch((err) => {
  console.error(`run-conformance: ${err?.stack ?? err}`);
  process.exit(2);
});
