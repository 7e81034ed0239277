import type { TestReconnectionTool } from "../../generated/handlers.js";
import { sleep } from "../media.js";

/**
 * SSE polling (spec/2025-11-25/basic/transports.mdx#sending-messages-to-the-server): close the connection carrying
 * this request's SSE stream, then answer; the client gets the answer by resuming the stream with Last-Event-ID.
 * Where the revision or transport has no polling (stdio, the modern era, before 2025-11-25) closeStream() declines
 * and the answer arrives as usual.
 */
export const handler: TestReconnectionTool = async (_args, ctx) => {
  const closed = ctx.closeStream();
  await sleep(100);
  return { content: [{ type: "text", text: `Reconnection test completed (connection closed first: ${closed})` }] };
};
