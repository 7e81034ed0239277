import { rules } from "@create-mcp-server/runtime";
import type { TestAudioContentTool } from "../../generated/handlers.js";
import { WAV_BASE64 } from "../media.js";

export const handler: TestAudioContentTool = (_args, ctx) => {
  // Audio content exists from 2025-03-26: an older peer gets a tool error instead of a block its revision does not define.
  if (!rules.hasField(ctx.revision, "AudioContent", "data")) {
    return { isError: true, content: [{ type: "text", text: `audio content is not defined in MCP ${ctx.revision}` }] };
  }
  return { content: [{ type: "audio", data: WAV_BASE64, mimeType: "audio/wav" }] };
};
