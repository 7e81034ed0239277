/**
 * What `create-mcp-server --from-openapi` / `import openapi` records of each OpenAPI operation, and what the project's
 * API client (client.ts) needs to call it: the contract between the importer, which writes `src/api/operations.ts`
 * from the document, and the handlers, which pass a tool's arguments through `callOperation`.
 *
 * Plain data (JSON-serialisable), so the importer can compare what it wrote with what it would write now.
 */

/** A JSON Schema (2020-12 dialect, as the tools' schemas use: OpenAPI 3.0's `nullable`/`example` already converted). */
export type JsonSchema = Record<string, unknown> | boolean;

/** One parameter of the operation (OpenAPI 3.x `Parameter Object`, `in` path/query/header/cookie). */
export interface ParameterDescriptor {
  /** The name on the wire (the path template's `{name}`, the query key, the header or cookie name). */
  name: string;
  in: "path" | "query" | "header" | "cookie";
  /** The property of the tool's input that carries it (names that collide across locations are kept apart here). */
  arg: string;
  required: boolean;
  /** OpenAPI serialisation (`style`/`explode`); absent means the location's default (form/explode for query, simple for path and header, form for cookie). */
  style?: "simple" | "label" | "matrix" | "form" | "spaceDelimited" | "pipeDelimited" | "deepObject";
  explode?: boolean;
  /** Query values sent as they are (`allowReserved`). */
  allowReserved?: boolean;
  schema?: JsonSchema;
}

/** The request body (OpenAPI 3.x `Request Body Object`; Swagger 2.0 `in: body`/`formData` converted to it). */
export interface BodyDescriptor {
  /** The property of the tool's input that carries the whole body. */
  arg: string;
  required: boolean;
  /** The media type sent: `application/json` (or a `+json` type), `application/x-www-form-urlencoded`, `multipart/form-data`, `text/plain`, `application/octet-stream`. */
  contentType: string;
  schema?: JsonSchema;
}

/** One documented response, by status (`"200"`, `"2XX"`, `"default"`). */
export interface ResponseDescriptor {
  /** The media type documented (the JSON one where there are several); absent for no content. */
  contentType?: string;
  schema?: JsonSchema;
}

/** A security scheme of the document (`components.securitySchemes`), with the environment variables that configure it. */
export type SecuritySchemeDescriptor =
  | { type: "apiKey"; in: "header" | "query" | "cookie"; name: string; env: { value: string } }
  | { type: "http"; scheme: "bearer"; env: { token: string } }
  | { type: "http"; scheme: "basic"; env: { username: string; password: string } }
  | {
      type: "oauth2";
      flow: "clientCredentials";
      tokenUrl: string;
      scopes: string[];
      env: { clientId: string; clientSecret: string };
    }
  /**
   * Schemes the client cannot satisfy by itself (OAuth 2 authorization code, implicit or password, OpenID Connect,
   * mutual TLS, http schemes but bearer and basic). `bearer`: whether a bearer token stands for it (OAuth 2, OpenID
   * Connect): then the MCP caller's, when passthrough is on, can; a client certificate (mutual TLS) nothing here can.
   */
  | { type: "unsupported"; original: string; bearer: boolean; env: Record<string, never> };

/** One operation: the tool that calls it and how to build its HTTP request. */
export interface OperationDescriptor {
  /** The tool's name in mcp.json. */
  tool: string;
  /** The document's `operationId`, or `METHOD /path` when it has none. */
  operationId: string;
  method: "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";
  /** The path template, as in the document (`/pets/{petId}`). */
  path: string;
  parameters: ParameterDescriptor[];
  body?: BodyDescriptor;
  responses: Record<string, ResponseDescriptor>;
  /**
   * How a success answer becomes the tool's result: `body` (the response's JSON schema is an object: it is the tool's
   * outputSchema and the body its structuredContent), `wrapped` (any other JSON schema: outputSchema
   * `{ type: "object", properties: { result: <schema> }, required: ["result"] }`, structuredContent `{ result: body }`),
   * `text` (no JSON schema: text content only). Every result also carries the body as text content, for revisions
   * before structured content (2025-06-18) and clients that read only text.
   */
  output: "body" | "wrapped" | "text";
  /** Alternatives (any one suffices), each the schemes required together with their scopes; `[]` means none; absent means the document's top-level `security`. */
  security?: Array<Record<string, string[]>>;
}

/** The API as a whole. */
export interface ApiDescriptor {
  title: string;
  /** The document's version (`info.version`). */
  version: string;
  /** Base URLs from `servers` (variables substituted with their defaults), first one the default; `API_BASE_URL` overrides. */
  servers: string[];
  /** The document's top-level `security`. */
  security: Array<Record<string, string[]>>;
  securitySchemes: Record<string, SecuritySchemeDescriptor>;
}
