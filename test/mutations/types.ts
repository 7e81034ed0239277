/** One rule-breaking patch of the project's source, and the test file that must fail once it is applied. */
export interface Mutation {
  /** Unique, kebab-case: what the runner prints and what `--only` names. */
  id: string;
  /** The rule the patch breaks, with the spec page (spec/<revision>/<page>.mdx#anchor) or RFC section it comes from. */
  rule: string;
  /** The patched file, relative to the repository: runtime/src/… (rebuilt into runtime/dist) or generator/… (regenerated into out/). */
  file: string;
  /** An exact snippet of `file` that must occur exactly once (else the mutation is stale: the code moved). */
  find: string;
  /** What replaces it. */
  replace: string;
  /** The test file that must fail with the patch, relative to the repository. */
  test: string;
  /** A vitest `-t` name filter: only the tests that hold the rule run (faster); at least one must run. */
  filter?: string;
}
