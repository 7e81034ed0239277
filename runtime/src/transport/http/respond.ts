/** Answers the endpoint gives without a Connection: JSON-RPC error bodies with an HTTP status, and 500s. */
import type { Revision } from "../../rules.js";
import { errorResponse } from "../../wire/errors.js";
import type { RequestId } from "../../wire/jsonrpc.js";
import type { Reply } from "./io.js";

/** Report a failure of the runtime's own on stderr (console.error where a platform has no process.stderr). */
export function logError(err: unknown): void {
  const text = `mcp runtime: ${String((err as Error)?.stack ?? err)}\n`;
  const stderr = (globalThis as { process?: { stderr?: { write?: (s: string) => void } } }).process?.stderr;
  if (stderr?.write) stderr.write(text);
  else console.error(text.trimEnd());
}

/** Answer with `status` and a JSON-RPC error (its id form by `revision`'s rules), unless the response is under way. */
export function replyError(res: Reply, status: number, revision: Revision, code: number, message: string, id?: RequestId | null, headers?: Record<string, string>, data?: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify(errorResponse(revision, id, code, message, data));
  if (headers) for (const k in headers) res.setHeader(k, headers[k]);
  res.statusCode = status;
  res.setHeader("content-type", "application/json");
  res.end(body);
}
