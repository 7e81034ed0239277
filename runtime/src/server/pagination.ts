/** Opaque pagination cursors: base64url of {list, offset}. spec/2025-11-25/server/utilities/pagination.mdx */
import { McpError } from "../wire/jsonrpc.js";
import { type Revision, errorCode } from "../rules.js";

export function encodeCursor(list: string, offset: number): string {
  return Buffer.from(JSON.stringify({ l: list, o: offset })).toString("base64url");
}

/** The offset a cursor of `list` names; no cursor is the first page, and a cursor not made by encodeCursor for `list` is invalid params. */
export function decodeCursor(list: string, cursor: unknown, revision: Revision, length: number): number {
  if (cursor === undefined) return 0;
  try {
    const parsed = JSON.parse(Buffer.from(String(cursor), "base64url").toString("utf8")) as { l?: unknown; o?: unknown };
    if (parsed.l === list && Number.isSafeInteger(parsed.o) && (parsed.o as number) >= 0 && (parsed.o as number) <= length) return parsed.o as number;
  } catch {
    /* fall through */
  }
  throw new McpError(errorCode(revision, "INVALID_PARAMS")!, `Invalid cursor: ${JSON.stringify(cursor)}`);
}

/** The page of `items` that `params.cursor` names, `pageSize` long, with the cursor of the next page when there is one. */
export function page<T>(list: string, items: T[], params: Record<string, unknown> | undefined, revision: Revision, pageSize: number): { items: T[]; nextCursor?: string } {
  const offset = decodeCursor(list, params?.cursor, revision, items.length);
  const end = offset + pageSize;
  return { items: items.slice(offset, end), nextCursor: end < items.length ? encodeCursor(list, end) : undefined };
}
