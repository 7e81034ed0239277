import type { TestInputRequiredResultSamplingTool } from "../../generated/handlers.js";

export const handler: TestInputRequiredResultSamplingTool = async (_args, ctx) => {
  const answer = await ctx.sample(
    { messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }], maxTokens: 100 },
    { key: "capital_question" },
  );
  const content = answer.content as { type: string; text?: string };
  return { content: [{ type: "text", text: `The model says: ${content.text ?? JSON.stringify(content)}` }] };
};
