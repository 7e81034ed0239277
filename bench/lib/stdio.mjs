// stdio driver: spawn the server with real pipes, do the era's handshake, then keep
// `inflight` tools/call requests outstanding until `calls` verified responses arrived.
import { performance } from "node:perf_hooks";
import {
  spawnServer,
  peakRssMb,
  stopServer,
  withServerContext,
} from "./proc.mjs";
import {
  callRequest,
  initializeRequest,
  initializedNotification,
  verifyCallResult,
  verifyInitialize,
} from "./mcp.mjs";

/** Newline-delimited JSON reader over a child's stdout. */
function onMessages(stream, handler) {
  let buf = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    buf += chunk;
    let start = 0;
    let nl;
    while ((nl = buf.indexOf("\n", start)) !== -1) {
      const line = buf.slice(start, nl);
      start = nl + 1;
      if (line.trim() === "") continue;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        handler(
          null,
          new Error(`non-JSON line on stdout: ${line.slice(0, 200)}`),
        );
        continue;
      }
      handler(msg);
    }
    buf = buf.slice(start);
  });
}

const STALL_MS = 10000; // no response at all for this long: the server is stuck
const BURST_MS = 30000; // one burst (calls/rounds requests) slower than this: give up on the server
const send = (child, msg) => child.stdin.write(JSON.stringify(msg) + "\n");

/**
 * A session over one spawned server. `expect(id)` resolves with the response for id.
 * Unsolicited messages (server notifications/requests) are ignored.
 */
function open(script, args) {
  const child = spawnServer(script, args);
  const waiters = new Map();
  let failure = null;
  const fail = (err) => {
    if (failure) return;
    failure = err;
    for (const w of waiters.values()) w.reject(err);
    waiters.clear();
  };
  onMessages(child.stdout, (msg, err) => {
    if (err) return fail(err);
    if (msg.id === undefined || msg.method !== undefined) return; // notification or server→client request
    const w = waiters.get(msg.id);
    if (!w)
      return fail(
        new Error(`response with unexpected id ${JSON.stringify(msg.id)}`),
      );
    waiters.delete(msg.id);
    w.resolve(msg);
  });
  child.exited.then((info) =>
    fail(new Error(`server exited unexpectedly (${info})`)),
  );
  child.on("error", (e) => fail(e));
  return {
    child,
    expect(id) {
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) =>
        waiters.set(id, { resolve, reject }),
      );
    },
    get failure() {
      return failure;
    },
    fail,
  };
}

function timeout(ms, what) {
  let timer;
  const p = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} timed out after ${ms} ms`)),
      ms,
    );
  });
  p.cancel = () => clearTimeout(timer);
  return p;
}

async function guarded(session, ms, what, fn) {
  const t = timeout(ms, what);
  try {
    return await Promise.race([fn(), t]);
  } catch (err) {
    throw withServerContext(err, session.child);
  } finally {
    t.cancel();
  }
}

/** Cold start: spawn → first response to the first request (initialize, or the first call in modern). */
async function coldStartOnce(script, args, era) {
  const t0 = performance.now();
  const s = open(script, args);
  try {
    return await guarded(s, 20000, "cold start", async () => {
      const first =
        era === "legacy" ? initializeRequest(0) : callRequest(1, era);
      const reply = s.expect(first.id);
      send(s.child, first);
      const msg = await reply;
      const ms = performance.now() - t0;
      if (era === "legacy") verifyInitialize(msg, 0);
      else verifyCallResult(msg, era);
      return ms;
    });
  } finally {
    await stopServer(s.child);
  }
}

/**
 * One long-lived server for throughput: handshake once, then `burst()` as often as
 * the caller likes (the runner interleaves bursts of different servers).
 */
export async function openStdioTarget({ script, args = [], era }) {
  const s = open(script, args);
  let nextId = 1;
  try {
    await guarded(s, 20000, "handshake", async () => {
      if (era !== "legacy") return;
      const reply = s.expect(0);
      send(s.child, initializeRequest(0));
      verifyInitialize(await reply, 0);
      send(s.child, initializedNotification);
    });
  } catch (err) {
    await stopServer(s.child);
    throw err;
  }
  return {
    child: s.child,
    /** Sends `calls` tools/call requests keeping `inflight` outstanding; verifies every response. */
    burst(calls, inflight) {
      return guarded(s, BURST_MS + 5000, `${calls} stdio calls`, async () => {
        const first = nextId;
        const last = first + calls - 1;
        nextId = last + 1;
        // state[id - first]: 0 unsent, 1 in flight, 2 answered.
        const state = new Uint8Array(calls);
        let next = first;
        let answered = 0;
        const t0 = performance.now();
        let lastProgress = t0;
        let stall;
        await new Promise((resolve, reject) => {
          // Fail the burst itself (not only the session): responses of one stdout chunk
          // are all matched before any of them is verified, so no waiter may be left.
          const abort = (err) => {
            s.fail(err);
            reject(err);
          };
          stall = setInterval(() => {
            const now = performance.now();
            const progress = `${answered}/${calls} of this burst answered, ${next - first - answered} in flight`;
            if (now - lastProgress > STALL_MS)
              abort(
                new Error(`no response for ${STALL_MS / 1000} s (${progress})`),
              );
            else if (now - t0 > BURST_MS)
              abort(
                new Error(
                  `too slow: burst not done after ${BURST_MS / 1000} s (${progress})`,
                ),
              );
          }, 500);
          const onResponse = (msg) => {
            lastProgress = performance.now();
            try {
              if (state[msg.id - first] !== 1)
                throw new Error(
                  `response for id ${JSON.stringify(msg.id)} that is not in flight`,
                );
              verifyCallResult(msg, era);
              state[msg.id - first] = 2;
              answered++;
            } catch (err) {
              abort(err);
              return;
            }
            if (answered === calls) resolve();
            else pump();
          };
          // Batch the requests a burst of responses frees up into one pipe write.
          let pending = [];
          let scheduled = false;
          const flush = () => {
            scheduled = false;
            if (pending.length) s.child.stdin.write(pending.join(""));
            pending = [];
          };
          const pump = () => {
            while (next <= last && next - first - answered < inflight) {
              const id = next++;
              state[id - first] = 1;
              s.expect(id).then(onResponse, abort);
              pending.push(JSON.stringify(callRequest(id, era)) + "\n");
            }
            if (!scheduled) {
              scheduled = true;
              queueMicrotask(flush);
            }
          };
          pump();
        }).finally(() => clearInterval(stall));
        return { calls, seconds: (performance.now() - t0) / 1000 };
      });
    },
    /** Peak RSS in MB, read while the server is still running (before stdin closes). */
    rssMb: () => peakRssMb(s.child.pid),
    close: () => stopServer(s.child),
  };
}

export { coldStartOnce };
