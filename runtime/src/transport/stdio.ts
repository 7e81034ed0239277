/**
 * The stdio transport: newline-delimited JSON-RPC over stdin/stdout, UTF-8,
 * no embedded newlines. Nothing but protocol messages is written to stdout:
 * console output and stray process.stdout writes are sent to stderr.
 * EOF on stdin: finish in-flight work, flush, exit 0. A malformed or
 * oversized line, invalid UTF-8, or a throwing handler never ends the process.
 *
 * spec/2025-11-25/basic/transports.mdx#stdio, spec/2026-07-28/basic/transports/stdio.mdx
 */
import type { Readable, Writable } from "node:stream";
import type { ProtocolCore } from "../protocol/core.js";
import type { Connection, Sink } from "../protocol/connection.js";
import type { JsonRpcMessage } from "../wire/jsonrpc.js";
import { PacedOutput } from "./paced.js";

export interface StdioOptions {
  input?: Readable;
  output?: Writable;
  /** Largest accepted line in bytes; longer lines are answered with -32600 and skipped. Default 64 MiB. */
  maxMessageBytes?: number;
  /** Redirect console.* and process.stdout.write to stderr. Default true when output is process.stdout. */
  protectStdout?: boolean;
  /** Exit the process (code 0) after EOF once all work is answered. Default true when input is process.stdin. */
  exitOnEof?: boolean;
  /**
   * After EOF, how long in-flight requests may run on before their handlers are aborted (their signals fire), in ms;
   * a handler that still does not settle 1 s later is abandoned, so the process exits promptly
   * (spec/2026-07-28/basic/transports/stdio.mdx#shutdown). Default 10 000.
   */
  eofGraceMs?: number;
}

/** Route console.log/info/debug/warn/trace and process.stdout.write to stderr; returns the real stdout writer. */
function protectStdout(): (chunk: string) => boolean {
  const realWrite = process.stdout.write.bind(process.stdout) as (chunk: string) => boolean;
  const toStderr = process.stderr.write.bind(process.stderr);
  (process.stdout as unknown as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]) => (toStderr as (...a: unknown[]) => boolean)(chunk, ...rest);
  const c = console as unknown as Record<string, unknown>;
  for (const m of ["log", "info", "debug", "trace"]) c[m] = console.error.bind(console);
  return realWrite;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Serve `core` on stdio until EOF. Resolves after EOF once every request has been answered and written. */
export async function serveStdio(core: ProtocolCore, options: StdioOptions = {}): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const isProcess = output === process.stdout;
  const write = isProcess && (options.protectStdout ?? true) ? protectStdout() : (chunk: string) => output.write(chunk);
  const max = options.maxMessageBytes ?? 64 * 1024 * 1024;
  if (input === process.stdin) {
    // A handler's stray rejection or asynchronous throw must not end a server that others depend on.
    process.on("unhandledRejection", (reason) => process.stderr.write(`mcp runtime: unhandled rejection: ${String((reason as Error)?.stack ?? reason)}\n`));
    process.on("uncaughtException", (err) => process.stderr.write(`mcp runtime: uncaught exception: ${String(err?.stack ?? err)}\n`));
  }

  // Batch writes per tick: one syscall for many pipelined responses. A response right after a progress notification
  // waits a moment (PacedOutput: the SDK clients drop progress that they read together with its response).
  let outputClosed = false;
  const paced = new PacedOutput((chunk) => {
    // Back-pressure: a client that does not read stops us reading, so memory stays bounded.
    if (!write(chunk) && !input.isPaused()) {
      input.pause();
      output.once("drain", () => input.resume());
    }
  }, true);
  const sink: Sink = {
    send(message: JsonRpcMessage) {
      // JSON.stringify escapes newlines inside strings, so a message is always one line.
      const line = connection.serialize(message);
      if (line) paced.push(line + "\n", message);
    },
  };
  const connection: Connection = core.connect(sink, { transport: "stdio" });
  // stdout gone (EPIPE, ENOSPC): the transport closed; abort the work and stop reading.
  output.on("error", (err) => {
    if (outputClosed) return;
    outputClosed = true;
    paced.close();
    process.stderr.write(`mcp runtime: stdout closed (${(err as NodeJS.ErrnoException).code ?? err.message}); stopping\n`);
    connection.close();
    input.destroy();
  });

  const handleLine = (line: Buffer) => {
    let end = line.length;
    if (end && line[end - 1] === 0x0d) end--; // tolerate CRLF
    if (end === 0) return;
    let text: string;
    try {
      text = decoder.decode(line.subarray(0, end));
    } catch {
      return void connection.parseError("the line is not valid UTF-8");
    }
    // A line of only whitespace carries no message (like an empty line): nothing to answer.
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return void connection.parseError((err as Error).message);
    }
    void connection.receive(value);
  };

  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  await new Promise<void>((resolve) => {
    input.on("data", (chunk: Buffer) => {
      let start = 0;
      for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
        const part = chunk.subarray(start, nl);
        start = nl + 1;
        if (skipping) {
          skipping = false;
          continue;
        }
        if (pendingBytes + part.length > max) {
          pending = [];
          pendingBytes = 0;
          void connection.tooLarge(max);
          continue;
        }
        const line = pending.length ? Buffer.concat([...pending, part]) : part;
        pending = [];
        pendingBytes = 0;
        handleLine(line);
      }
      if (start < chunk.length && !skipping) {
        const rest = chunk.subarray(start);
        if (pendingBytes + rest.length > max) {
          // Oversized: answer once, drop what we have, and skip to the next newline.
          pending = [];
          pendingBytes = 0;
          skipping = true;
          void connection.tooLarge(max);
        } else {
          pending.push(Buffer.from(rest));
          pendingBytes += rest.length;
        }
      }
    });
    input.on("end", resolve);
    input.on("close", resolve);
  });
  if (pending.length && !skipping) handleLine(Buffer.concat(pending));
  // Finish in-flight work; open subscriptions end gracefully, and questions to the client fail: it can no longer answer.
  connection.rejectClientRequests("stdin closed: the client can no longer answer");
  connection.endSubscriptions();
  const idle = connection.idle();
  const ender = setInterval(() => connection.endSubscriptions(), 20);
  const within = (ms: number) => {
    let timer!: NodeJS.Timeout;
    const late = new Promise<boolean>((r) => (timer = setTimeout(r, ms, false)));
    return Promise.race([idle.then(() => true), late]).finally(() => clearTimeout(timer));
  };
  if (!(await within(options.eofGraceMs ?? 10_000))) {
    process.stderr.write("mcp runtime: stdin closed and requests are still running; aborting them\n");
    connection.abortAll();
    await within(1000);
  }
  clearInterval(ender);
  connection.close();
  await paced.idle();
  if (isProcess && !outputClosed) await new Promise<void>((r) => (output.writableNeedDrain ? output.once("drain", () => r()) : r()));
  if (options.exitOnEof ?? input === process.stdin) process.exit(0);
}
