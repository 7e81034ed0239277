/**
 * ajv-formats' `uri` and `byte` checks (the only formats the MCP schemas use), inlined into the generated validators
 * instead of `import ... from "ajv-formats/dist/formats.js"`: that import is the only CommonJS module a server loads
 * at start, and loading one from ESM (Node's CommonJS loader and its export lexer) was about 15 ms of a stdio
 * server's 137 ms cold start (#22). The regular expressions are read from the installed ajv-formats' own
 * dist/formats.js, so the verdicts stay exactly its (test/generator/inline-formats.test.ts compares them); where
 * they cannot be read, or another format is used, the import stays.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const FORMATS = "ajv-formats/dist/formats";
const NAMES = { uri: "__formatUri", byte: "__formatByte" } as const;

/** The `const NAME = /…/flags;` lines of ajv-formats' dist/formats.js that the checks below need, or undefined. */
function regexLines(): Record<"NOT_URI_FRAGMENT" | "URI" | "BYTE", string> | undefined {
  let text: string;
  try {
    text = readFileSync(createRequire(import.meta.url).resolve(`${FORMATS}.js`), "utf8");
  } catch {
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const name of ["NOT_URI_FRAGMENT", "URI", "BYTE"]) {
    const m = new RegExp(`^const ${name} = (/.+/[a-z]*);$`, "m").exec(text);
    if (!m) return undefined;
    out[name] = m[1];
  }
  return out as Record<"NOT_URI_FRAGMENT" | "URI" | "BYTE", string>;
}

/**
 * `code` (ajv standalone output, before esmRequires) with `require("ajv-formats/dist/formats").fullFormats.uri` and
 * `.byte` replaced by inlined functions of the same verdicts, defined at its top. Unchanged when another format is
 * used or the expressions cannot be read.
 */
export function inlineFormats(code: string): string {
  const uses = [...code.matchAll(/require\("ajv-formats\/dist\/formats"\)\.fullFormats\.([A-Za-z0-9_$-]+)/g)].map((m) => m[1]);
  if (!uses.length || uses.some((f) => !(f in NAMES))) return code;
  const re = regexLines();
  if (!re) return code;
  const prelude =
    `// ajv-formats' "uri" and "byte" checks (fullFormats), inlined from its dist/formats.js (generator/inline-formats.ts).\n` +
    `const __NOT_URI_FRAGMENT = ${re.NOT_URI_FRAGMENT};\n` +
    `const __URI = ${re.URI};\n` +
    `function ${NAMES.uri}(str) {\n  return __NOT_URI_FRAGMENT.test(str) && __URI.test(str);\n}\n` +
    `const __BYTE = ${re.BYTE};\n` +
    `function ${NAMES.byte}(str) {\n  __BYTE.lastIndex = 0;\n  return __BYTE.test(str);\n}\n`;
  const body = code.replace(/require\("ajv-formats\/dist\/formats"\)\.fullFormats\.(uri|byte)/g, (_, f: "uri" | "byte") => NAMES[f]);
  // After ajv's "use strict" directive, which must stay first.
  const strict = /^"use strict";/.exec(body);
  return strict ? `"use strict";\n${prelude}${body.slice(strict[0].length)}` : prelude + body;
}
