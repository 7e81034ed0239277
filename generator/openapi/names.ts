/**
 * The names the importer derives from an OpenAPI document (docs/openapi.md, "Names"): tool names (spec/2025-11-25/
 * server/tools.mdx#tool-names: 1-128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`), the tool's argument names, and
 * the stems of the environment variables of the security schemes.
 */

/** The longest tool name the spec allows. */
export const MAX_TOOL_NAME = 128;
/** Argument names are kept to 64 characters of A-Z, a-z, 0-9, `_`, `-` and `.`: what the model providers' tool APIs accept. */
export const MAX_ARG_NAME = 64;

/** A tool name from any text: each run of other characters becomes one `_`, none at either end, 128 characters at most. */
export function validName(text: string, max = MAX_TOOL_NAME, fallback = "operation"): string {
  const name = text
    .replace(/[^A-Za-z0-9_.-]+/g, "_")
    .replace(/^[_.-]+|[_.-]+$/g, "")
    .slice(0, max);
  return name || fallback;
}

/** The tool name of an operation without an operationId: `get /pets/{petId}` → `get_pets_petId`. */
export function methodPathName(method: string, path: string): string {
  return validName(`${method}/${path.replace(/[{}]/g, "")}`);
}

/**
 * The type name stem the codegen gives a tool: codegen/src/names.ts pascal itself, so the two cannot drift:
 * `get-pet` → `GetPet`. The project's generated/handlers.ts names `<Stem>Tool`, `<Stem>Args`, `<Stem>Result`.
 */
import { pascal } from "../../codegen/src/names.js";

export { pascal };

/**
 * The key two names collide on: the codegen's type names (`get-pet`, `get_pet` and `getPet` are all `GetPet…`) and
 * file names, compared without case (a file system that ignores case holds one of `getPet.ts`, `GetPet.ts`).
 */
export const collisionKey = (name: string): string => pascal(name).toLowerCase();

/**
 * Unique names, in the order asked: the first keeps its name, a later one that collides (collisionKey) with it or with
 * a `reserved` name (the project's own tools) takes `-2`, `-3`, … (cut to fit 128 characters).
 */
export function uniqueNames(wanted: readonly string[], reserved: Iterable<string> = []): string[] {
  const taken = new Set([...reserved].map(collisionKey));
  return wanted.map((name) => {
    let candidate = name;
    for (let n = 2; taken.has(collisionKey(candidate)); n++) candidate = `${name.slice(0, MAX_TOOL_NAME - String(n).length - 1)}-${n}`;
    taken.add(collisionKey(candidate));
    return candidate;
  });
}

/** A parameter's argument name: its name with each run of other characters as `_` (`filter[name]` → `filter_name`), 64 at most. */
export function argName(name: string): string {
  return validName(name, MAX_ARG_NAME, "param");
}

/** SCREAMING_SNAKE_CASE of a scheme name: `petstore_auth` → `PETSTORE_AUTH`, `ApiKeyAuth` → `API_KEY_AUTH`, `x-api-key` → `X_API_KEY`. */
export function envStem(name: string): string {
  const stem = name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toUpperCase();
  if (!stem) return "API";
  return /^\d/.test(stem) ? `_${stem}` : stem;
}
