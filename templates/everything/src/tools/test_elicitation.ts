import type { TestElicitationTool } from "../../generated/handlers.js";
import { textOf } from "../media.js";

export const handler: TestElicitationTool = async ({ message }, ctx) => {
  const answer = await ctx.elicit({
    message,
    requestedSchema: {
      type: "object",
      properties: {
        username: { type: "string", description: "Your username" },
        email: { type: "string", description: "Your email address", format: "email" },
      },
      required: ["username", "email"],
    },
  });
  return {
    content: [
      { type: "text", text: `User response: ${textOf(answer.action === "accept" ? answer.content : answer.action)}` },
    ],
  };
};
