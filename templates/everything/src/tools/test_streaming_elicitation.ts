import type { TestStreamingElicitationTool } from "../../generated/handlers.js";
import { textOf } from "../media.js";

/**
 * Elicits. In 2026-07-28 the runtime never sends the request on the response stream: the ask becomes an input_required
 * result (MRTR), so the stream carries notifications and results only. Earlier revisions get an elicitation/create request.
 */
export const handler: TestStreamingElicitationTool = async (_args, ctx) => {
  ctx.progress(0, 1, "asking the user");
  const answer = await ctx.elicit(
    { message: "Please confirm", requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } } } },
    { key: "confirmation" },
  );
  ctx.progress(1, 1, "answered");
  return {
    content: [{ type: "text", text: `Streaming elicitation answered: ${textOf(answer.content ?? answer.action)}` }],
  };
};
