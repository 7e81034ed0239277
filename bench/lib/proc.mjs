// Child-process helpers: spawn a bench server, keep its stderr tail, read its peak RSS.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const live = new Set();
function killAll() {
  for (const child of live) {
    try {
      process.kill(child.pid, "SIGKILL");
    } catch {
      // already exited
    }
  }
}
process.on("exit", killAll);
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}

/** Spawns `node script ...args` with real pipes on all three standard streams. */
export function spawnServer(script, args = [], env = {}) {
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  live.add(child);
  child.stderrTail = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (s) => {
    child.stderrTail = (child.stderrTail + s).slice(-4000);
  });
  child.exited = new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      live.delete(child);
      child.exitInfo = signal ? `signal ${signal}` : `exit code ${code}`;
      resolve(child.exitInfo);
    });
  });
  child.on("error", (err) => {
    child.spawnError = err;
  });
  child.stdin.on("error", () => {}); // EPIPE when the server dies first: reported via exit instead
  return child;
}

/** Peak resident set size (VmHWM) of a live process, in MB. */
export function peakRssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}

/** Ends a server we started: close stdin (stdio servers exit on EOF), then SIGTERM, then SIGKILL. */
export async function stopServer(child, { signal = false } = {}) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (signal) child.kill("SIGTERM");
  else child.stdin.end();
  const done = await Promise.race([
    child.exited.then(() => true),
    sleep(2000).then(() => false),
  ]);
  if (done) return;
  child.kill(signal ? "SIGKILL" : "SIGTERM");
  const done2 = await Promise.race([
    child.exited.then(() => true),
    sleep(2000).then(() => false),
  ]);
  if (!done2) child.kill("SIGKILL");
  await child.exited;
}

/** Waits for the server's `listening http://127.0.0.1:PORT/mcp` stderr line; returns the URL. */
export function waitForListening(child, timeoutMs = 15000) {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = /listening (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(
        child.stderrTail,
      );
      if (m) {
        cleanup();
        resolve(m[1]);
      }
    };
    const onExit = () => {
      cleanup();
      reject(new Error("server exited before printing its listening line"));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new Error(
          `no "listening http://127.0.0.1:PORT/mcp" line on stderr within ${timeoutMs} ms`,
        ),
      );
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      child.stderr.off("data", check);
      child.off("exit", onExit);
    };
    child.stderr.on("data", check);
    child.once("exit", onExit);
    check();
  });
}

export function withServerContext(err, child) {
  const tail = child?.stderrTail?.trim();
  const exit = child?.exitInfo ? ` [server ${child.exitInfo}]` : "";
  err.message = `${err.message}${exit}${tail ? `\n    server stderr: ${tail.slice(-600).replace(/\n/g, "\n    ")}` : ""}`;
  return err;
}
