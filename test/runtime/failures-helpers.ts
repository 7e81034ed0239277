/** Shared by failures.test.ts and error-messages.test.ts: the failures fixture as a peer over stdio or HTTP, in either era. */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../helpers.js";
import { initializeBody, jsonPost, modernMeta, modernRequest, raw, sessionHeaders, startFixture, type Fixture } from "./http-helpers.js";

export const FIXTURE = join(ROOT, "test", "fixtures", "failures-fixture.mjs");
export const LEGACY = "2025-11-25";
export const MODERN = "2026-07-28";

export type Msg = Record<string, any>;
export interface Peer {
  /** Send a request; resolves with its response and the id it was sent with. */
  call(method: string, params?: Record<string, unknown>, headers?: Record<string, string>): Promise<{ id: number; response: Msg }>;
  stderr(): string;
  /** Legacy HTTP: the session id. */
  session?: string;
  stop(): Promise<void>;
}

/** The "LOG {json}" records the fixture's logger wrote on stderr. */
export const records = (peer: Peer): Msg[] =>
  peer
    .stderr()
    .split("\n")
    .filter((l) => l.startsWith("LOG "))
    .map((l) => JSON.parse(l.slice(4)));
export const recordsOf = (peer: Peer, id: number) => records(peer).filter((r) => r.requestId === id);

/** The fixture over stdio; `stdout` keeps every byte it wrote. */
export async function stdioPeer(
  revision: string,
  env: Record<string, string>,
  capabilities: Record<string, unknown> = {},
): Promise<Peer & { stdout(): string; notify(method: string, params: Record<string, unknown>): void; nextId(): number }> {
  const child: ChildProcess = spawn(process.execPath, [FIXTURE], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const waiting = new Map<number, (m: Msg) => void>();
  child.stdout!.setEncoding("utf8");
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (c: string) => (err += c));
  let buffered = "";
  child.stdout!.on("data", (c: string) => {
    out += c;
    buffered += c;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const m = JSON.parse(line) as Msg;
      if (m.id !== undefined && ("result" in m || "error" in m)) waiting.get(m.id)?.(m);
    }
  });
  let next = 1;
  const modern = revision === MODERN;
  const send = (m: Msg) => child.stdin!.write(JSON.stringify(m) + "\n");
  const call: Peer["call"] = (method, params = {}) => {
    const id = next++;
    const answered = new Promise<Msg>((resolve) => waiting.set(id, resolve));
    send({ jsonrpc: "2.0", id, method, params: modern ? { ...params, _meta: modernMeta(MODERN) } : params });
    return answered.then((response) => ({ id, response }));
  };
  if (!modern) {
    const init = new Promise<Msg>((resolve) => waiting.set(0, resolve));
    send(initializeBody(revision, 0, "failures-test", capabilities));
    await init;
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }
  return {
    call,
    stderr: () => err,
    stdout: () => out,
    notify: (method, params) => send({ jsonrpc: "2.0", method, params }),
    nextId: () => next,
    stop: async () => {
      // "close": the process has exited and its stdout and stderr are read to their end.
      const exited = new Promise((r) => child.once("close", r));
      child.stdin!.end();
      await exited;
    },
  };
}

/** The fixture over Streamable HTTP: a legacy session, or modern stateless POSTs. */
export async function httpPeer(revision: string, env: Record<string, string>, token?: string): Promise<Peer> {
  const fx: Fixture = await startFixture({ FIXTURE_TRANSPORT: "http", ...env }, [], FIXTURE);
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  let next = 1;
  let session: string | undefined;
  if (revision !== MODERN) {
    const init = await raw(fx.url, { headers: jsonPost(auth), body: initializeBody(revision, 0) });
    session = String(init.headers["mcp-session-id"]);
    await raw(fx.url, { headers: jsonPost({ ...auth, ...sessionHeaders(session, revision) }), body: { jsonrpc: "2.0", method: "notifications/initialized" } });
  }
  const call: Peer["call"] = async (method, params = {}) => {
    const id = next++;
    const r =
      revision === MODERN
        ? await (async () => {
            const { body, headers } = modernRequest(id, method, params);
            return raw(fx.url, { headers: { ...headers, ...auth }, body });
          })()
        : await raw(fx.url, { headers: jsonPost({ ...auth, ...sessionHeaders(session!, revision) }), body: { jsonrpc: "2.0", id, method, params } });
    const response = r.messages.find((m) => m.id === id);
    if (!response) throw new Error(`no response to ${method} (HTTP ${r.status}): ${r.text}`);
    return { id, response };
  };
  return { call, stderr: fx.stderr, session, stop: fx.stop };
}
