import type { AddTool } from "../../generated/handlers.js";

/** Adds two numbers. The structured result must match the tool's outputSchema (type AddResult). */
export const handler: AddTool = ({ a, b }) => {
  const sum = a + b;
  return { content: [{ type: "text", text: String(sum) }], structuredContent: { sum } };
};
