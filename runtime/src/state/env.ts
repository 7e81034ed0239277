/**
 * Reading the runtime's environment variables where the host may refuse: Deno without `--allow-env` throws on any
 * `process.env` read (NotCapable), and a Worker has no process environment unless nodejs_compat provides one.
 * A refused or missing variable reads as unset, so the server falls back to its defaults and still starts; options
 * passed in code always take precedence over the environment.
 */
export function readEnv(name: string): string | undefined {
  try {
    return globalThis.process?.env?.[name];
  } catch {
    return undefined;
  }
}
