// Precompiles the echo tool's input schema to an ajv standalone module, as a generated
// project's `npm run generate` does, so the runtime server is measured the way it is deployed.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";
import { esmRequires } from "../../codegen/dist/validators.js";

export const ECHO_INPUT_SCHEMA = {
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"],
};
const here = dirname(fileURLToPath(import.meta.url));
export const ECHO_VALIDATOR = join(here, "..", ".generated", "echo-input.mjs");

export function precompileEcho() {
  const ajv = new Ajv2020({
    strict: false,
    code: { source: true, esm: true, lines: false, optimize: true },
  });
  const code = standaloneCode.default(ajv, ajv.compile(ECHO_INPUT_SCHEMA));
  mkdirSync(dirname(ECHO_VALIDATOR), { recursive: true });
  // As a project's validators are emitted (codegen's esmRequires): ajv's require() calls become static imports. A
  // createRequire(import.meta.url) preamble, which this file had until 2026-12-07, cost every cold start about 2.5 ms
  // that no generated server pays.
  writeFileSync(
    ECHO_VALIDATOR,
    esmRequires(code.replace(/^"use strict";/, "")),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) precompileEcho();
