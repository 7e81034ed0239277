/** Modules that bundle.ts makes at bundle time. */
declare module "hosts:validators" {
  type Validate = ((data: unknown) => boolean) & { errors?: unknown };
  /** ajv standalone code for app.ts's ECHO_INPUT and ASK_INPUT. */
  export const echo: Validate;
  export const ask: Validate;
}
