/**
 * The stdio transport: newline-delimited JSON-RPC over stdin/stdout, UTF-8,
 * no embedded newlines. Nothing but protocol messages is written to stdout:
 * console output and stray process.stdout writes are sent to stderr.
 * EOF on stdin: finish in-flight work, flush, exit 0. A malformed or
 * oversized line, invalid UTF-8, or a throwing handler never ends the process. What is thrown outside any request
 * (a handler's stray timer) is the host's to handle: no process-wide handler is installed here.
 *
 * spec/2025-11-25/basic/transports.mdx#stdio, spec/2026-07-28/basic/transports/stdio.mdx
 */
import type { Readable, Writable } from "node:stream";
import type { ProtocolCore } from "../protocol/core.js";
import type { Connection, Sink } from "../protocol/connection.js";
import type { MessageLimits } from "../protocol/limits.js";
import type { JsonRpcMessage } from "../wire/jsonrpc.js";
import { PacedOutput } from "./paced.js";

export interface StdioOptions {
  input?: Readable;
  output?: Writable;
  /** Largest accepted line in bytes; longer lines are answered with -32600 and skipped. Default 64 MiB. */
  maxMessageBytes?: number;
  /**
   * Redirect console.* and process.stdout.write to stderr. Default true when output is process.stdout. Writes to file
   * descriptor 1 itself (`fs.writeSync(1, …)`, a child process spawned with `stdio: "inherit"`) bypass it and corrupt
   * the protocol stream: give children `["ignore", "pipe", "inherit"]` or send their stdout to stderr.
   */
  protectStdout?: boolean;
  /** Exit the process (code 0) after EOF once all work is answered. Default true when input is process.stdin. */
  exitOnEof?: boolean;
  /**
   * After EOF, how long in-flight requests may run on before their handlers are aborted (their signals fire), in ms;
   * a handler that still does not settle 1 s later is abandoned, so the process exits promptly
   * (spec/2026-07-28/basic/transports/stdio.mdx#shutdown). Default 10 000.
   */
  eofGraceMs?: number;
  /** Batch members, members at once, the size of one response (MessageLimits; defaults in docs/hosting.md#limits). */
  limits?: MessageLimits;
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
  const link = openLink(core, { input, output, write, limits: options.limits });
  await readLines(input, options.maxMessageBytes ?? 64 * 1024 * 1024, link.connection);
  await finish(link.connection, options.eofGraceMs ?? 10_000);
  link.connection.close();
  await link.paced.idle();
  if (isProcess && !link.outputClosed()) await new Promise<void>((r) => (output.writableNeedDrain ? output.once("drain", () => r()) : r()));
  if (options.exitOnEof ?? input === process.stdin) process.exit(0);
}

/** The pipe's ends and the writer of its output (the real stdout's when console output is redirected). */
interface Pipe {
  input: Readable;
  output: Writable;
  write: (chunk: string) => boolean;
  limits?: MessageLimits;
}

/** The pipe's Connection, writing through PacedOutput with back-pressure; stdout gone closes the link. */
function openLink(core: ProtocolCore, { input, output, write, limits }: Pipe): { connection: Connection; paced: PacedOutput; outputClosed: () => boolean } {
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
  const connection: Connection = core.connect(sink, { transport: "stdio", limits });
  // stdout gone (EPIPE, ENOSPC): the transport closed; abort the work and stop reading.
  output.on("error", (err) => {
    if (outputClosed) return;
    outputClosed = true;
    paced.close();
    process.stderr.write(`mcp runtime: stdout closed (${(err as NodeJS.ErrnoException).code ?? err.message}); stopping\n`);
    connection.close();
    input.destroy();
  });
  return { connection, paced, outputClosed: () => outputClosed };
}

/** One line (without its newline) to the connection: a message, or a parse error; an empty or blank line is skipped. */
function receiveLine(connection: Connection, line: Buffer): void {
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
}

/** Split `input` into lines until EOF; a line over `max` bytes is answered once (-32600) and skipped to its newline. */
async function readLines(input: Readable, max: number, connection: Connection): Promise<void> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  const drop = () => {
    pending = [];
    pendingBytes = 0;
  };
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
          drop();
          void connection.tooLarge(max);
          continue;
        }
        const line = pending.length ? Buffer.concat([...pending, part]) : part;
        drop();
        receiveLine(connection, line);
      }
      if (start < chunk.length && !skipping) {
        const rest = chunk.subarray(start);
        if (pendingBytes + rest.length > max) {
          // Oversized: answer once, drop what we have, and skip to the next newline.
          drop();
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
  if (pending.length && !skipping) receiveLine(connection, Buffer.concat(pending));
}

/**
 * After EOF: finish in-flight work for up to `graceMs`; open subscriptions end gracefully, and questions to the client
 * fail (it can no longer answer). Past the grace the handlers are aborted, and abandoned 1 s later.
 * spec/2026-07-28/basic/transports/stdio.mdx#shutdown
 */
async function finish(connection: Connection, graceMs: number): Promise<void> {
  connection.rejectClientRequests("stdin closed: the client can no longer answer");
  connection.endSubscriptions();
  const idle = connection.idle();
  const ender = setInterval(() => connection.endSubscriptions(), 20);
  const within = (ms: number) => {
    let timer!: NodeJS.Timeout;
    const late = new Promise<boolean>((r) => (timer = setTimeout(r, ms, false)));
    return Promise.race([idle.then(() => true), late]).finally(() => clearTimeout(timer));
  };
  if (!(await within(graceMs))) {
    process.stderr.write("mcp runtime: stdin closed and requests are still running; aborting them\n");
    connection.abortAll();
    await within(1000);
  }
  clearInterval(ender);
}
