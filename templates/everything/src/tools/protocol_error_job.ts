import { McpError } from "@create-mcp-server/runtime";
import type { ProtocolErrorJobTool } from "../../generated/handlers.js";
import { sleep } from "../media.js";

/** A task that ends in a JSON-RPC error (-32603): the task is failed, with `error` and no `result`. */
export const handler: ProtocolErrorJobTool = async (_args, ctx) => {
  await sleep(200, ctx.signal);
  throw new McpError(-32603, "Internal error: the job's backend is unavailable");
};
