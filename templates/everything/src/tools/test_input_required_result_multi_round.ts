import type { TestInputRequiredResultMultiRoundTool } from "../../generated/handlers.js";

/** Two rounds: step2 is asked only once step1 is answered. */
export const handler: TestInputRequiredResultMultiRoundTool = async (_args, ctx) => {
  const step1 = await ctx.elicit(
    { message: "Step 1: your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
    { key: "step1" },
  );
  const step2 = await ctx.elicit(
    { message: "Step 2: your city?", requestedSchema: { type: "object", properties: { city: { type: "string" } } } },
    { key: "step2" },
  );
  return {
    content: [
      {
        type: "text",
        text: `step1=${JSON.stringify(step1.content ?? {})} step2=${JSON.stringify(step2.content ?? {})}`,
      },
    ],
  };
};
