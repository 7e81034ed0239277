import type { TestInputRequiredResultCapabilitiesTool } from "../../generated/handlers.js";

/** Asks only for what the client declared: elicitation if it can, sampling if it can, roots if it can. */
export const handler: TestInputRequiredResultCapabilitiesTool = async (_args, ctx) => {
  const caps = ctx.clientCapabilities as Record<string, unknown>;
  const parts: string[] = [];
  if (caps.elicitation) {
    const a = await ctx.elicit(
      { message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
      { key: "user_name" },
    );
    parts.push(`elicitation: ${a.action}`);
  }
  if (caps.sampling) {
    const s = await ctx.sample(
      { messages: [{ role: "user", content: { type: "text", text: "Say hi" } }], maxTokens: 10 },
      { key: "sample" },
    );
    parts.push(`sampling: ${s.model}`);
  }
  if (caps.roots) {
    const r = await ctx.listRoots({ key: "client_roots" });
    parts.push(`roots: ${r.roots.length}`);
  }
  return {
    content: [
      { type: "text", text: parts.length ? parts.join("; ") : "The client declared no capability to ask with" },
    ],
  };
};
