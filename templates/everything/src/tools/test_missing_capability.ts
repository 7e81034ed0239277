import type { TestMissingCapabilityTool } from "../../generated/handlers.js";

/**
 * Needs sampling. Without the client's sampling capability, ctx.sample throws MissingCapabilityError: in 2026-07-28
 * the runtime answers -32021 with data.requiredCapabilities; earlier revisions have no such code, so it is an isError result.
 */
export const handler: TestMissingCapabilityTool = async (_args, ctx) => {
  const answer = await ctx.sample({
    messages: [{ role: "user", content: { type: "text", text: "ping" } }],
    maxTokens: 10,
  });
  return { content: [{ type: "text", text: `Sampled with model ${answer.model}` }] };
};
