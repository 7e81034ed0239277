import type { TestSamplingTool } from "../../generated/handlers.js";

export const handler: TestSamplingTool = async ({ prompt }, ctx) => {
  const answer = await ctx.sample({
    messages: [{ role: "user", content: { type: "text", text: prompt } }],
    maxTokens: 100,
  });
  const content = answer.content as { type: string; text?: string } | { type: string; text?: string }[];
  const first = Array.isArray(content) ? content[0] : content;
  return {
    content: [{ type: "text", text: `LLM response: ${first?.type === "text" ? first.text : JSON.stringify(content)}` }],
  };
};
