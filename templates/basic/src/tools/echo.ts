import type { EchoTool } from "../../generated/handlers.js";

/** Returns the text it is given, as one text content item. */
export const handler: EchoTool = ({ text }) => ({ content: [{ type: "text", text }] });
