/**
 * The names the generated code and the handler files take from mcp.json's names: one file name and one type name per
 * declaration, the same in generated/ and src/.
 */

/** The file stem of a declaration: `get.weather` → `get_weather` (src/tools/get_weather.ts, validators/get_weather.input.ts). */
export function fileName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** The type name stem of a declaration: `get-weather` → `GetWeather` (GetWeatherArgs, GetWeatherTool). */
export function pascal(name: string): string {
  return (
    name
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean)
      .map((w) => w[0].toUpperCase() + w.slice(1))
      .join("")
      .replace(/^(\d)/, "_$1") || "Unnamed"
  );
}

/** The binding name stem of a declaration in register.ts: `get-weather` → `getWeather`. */
export function camel(name: string): string {
  const p = pascal(name);
  return p[0].toLowerCase() + p.slice(1);
}

/** `1 tool`, `2 tools`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** Variable names of an RFC 6570 URI template, each once, in order: `test://template/{id}/data` → ["id"]. */
export function templateVariables(uriTemplate: string): string[] {
  const names: string[] = [];
  for (const [, expr] of uriTemplate.matchAll(/\{([^}]+)\}/g)) {
    for (const part of expr.replace(/^[+#./;?&]/, "").split(",")) names.push(part.replace(/[*]$|:\d+$/, ""));
  }
  return [...new Set(names)];
}
