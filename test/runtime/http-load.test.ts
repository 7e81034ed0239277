/**
 * Load: 200 concurrent clients of mixed eras (a legacy session per client on each Streamable HTTP revision, and
 * stateless modern clients) for 10 s against one fixture process. Every response is checked: no error responses,
 * no cross-session leak (each answer names the client and revision that asked), and the server's RSS is back within
 * 10% of its start once the load has ended and the sessions are closed.
 */
import { Pool } from "undici";
import { createParser } from "eventsource-parser";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Revision } from "../../out/rules.js";
import { MODERN, initializeBody, modernMeta, rssMb, sessionHeaders, startFixture, type Fixture } from "./http-helpers.js";

const CLIENTS = 200;
const SECONDS = Number(process.env.HTTP_LOAD_SECONDS ?? 10);
// The legacy revisions with Streamable HTTP (spec/2025-03-26/basic/transports.mdx#streamable-http) and the modern one, by hand.
const ERAS: Revision[] = ["2025-03-26", "2025-06-18", "2025-11-25", MODERN];

let fx: Fixture;
let pool: Pool;
beforeAll(async () => {
  fx = await startFixture({ FIXTURE_VALIDATE: "0" }, ["--expose-gc"]);
  const u = new URL(fx.url);
  pool = new Pool(u.origin, { connections: CLIENTS, pipelining: 1, keepAliveTimeout: 30_000 });
});
afterAll(async () => {
  await pool?.close();
  await fx?.stop();
});

const BASE = { "content-type": "application/json", accept: "application/json, text/event-stream" };

async function post(headers: Record<string, string>, body: unknown): Promise<{ status: number; headers: Record<string, unknown>; messages: any[] }> {
  const res = await pool.request({ path: "/mcp", method: "POST", headers: { ...BASE, ...headers }, body: JSON.stringify(body) });
  const text = await res.body.text();
  const type = String(res.headers["content-type"] ?? "");
  let messages: any[] = [];
  if (type.startsWith("text/event-stream")) {
    const parser = createParser({ onEvent: (e) => e.data && messages.push(JSON.parse(e.data)) });
    parser.feed(text);
  } else if (text) messages = [JSON.parse(text)];
  return { status: res.statusCode, headers: res.headers, messages };
}

interface Tally {
  calls: number;
  errors: string[];
  leaks: string[];
}

async function client(i: number, revision: Revision, until: number, tally: Tally): Promise<void> {
  const name = `load-${i}`;
  const modern = revision === MODERN;
  let headers: Record<string, string>;
  const fail = (what: string) => tally.errors.length < 20 && tally.errors.push(`${name} (${revision}): ${what}`);
  if (modern) {
    headers = { "mcp-protocol-version": revision, "mcp-method": "tools/call" };
  } else {
    const init = await post({}, initializeBody(revision, 0, name));
    if (init.status !== 200 || !init.headers["mcp-session-id"]) return void fail(`initialize HTTP ${init.status}`);
    headers = sessionHeaders(String(init.headers["mcp-session-id"]), revision);
    const ack = await post(headers, { jsonrpc: "2.0", method: "notifications/initialized" });
    if (ack.status !== 202) return void fail(`initialized HTTP ${ack.status}`);
  }
  let n = 0;
  while (Date.now() < until) {
    n++;
    const whoami = n % 2 === 0;
    const params: Record<string, unknown> = whoami ? { name: "whoami", arguments: {} } : { name: "echo", arguments: { text: `${name}-${n}` } };
    if (modern) params._meta = modernMeta(revision, { "io.modelcontextprotocol/clientInfo": { name, version: "1" } });
    const r = await post(modern ? { ...headers, "mcp-name": params.name as string } : headers, { jsonrpc: "2.0", id: n, method: "tools/call", params });
    const last = r.messages.at(-1);
    if (r.status !== 200 || !last || last.error || last.id !== n) {
      fail(`HTTP ${r.status} ${JSON.stringify(last).slice(0, 200)}`);
      continue;
    }
    tally.calls++;
    const text = last.result.content[0].text as string;
    if (whoami) {
      const who = JSON.parse(text);
      if (who.client !== name || who.revision !== revision) tally.leaks.push(`${name}/${revision} saw ${text}`);
    } else if (text !== `${name}-${n}`) tally.leaks.push(`${name} echo got ${text}`);
    if (modern && r.headers["mcp-session-id"] !== undefined) tally.leaks.push(`${name}: a modern response carried Mcp-Session-Id`);
  }
  if (!modern) {
    const del = await pool.request({ path: "/mcp", method: "DELETE", headers });
    await del.body.text();
    if (del.statusCode !== 200) fail(`DELETE HTTP ${del.statusCode}`);
  }
}

it(`${CLIENTS} concurrent clients of mixed eras for ${SECONDS} s: no error responses, no cross-session leak, RSS back within 10%`, async () => {
  // Warm up every era once (validators load lazily per revision), then take the starting RSS.
  const warm: Tally = { calls: 0, errors: [], leaks: [] };
  await Promise.all(ERAS.map((r, i) => client(-1 - i, r, Date.now() + 300, warm)));
  expect(warm.errors).toEqual([]);
  fx.child.kill("SIGUSR2");
  await new Promise((r) => setTimeout(r, 200));
  const start = await rssMb(fx.child.pid!);

  const tally: Tally = { calls: 0, errors: [], leaks: [] };
  const until = Date.now() + SECONDS * 1000;
  const t0 = Date.now();
  let peak = start;
  const sampler = setInterval(() => void rssMb(fx.child.pid!).then((m) => (peak = Math.max(peak, m))), 250);
  await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i, ERAS[i % ERAS.length], until, tally)));
  clearInterval(sampler);
  const seconds = (Date.now() - t0) / 1000;

  // Full GCs let V8 give back what the load made it grow; a leak would stay.
  let end = Infinity;
  for (let i = 0; i < 20 && end > start * 1.1; i++) {
    fx.child.kill("SIGUSR2");
    await new Promise((r) => setTimeout(r, 200));
    end = await rssMb(fx.child.pid!);
  }
  console.error(
    `http load: ${CLIENTS} clients (${ERAS.join(", ")}), ${tally.calls} tools/call in ${seconds.toFixed(1)} s = ${Math.round(tally.calls / seconds)}/s; ` +
      `RSS start ${start.toFixed(1)} MB, peak ${peak.toFixed(1)} MB, after ${end.toFixed(1)} MB`,
  );
  expect(tally.errors).toEqual([]);
  expect(tally.leaks).toEqual([]);
  expect(tally.calls).toBeGreaterThan(CLIENTS * 10);
  expect(end).toBeLessThanOrEqual(start * 1.1);
  expect(fx.child.exitCode).toBeNull();
}, 60_000);
