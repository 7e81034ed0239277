import type { TestInputRequiredResultListRootsTool } from "../../generated/handlers.js";

export const handler: TestInputRequiredResultListRootsTool = async (_args, ctx) => {
  const { roots } = await ctx.listRoots({ key: "client_roots" });
  return { content: [{ type: "text", text: `Roots: ${roots.map((r) => r.uri).join(", ") || "(none)"}` }] };
};
