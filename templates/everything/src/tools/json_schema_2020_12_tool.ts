import type { JsonSchema202012ToolTool } from "../../generated/handlers.js";

/** Its arguments were validated against the 2020-12 inputSchema ($ref, anyOf, allOf, if/then/else) before it runs. */
export const handler: JsonSchema202012ToolTool = (args) => ({
  content: [{ type: "text", text: `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}` }],
});
