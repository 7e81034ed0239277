/** Modules that bundle.ts makes at bundle time. */
declare module "hosts:echo-validator" {
  /** ajv standalone code for app.ts's ECHO_INPUT. */
  const validate: ((data: unknown) => boolean) & { errors?: unknown };
  export default validate;
}
