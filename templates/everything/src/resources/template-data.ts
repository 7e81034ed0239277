import { ResourceNotFoundError } from "@create-mcp-server/runtime";
import type { TemplateDataResourceTemplate } from "../../generated/handlers.js";

/** test://template/{id}/data: JSON data for a numeric id; any other id does not exist. */
export const read: TemplateDataResourceTemplate["read"] = (uri, { id }) => {
  if (!/^\d+$/.test(id)) throw new ResourceNotFoundError(uri);
  return {
    contents: [
      {
        uri,
        mimeType: "application/json",
        text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
      },
    ],
  };
};

export const complete: TemplateDataResourceTemplate["complete"] = {
  id: () => ["123", "456", "789"],
};
