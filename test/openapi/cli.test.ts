// The command end to end: `create-mcp-server my-api --from-openapi <petstore> --yes`, then `import openapi` after the
// document changed: added, changed and removed printed, the user's edited handler kept, an unedited one of a removed
// tool deleted, the project's own tool kept.
import { appendFileSync, cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../helpers.js";
import { create, tempDir } from "../scaffold/support.js";

const PETSTORE = join(ROOT, "node_modules", "@readme", "oas-examples", "3.0", "json", "petstore.json");

it("scaffolds from the Petstore, then import openapi refreshes it keeping what the user changed", async () => {
  const base = tempDir("openapi-cli");
  const doc = join(base, "petstore.json");
  cpSync(PETSTORE, doc);
  const project = join(base, "my-api");
  const made = await create([project, "--from-openapi", doc, "--yes", "--no-install", "--no-git"]);
  expect(made.status, made.stderr).toBe(0);
  expect(made.stdout).toContain(`Imported 20 tools from ${doc} (OpenAPI 3.0)`);
  const mcp = JSON.parse(readFileSync(join(project, "mcp.json"), "utf8")) as { tools: { name: string }[] };
  expect(mcp.tools.map((t) => t.name)).not.toContain("echo");
  expect(existsSync(join(project, "src", "tools", "echo.ts"))).toBe(false);
  expect(existsSync(join(project, "openapi", "petstore.json"))).toBe(true);
  // The project's page on its API names every variable the client reads, the scheme none can fill, and the mock.
  const apiReadme = readFileSync(join(project, "openapi", "README.md"), "utf8");
  for (const variable of ["API_BASE_URL", "API_KEY", "API_TIMEOUT_MS", "API_MAX_RESPONSE_BYTES", "API_FORWARD_MCP_TOKEN"]) expect(apiReadme).toContain(`| \`${variable}\` |`);
  // The defaults it states are the client's (templates/_openapi/src/api/client.ts), both pinned here by hand.
  expect(apiReadme).toContain("in milliseconds (default 30000)");
  expect(apiReadme).toContain("in bytes (default 5242880)");
  const client = readFileSync(join(project, "src", "api", "client.ts"), "utf8");
  expect(client).toContain("const DEFAULT_TIMEOUT_MS = 30_000;");
  expect(client).toContain("const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;");
  expect(apiReadme).toContain("No variable can satisfy `petstore_auth` (oauth2 implicit)");
  expect(apiReadme).toContain("`npx prism mock openapi/petstore.json -h 127.0.0.1 -p 4010`");

  // The user edits one handler and adds a tool of their own; the API owner changes the document.
  appendFileSync(join(project, "src", "tools", "getPetById.ts"), "// mine\n");
  mcp.tools.push({ name: "mine", description: "mine", inputSchema: { type: "object" } } as never);
  writeFileSync(join(project, "mcp.json"), JSON.stringify(mcp));
  const d = JSON.parse(readFileSync(doc, "utf8"));
  delete d.paths["/store/inventory"];
  d.paths["/pet/{petId}"].get.summary = "Find one pet";
  d.paths["/hello"] = { get: { operationId: "hello", responses: { "200": { description: "ok" } } } };
  writeFileSync(doc, JSON.stringify(d));

  const r = await create(["import", "openapi", doc, "--dir", project]);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout.split("\n").slice(0, 4)).toEqual([
    "added 1 tool: hello",
    "changed 1 tool: getPetById",
    "removed 1 tool: getInventory",
    "kept src/tools/getPetById.ts: edited since the import wrote it; its tool getPetById is refreshed, the handler stays yours",
  ]);
  expect(readFileSync(join(project, "src", "tools", "getPetById.ts"), "utf8")).toMatch(/\/\/ mine\n$/);
  expect(existsSync(join(project, "src", "tools", "getInventory.ts"))).toBe(false);
  expect(existsSync(join(project, "src", "tools", "hello.ts"))).toBe(true);
  const after = JSON.parse(readFileSync(join(project, "mcp.json"), "utf8")) as { tools: { name: string; title?: string }[] };
  expect(after.tools[0].name).toBe("mine");
  expect(after.tools.find((t) => t.name === "getPetById")!.title).toBe("Find one pet");
});
