import type { TestElicitationSep1034DefaultsTool } from "../../generated/handlers.js";
import { textOf } from "../media.js";

/** SEP-1034: every primitive field of the form carries a default. */
export const handler: TestElicitationSep1034DefaultsTool = async (_args, ctx) => {
  const answer = await ctx.elicit({
    message: "Please review and update the form fields with defaults",
    requestedSchema: {
      type: "object",
      properties: {
        name: { type: "string", description: "User name", default: "John Doe" },
        age: { type: "integer", description: "User age", default: 30 },
        score: { type: "number", description: "User score", default: 95.5 },
        status: {
          type: "string",
          description: "User status",
          enum: ["active", "inactive", "pending"],
          default: "active",
        },
        verified: { type: "boolean", description: "Verification status", default: true },
      },
      required: [],
    },
  } as Parameters<typeof ctx.elicit>[0]);
  return {
    content: [
      { type: "text", text: `Elicitation completed: action=${answer.action}, content=${textOf(answer.content ?? {})}` },
    ],
  };
};
