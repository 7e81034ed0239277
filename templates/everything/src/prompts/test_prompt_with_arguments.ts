import type { TestPromptWithArgumentsPrompt } from "../../generated/handlers.js";

export const get: TestPromptWithArgumentsPrompt["get"] = ({ arg1, arg2 }) => ({
  messages: [
    { role: "user", content: { type: "text", text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } },
  ],
});

/** Completion of arg1; the runtime ranks the values by the typed prefix. */
export const complete: TestPromptWithArgumentsPrompt["complete"] = {
  arg1: () => ["test", "testing", "tested", "value1", "value2"],
};
