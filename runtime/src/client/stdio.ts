/** The client's stdio transport (client.ts's ClientTransport): a server run as a child process, over its real pipes. */
import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import type { JsonRpcMessage } from "../wire/jsonrpc.js";
import type { ClientTransport, Delivery } from "./client.js";

/**
 * node:child_process, loaded on the first StdioClientTransport: a server that never runs a child pays nothing for it
 * (about 3 ms of a stdio server's cold start, #22).
 */
let childProcess: typeof import("node:child_process") | undefined;
const childProcesses = () =>
  (childProcess ??= (globalThis.process?.getBuiltinModule?.("node:child_process") ?? createRequire(import.meta.url)("node:child_process")) as typeof import("node:child_process"));

/**
 * Runs a server as a child process and speaks newline-delimited JSON-RPC over
 * its real stdin/stdout pipes. Lines that are not JSON are recorded in
 * `nonProtocolLines` (a server must never write them).
 */
export class StdioClientTransport implements ClientTransport {
  readonly kind = "stdio";
  readonly child: ChildProcess;
  readonly nonProtocolLines: string[] = [];
  stderr = "";
  onmessage?: (message: JsonRpcMessage, delivery?: Delivery) => void;
  onclose?: () => void;
  readonly exited: Promise<number | null>;
  private buffer = "";

  constructor(command: string, args: string[] = [], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
    this.child = childProcesses().spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], env: options.env ?? process.env, cwd: options.cwd });
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (chunk: string) => this.onData(chunk));
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (chunk: string) => (this.stderr += chunk));
    this.child.stdin!.on("error", () => {});
    this.exited = new Promise((resolve) =>
      this.child.on("exit", (code) => {
        this.onclose?.();
        resolve(code);
      }),
    );
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf("\n")) !== -1) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (!line.trim()) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        this.nonProtocolLines.push(line);
        continue;
      }
      const messages = Array.isArray(parsed) ? parsed : [parsed];
      for (const m of messages) this.onmessage?.(m as JsonRpcMessage);
    }
  }

  /** Write raw bytes to the server's stdin (for malformed-input tests). */
  writeRaw(data: string | Buffer): void {
    this.child.stdin!.write(data);
  }

  private drained?: Promise<void>;

  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    const line = JSON.stringify(message) + "\n";
    if (!this.child.stdin!.write(line)) {
      // One drain wait shared by every writer that hit back-pressure.
      this.drained ??= new Promise<void>((r) => this.child.stdin!.once("drain", () => ((this.drained = undefined), r())));
      await this.drained;
    }
  }

  /** Close stdin (EOF) and wait for the process to exit. */
  async close(): Promise<void> {
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}
