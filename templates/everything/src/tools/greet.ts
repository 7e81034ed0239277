import type { GreetTool } from "../../generated/handlers.js";

/** Always answered directly, never as a task (its taskSupport is the default, "forbidden"), even with a legacy `task` param. */
export const handler: GreetTool = ({ name }) => ({ content: [{ type: "text", text: `Hello, ${name}!` }] });
