// `create-mcp-server --telemetry`: the project depends on the OpenTelemetry Node SDK, and its src/telemetry.ts starts
// it when the environment asks. Here MCP_METRICS_PORT serves Prometheus /metrics, scraped by a REAL Prometheus
// (Debian's `prometheus`, which .ci/run installs: no skip when it is missing) started by this test on 127.0.0.1 with a
// temporary configuration and storage; the series are read back through Prometheus's HTTP query API. Without the SDK
// installed, the same variable gives one line on stderr and a server that serves without telemetry.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpClient, StreamableHttpClientTransport } from "../../runtime/dist/index.js";
import { create, expectOk, npm, tempDir } from "./support.js";

const PROMETHEUS = "/usr/bin/prometheus";
const SDK = join("node_modules", "@opentelemetry", "sdk-node");

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

interface Started {
  child: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

/** Start `command`, resolve once `ready(stderr)` holds (or reject after 20 s with what it printed). */
function start(command: string, args: string[], opts: { cwd?: string; env?: Record<string, string> }, ready: (err: string) => boolean): Promise<Started> {
  const child = spawn(command, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stdout!.resume();
  child.stderr!.setEncoding("utf8");
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start: ${err}`)), 20_000);
    child.stderr!.on("data", (c: string) => {
      err += c;
      if (!ready(err)) return;
      clearTimeout(timer);
      resolve({ child, stderr: () => err, stop });
    });
    child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`${command} exited ${code}: ${err}`))));
  });
}

type Series = { metric: Record<string, string>; value: [number, string] };

/** Prometheus's instant query API: the series of `query`. */
async function query(prometheus: string, q: string): Promise<Series[]> {
  const res = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(q)}`);
  const body = (await res.json()) as { status: string; data: { result: Series[] } };
  expect(body.status).toBe("success");
  return body.data.result;
}

describe("create-mcp-server --telemetry: Prometheus scrapes the project's /metrics (MCP_METRICS_PORT)", () => {
  const work = tempDir("telemetry");
  const project = join(work, "otel-server");
  const main = join(project, "dist", "src", "main.js");
  const stops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    expectOk(await create([project, "--yes", "--transport", "http", "--telemetry", "--no-git"]), "create-mcp-server --telemetry");
    expectOk(await npm(project, ["run", "build"]), "npm run build");
  }, 600_000);
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  });

  it("adds the SDK to package.json and names it in the README", () => {
    const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
    expect(pkg.dependencies["@opentelemetry/sdk-node"]).toMatch(/^\^0\./);
    expect(existsSync(join(project, SDK))).toBe(true);
    expect(readFileSync(join(project, "README.md"), "utf8")).toContain("npm install @opentelemetry/sdk-node");
  });

  it("the operation and session histograms reach a real Prometheus with the conventions' labels", async () => {
    expect(existsSync(PROMETHEUS), `${PROMETHEUS} (Debian's prometheus package; .ci/run installs it)`).toBe(true);
    const metricsPort = await freePort();
    const server = await start(
      process.execPath,
      [main, "--transport", "http", "--port", "0"],
      { cwd: project, env: { MCP_METRICS_PORT: String(metricsPort), OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1" } },
      (err) => /listening http:\/\/\S+\n/.test(err),
    );
    stops.push(server.stop);
    const url = /listening (http:\/\/\S+)\n/.exec(server.stderr())![1];
    for (const revision of ["2026-07-28", "2025-11-25"]) {
      const client = await new McpClient({ transport: new StreamableHttpClientTransport(url), revision: revision as never }).connect();
      await client.callTool("echo", { text: "hi" });
      await client.callTool("echo", { text: "again" });
      // The legacy session ends here (DELETE): one mcp.server.session.duration observation.
      await client.close();
    }

    const dir = join(work, "prometheus");
    mkdirSync(join(dir, "data"), { recursive: true });
    writeFileSync(
      join(dir, "prometheus.yml"),
      ["global:", "  scrape_interval: 1s", "  evaluation_interval: 1s", "scrape_configs:", "  - job_name: mcp", "    static_configs:", `      - targets: ["127.0.0.1:${metricsPort}"]`, ""].join("\n"),
    );
    const promPort = await freePort();
    const prom = await start(PROMETHEUS, [`--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${promPort}`], {}, (err) =>
      err.includes("Server is ready to receive web requests"),
    );
    stops.push(prom.stop);
    const prometheus = `http://127.0.0.1:${promPort}`;

    let calls: Series[] = [];
    for (let i = 0; i < 60 && calls.length < 2; i++) {
      calls = await query(prometheus, 'mcp_server_operation_duration_count{mcp_method_name="tools/call"}');
      if (calls.length < 2) await new Promise((r) => setTimeout(r, 500));
    }
    const scraped = { instance: `127.0.0.1:${metricsPort}`, job: "mcp", otel_scope_name: "@create-mcp-server/runtime" };
    const byRevision = Object.fromEntries(calls.map((s) => [s.metric.mcp_protocol_version, s]));
    for (const revision of ["2026-07-28", "2025-11-25"]) {
      expect(byRevision[revision].metric).toEqual({
        __name__: "mcp_server_operation_duration_count",
        ...scraped,
        mcp_method_name: "tools/call",
        mcp_protocol_version: revision,
        gen_ai_tool_name: "echo",
        gen_ai_operation_name: "execute_tool",
        network_transport: "tcp",
        network_protocol_name: "http",
      });
      expect(byRevision[revision].value[1]).toBe("2");
    }
    // The conventions' bucket boundaries (seconds).
    const buckets = await query(prometheus, 'mcp_server_operation_duration_bucket{mcp_method_name="tools/call",mcp_protocol_version="2026-07-28"}');
    const bound = (le: string) => (le === "+Inf" ? Infinity : Number(le));
    expect(buckets.map((b) => b.metric.le).sort((a, b) => bound(a) - bound(b))).toEqual(["0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10", "30", "60", "120", "300", "+Inf"]);
    const sessions = await query(prometheus, "mcp_server_session_duration_count");
    expect(sessions.map((s) => [s.metric, s.value[1]])).toEqual([
      [{ __name__: "mcp_server_session_duration_count", ...scraped, mcp_protocol_version: "2025-11-25", network_transport: "tcp", network_protocol_name: "http" }, "1"],
    ]);
  });

  it("without the SDK installed, MCP_METRICS_PORT says so in one line and the server serves without telemetry", async () => {
    const sdk = join(project, SDK);
    const away = `${sdk}.away`;
    renameSync(sdk, away);
    try {
      const server = await start(process.execPath, [main, "--transport", "http", "--port", "0"], { cwd: project, env: { MCP_METRICS_PORT: String(await freePort()) } }, (err) =>
        /listening http:\/\/\S+\n/.test(err),
      );
      stops.push(server.stop);
      expect(server.stderr().split("\n")[0]).toBe("otel-server: MCP_METRICS_PORT is set but @opentelemetry/sdk-node is not installed, so telemetry is off; run: npm install @opentelemetry/sdk-node");
      const url = /listening (http:\/\/\S+)\n/.exec(server.stderr())![1];
      const client = await new McpClient({ transport: new StreamableHttpClientTransport(url), revision: "2026-07-28" as never }).connect();
      expect(await client.callTool("echo", { text: "still" })).toMatchObject({ content: [{ type: "text", text: "still" }] });
      await client.close();
    } finally {
      renameSync(away, sdk);
    }
  });
});
