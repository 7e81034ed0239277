// ESLint over the hand-written source: rules that catch bugs, none about style (prettier owns the layout).
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    // Generated output (out/, dist/, runtime/dist/, codegen/dist/, bench/.generated/) is checked by regenerating it, not by
    // linting; the projects older releases scaffolded (test/fixtures/projects/) are kept as those releases wrote them.
    ignores: [
      "test/fixtures/projects/",
      "dist/",
      "out/",
      "out.tmp-*/",
      "out.old-*/",
      "runtime/dist/",
      "runtime/dist.tmp-*/",
      "runtime/dist.old-*/",
      "codegen/dist/",
      "bench/.generated/",
      ".vitest-tmp/",
      "schemas/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,mts,js,mjs}"],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `== null` is the one loose comparison with a single meaning (null or undefined).
      eqeqeq: ["error", "always", { null: "ignore" }],
      // A map/filter/find callback that forgets to return yields undefined silently.
      "array-callback-return": ["error", { checkForEach: false }],
      "no-self-compare": "error",
      "no-unreachable-loop": "error",
      "no-constructor-return": "error",
      // `_`-prefixed names are deliberately unused (a positional parameter, a discarded destructured field).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true }],
    },
  },
  {
    // Tests read untyped JSON-RPC messages off the wire; `any` there is the honest type, not a shortcut.
    files: ["test/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
