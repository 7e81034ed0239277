import type { TestInputRequiredResultElicitationTool } from "../../generated/handlers.js";

/** 2026-07-28: the first call answers input_required with inputRequests.user_name; the retry with the answer completes. */
export const handler: TestInputRequiredResultElicitationTool = async (_args, ctx) => {
  const answer = await ctx.elicit(
    {
      message: "What is your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    },
    { key: "user_name" },
  );
  const name = (answer.content as { name?: unknown } | undefined)?.name;
  if (answer.action !== "accept" || typeof name !== "string")
    return { isError: true, content: [{ type: "text", text: "No name given" }] };
  return { content: [{ type: "text", text: `Hello, ${name}!` }] };
};
