import type { TestInputRequiredResultMultipleInputsTool } from "../../generated/handlers.js";

/** Three asks at once: one input_required round carries all of them. */
export const handler: TestInputRequiredResultMultipleInputsTool = async (_args, ctx) => {
  const [who, greeting, roots] = await Promise.all([
    ctx.elicit(
      { message: "What is your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
      { key: "user_name" },
    ),
    ctx.sample(
      { messages: [{ role: "user", content: { type: "text", text: "Write a one-line greeting." } }], maxTokens: 50 },
      { key: "greeting" },
    ),
    ctx.listRoots({ key: "client_roots" }),
  ]);
  const name = (who.content as { name?: unknown } | undefined)?.name ?? "(anonymous)";
  const text = (greeting.content as { text?: string }).text ?? "";
  return { content: [{ type: "text", text: `${String(name)}: ${text} (${roots.roots.length} roots)` }] };
};
