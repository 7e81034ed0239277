import type { TestInputRequiredResultPromptPrompt } from "../../generated/handlers.js";

/** 2026-07-28: input_required with inputRequests.user_context, then the messages. */
export const get: TestInputRequiredResultPromptPrompt["get"] = async (_args, ctx) => {
  const answer = await ctx.elicit(
    {
      message: "What context should the prompt use?",
      requestedSchema: { type: "object", properties: { context: { type: "string" } } },
    },
    { key: "user_context" },
  );
  const context = (answer.content as { context?: unknown } | undefined)?.context ?? "(none)";
  return { messages: [{ role: "user", content: { type: "text", text: `Context: ${String(context)}` } }] };
};
