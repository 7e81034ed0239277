// Streamable HTTP driver: `connections` keep-alive connections (undici Pool), one
// virtual client per connection looping tools/call echo; warmup, then a fixed window.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "undici";
import { createParser } from "eventsource-parser";
import {
  spawnServer,
  peakRssMb,
  stopServer,
  waitForListening,
  withServerContext,
} from "./proc.mjs";
import {
  LEGACY_VERSION,
  MODERN_VERSION,
  callRequest,
  initializeRequest,
  initializedNotification,
  verifyCallResult,
  verifyInitialize,
} from "./mcp.mjs";

const BASE_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** Extracts the JSON-RPC response with `id` from a JSON or SSE response body. */
function extractResponse(contentType, text, id) {
  if (contentType.startsWith("application/json")) return JSON.parse(text);
  if (!contentType.startsWith("text/event-stream"))
    throw new Error(`unexpected content-type "${contentType}"`);
  let found;
  const parser = createParser({
    onEvent(event) {
      if (found || !event.data) return;
      const msg = JSON.parse(event.data);
      if (
        msg.id === id &&
        (msg.result !== undefined || msg.error !== undefined)
      )
        found = msg;
    },
  });
  parser.feed(text);
  if (!found)
    throw new Error(
      `no response for id ${id} in SSE body: ${text.slice(0, 300)}`,
    );
  return found;
}

async function post(pool, path, headers, msg) {
  const res = await pool.request({
    path,
    method: "POST",
    headers: { ...BASE_HEADERS, ...headers },
    body: JSON.stringify(msg),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

async function rpc(pool, path, headers, msg) {
  const res = await post(pool, path, headers, msg);
  if (res.status !== 200)
    throw new Error(
      `${msg.method} id ${msg.id}: HTTP ${res.status} ${res.text.slice(0, 300)}`,
    );
  const ct = String(res.headers["content-type"] ?? "");
  return { msg: extractResponse(ct, res.text, msg.id), headers: res.headers };
}

/** Per-client setup for a mode; returns the headers every tools/call carries. */
async function setupClient(pool, path, mode, clientIndex, auth = {}) {
  if (mode === "modern") {
    return {
      "mcp-protocol-version": MODERN_VERSION,
      "mcp-method": "tools/call",
      "mcp-name": "echo",
      ...auth,
    };
  }
  if (mode === "legacy-stateless")
    return { "mcp-protocol-version": LEGACY_VERSION, ...auth };
  // legacy-session: initialize → Mcp-Session-Id, then notifications/initialized.
  const initId = `init-${clientIndex}`;
  const { msg, headers } = await rpc(
    pool,
    path,
    auth,
    initializeRequest(initId),
  );
  verifyInitialize(msg, initId);
  const sessionId = headers["mcp-session-id"];
  if (!sessionId)
    throw new Error("initialize response carried no Mcp-Session-Id header");
  const h = {
    "mcp-session-id": String(sessionId),
    "mcp-protocol-version": LEGACY_VERSION,
    ...auth,
  };
  const ack = await post(pool, path, h, initializedNotification);
  if (ack.status !== 202 && ack.status !== 200 && ack.status !== 204) {
    throw new Error(
      `notifications/initialized: HTTP ${ack.status} ${ack.text.slice(0, 200)}`,
    );
  }
  return h;
}

function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  const i = Math.min(
    sorted.length - 1,
    Math.max(0, Math.ceil((p / 100) * sorted.length) - 1),
  );
  return sorted[i];
}

/**
 * One server under HTTP load: spawn, wait for its listening line, open the pool,
 * set up one virtual client per connection. `window(sec)` runs all clients for a
 * fixed time and returns what completed inside it (the runner interleaves windows
 * of different servers).
 */
export async function openHttpTarget({ script, args = [], mode, connections }) {
  const era = mode === "modern" ? "modern" : "legacy";
  const child = spawnServer(script, args, { PORT: "0" });
  let pool;
  const close = async () => {
    await pool?.close().catch(() => {});
    await stopServer(child, { signal: true });
  };
  try {
    const url = new URL(await waitForListening(child));
    pool = new Pool(url.origin, {
      connections,
      pipelining: 1,
      keepAliveTimeout: 60_000,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const path = url.pathname;
    // A server with authorization prints the bench client's access token ("bearer <token>") before listening.
    const token = /^bearer (\S+)$/m.exec(child.stderrTail)?.[1];
    const auth = token ? { authorization: `Bearer ${token}` } : {};
    const clientHeaders = [];
    for (let i = 0; i < connections; i++)
      clientHeaders.push(await setupClient(pool, path, mode, i, auth));
    let nextId = 1;

    const window = async (sec) => {
      let stop = false;
      let done = 0;
      const latencies = [];
      let measuring = true;
      const client = async (headers) => {
        while (!stop) {
          const id = nextId++;
          const t = performance.now();
          const { msg } = await rpc(pool, path, headers, callRequest(id, era));
          if (msg.id !== id)
            throw new Error(
              `response id ${JSON.stringify(msg.id)} for request ${id}`,
            );
          verifyCallResult(msg, era);
          if (measuring) {
            latencies.push(performance.now() - t);
            done++;
          }
        }
      };
      let failure;
      let onFailure;
      const failed = new Promise((resolve) => (onFailure = resolve));
      const t0 = performance.now();
      const loops = clientHeaders.map((h) =>
        client(h).catch((err) => {
          failure ??= err;
          stop = true;
          onFailure();
        }),
      );
      await Promise.race([
        sleep(sec * 1000, undefined, { ref: false }),
        failed,
      ]);
      stop = true;
      measuring = false; // responses that land after the window closes are verified but not counted
      const seconds = (performance.now() - t0) / 1000;
      const drained = await Promise.race([
        Promise.all(loops).then(() => true),
        sleep(15000, false, { ref: false }),
      ]);
      if (failure) throw failure;
      if (!drained)
        throw new Error(
          "requests still outstanding 15 s after the window closed",
        );
      return { calls: done, seconds, latencies };
    };

    return {
      child,
      async window(sec) {
        try {
          return await window(sec);
        } catch (err) {
          throw withServerContext(err, child);
        }
      },
      rssMb: () => peakRssMb(child.pid),
      close,
    };
  } catch (err) {
    await close();
    throw withServerContext(err, child);
  }
}

export function percentiles(latencies) {
  const sorted = Float64Array.from(latencies).sort();
  return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
}
