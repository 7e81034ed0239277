#!/usr/bin/env node
// `npm run bench:first-run` (tsx bench/first-run.mjs): time to a running server from an empty directory, as a new
// user gets it, with a warm npm cache: `npx create-mcp-server my-server --yes` (scaffold + install) + `npm run build`
// + the first response of the built server (initialize over stdio). The packages come from a local registry on
// 127.0.0.1 (test/release/registry.ts: verdaccio, every other package proxied), published from this checkout with
// `npm run release` (run `npm run build` first). For reference, what users of other scaffolders are used to:
// `npm create vite@latest` (vanilla-ts) + `npm install`, through the same registry and cache. Not a test; see
// bench/README.md.
//
//   env: BENCH_FIRST_RUN_ROUNDS (3 measured rounds after one warm-up round)
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ROOT } from "../test/helpers.ts";
import { startRegistry } from "../test/release/registry.ts";

const ROUNDS = Number(process.env.BENCH_FIRST_RUN_ROUNDS ?? 3);

function sh(registry, command, args, cwd) {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        cwd,
        encoding: "utf8",
        maxBuffer: 64 << 20,
        env: { ...registry.env, CI: "true" },
      },
      (err, stdout, stderr) => {
        if (err)
          reject(
            new Error(
              `${command} ${args.join(" ")} failed:\n${stdout}\n${stderr}`,
            ),
          );
        else resolve(stdout);
      },
    );
  });
}

/** Spawn the built server and time its answer to initialize. */
function firstResponse(dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [join(dir, "dist", "src", "main.js")],
      { cwd: dir, stdio: ["pipe", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
      if (out.includes("\n")) {
        const response = JSON.parse(out.slice(0, out.indexOf("\n")));
        child.stdin.end();
        if (response.result?.protocolVersion) resolve();
        else reject(new Error(`unexpected answer: ${out}`));
      }
    });
    child.on("error", reject);
    const params = {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "bench", version: "1" },
    };
    child.stdin.write(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params }) +
        "\n",
    );
  });
}

async function createMcpServer(registry) {
  const work = mkdtempSync(join(tmpdir(), "bench-first-run-"));
  try {
    const t0 = performance.now();
    await sh(
      registry,
      "npx",
      ["--yes", "create-mcp-server", "my-server", "--yes", "--no-git"],
      work,
    );
    const t1 = performance.now();
    await sh(registry, "npm", ["run", "build"], join(work, "my-server"));
    const t2 = performance.now();
    await firstResponse(join(work, "my-server"));
    const t3 = performance.now();
    return {
      scaffold: t1 - t0,
      build: t2 - t1,
      first: t3 - t2,
      total: t3 - t0,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function createVite(registry) {
  const work = mkdtempSync(join(tmpdir(), "bench-first-run-vite-"));
  try {
    const t0 = performance.now();
    await sh(
      registry,
      "npm",
      [
        "create",
        "vite@latest",
        "my-app",
        "--",
        "--template",
        "vanilla-ts",
        "--no-interactive",
      ],
      work,
    );
    await sh(
      registry,
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline"],
      join(work, "my-app"),
    );
    return { total: performance.now() - t0 };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const s = (ms) => `${(ms / 1000).toFixed(1)} s`;

const registry = await startRegistry();
try {
  process.stdout.write(
    await sh(
      registry,
      "npm",
      ["run", "release", "--", "--registry", registry.url, "--no-build"],
      ROOT,
    ),
  );
  process.stdout.write(
    "warm-up round (fills the npm cache and the registry's)...\n",
  );
  await createMcpServer(registry);
  await createVite(registry);
  const ours = [];
  const vite = [];
  for (let i = 0; i < ROUNDS; i++) {
    ours.push(await createMcpServer(registry));
    vite.push(await createVite(registry));
    process.stdout.write(
      `round ${i + 1}: create-mcp-server ${s(ours.at(-1).total)}, create vite ${s(vite.at(-1).total)}\n`,
    );
  }
  const m = (key) => s(median(ours.map((r) => r[key])));
  process.stdout.write(
    [
      "",
      `| path (median of ${ROUNDS}, warm npm cache) | scaffold + install | build | first response | total |`,
      "|---|---|---|---|---|",
      `| npx create-mcp-server my-server --yes, npm run build, initialize | ${m("scaffold")} | ${m("build")} | ${m("first")} | ${m("total")} |`,
      `| npm create vite@latest (vanilla-ts) + npm install | | | | ${s(median(vite.map((r) => r.total)))} |`,
      "",
    ].join("\n"),
  );
} finally {
  await registry.stop();
}
