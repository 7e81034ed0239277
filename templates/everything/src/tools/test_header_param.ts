import type { TestHeaderParamTool } from "../../generated/handlers.js";

export const handler: TestHeaderParamTool = ({ region }) => ({
  content: [{ type: "text", text: `Region: ${region}` }],
});
