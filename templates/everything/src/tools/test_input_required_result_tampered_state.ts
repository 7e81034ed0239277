import type { TestInputRequiredResultTamperedStateTool } from "../../generated/handlers.js";

/** The runtime seals requestState (HMAC); a tampered one is answered with -32602 before this handler runs again. */
export const handler: TestInputRequiredResultTamperedStateTool = async (_args, ctx) => {
  const answer = await ctx.elicit(
    { message: "Confirm", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } },
    { key: "confirm" },
  );
  return { content: [{ type: "text", text: `Confirmed: ${answer.action}` }] };
};
