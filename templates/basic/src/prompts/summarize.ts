import type { SummarizePrompt } from "../../generated/handlers.js";

const STYLES = ["brief", "detailed", "bullet-points"];

export const get: SummarizePrompt["get"] = ({ text, style = "brief" }) => ({
  description: `Summarize (${style})`,
  messages: [
    { role: "user", content: { type: "text", text: `Summarize the following text (style: ${style}):\n\n${text}` } },
  ],
});

/** Completion of the style argument. */
export const complete: SummarizePrompt["complete"] = {
  style: () => STYLES,
};
