import { rules } from "@create-mcp-server/runtime";
import type { TestElicitationSep1330EnumsTool } from "../../generated/handlers.js";
import { textOf } from "../media.js";

/**
 * SEP-1330: untitled and titled single-select, the legacy enumNames form, untitled and titled multi-select. Revisions
 * before 2025-11-25 define only the plain enum (with enumNames) in an elicitation form, so they are sent only those.
 */
export const handler: TestElicitationSep1330EnumsTool = async (_args, ctx) => {
  const sep1330 = rules.hasField(ctx.revision, "TitledSingleSelectEnumSchema", "oneOf");
  const answer = await ctx.elicit({
    message: "Please select options from the enum fields",
    requestedSchema: {
      type: "object",
      properties: {
        untitledSingle: { type: "string", description: "Select one option", enum: ["option1", "option2", "option3"] },
        legacyEnum: {
          type: "string",
          description: "Select one option (legacy)",
          enum: ["opt1", "opt2", "opt3"],
          enumNames: ["Option One", "Option Two", "Option Three"],
        },
        ...(sep1330 ? SEP1330_FIELDS : {}),
      },
      required: [],
    },
  } as Parameters<typeof ctx.elicit>[0]);
  return {
    content: [
      { type: "text", text: `Elicitation completed: action=${answer.action}, content=${textOf(answer.content ?? {})}` },
    ],
  };
};

const SEP1330_FIELDS = {
  titledSingle: {
    type: "string",
    description: "Select one option with titles",
    oneOf: [
      { const: "value1", title: "First Option" },
      { const: "value2", title: "Second Option" },
      { const: "value3", title: "Third Option" },
    ],
  },
  untitledMulti: {
    type: "array",
    description: "Select multiple options",
    minItems: 1,
    maxItems: 3,
    items: { type: "string", enum: ["option1", "option2", "option3"] },
  },
  titledMulti: {
    type: "array",
    description: "Select multiple options with titles",
    minItems: 1,
    maxItems: 3,
    items: {
      anyOf: [
        { const: "value1", title: "First Choice" },
        { const: "value2", title: "Second Choice" },
        { const: "value3", title: "Third Choice" },
      ],
    },
  },
};
