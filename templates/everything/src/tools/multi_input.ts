import type { MultiInputTool } from "../../generated/handlers.js";
import { sleep } from "../media.js";

/** A task with two outstanding input requests at once (name, color): it stays input_required until both are answered. */
export const handler: MultiInputTool = async (_args, ctx) => {
  await sleep(100, ctx.signal);
  const [name, color] = await Promise.all([
    ctx.elicit(
      { message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
      { key: "name" },
    ),
    ctx.elicit(
      {
        message: "Your favourite color?",
        requestedSchema: { type: "object", properties: { color: { type: "string" } } },
      },
      { key: "color" },
    ),
  ]);
  return {
    content: [
      { type: "text", text: `name=${JSON.stringify(name.content ?? {})} color=${JSON.stringify(color.content ?? {})}` },
    ],
  };
};
