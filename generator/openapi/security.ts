/**
 * The document's security schemes (`components.securitySchemes`) → SecuritySchemeDescriptors, each with the
 * environment variables that configure it (docs/openapi.md, "Security"): the scheme name in SCREAMING_SNAKE_CASE
 * (names.ts envStem) and a suffix per kind, so no variable can be one the client reads itself (API_BASE_URL, …).
 */
import type { SecuritySchemeDescriptor } from "../../templates/_openapi/src/api/descriptor.js";
import { envStem } from "./names.js";
import { isObject } from "./schema.js";

/** The variables the project's API client reads itself: never a scheme's. */
export const CLIENT_VARIABLES = ["API_BASE_URL", "API_TIMEOUT_MS", "API_MAX_RESPONSE_BYTES", "API_FORWARD_MCP_TOKEN"];

/** Each scheme's variables, by kind, from its stem: `api_key` (apiKey) → API_KEY; `petstore_auth` (oauth2) → PETSTORE_AUTH_CLIENT_ID, …. */
function variables(kind: "apiKey" | "bearer" | "basic" | "oauth2", stem: string): Record<string, string> {
  switch (kind) {
    case "apiKey":
      return { value: /(^|_)KEY$/.test(stem) ? stem : `${stem}_KEY` };
    case "bearer":
      return { token: `${stem}_TOKEN` };
    case "basic":
      return { username: `${stem}_USERNAME`, password: `${stem}_PASSWORD` };
    case "oauth2":
      return { clientId: `${stem}_CLIENT_ID`, clientSecret: `${stem}_CLIENT_SECRET` };
  }
}

type Kind = "apiKey" | "bearer" | "basic" | "oauth2";

/** What the client can do with a scheme: its kind, or the reason it is unsupported (the scheme's type, as named in the descriptor). */
function kindOf(s: Record<string, unknown>): { kind: Kind } | { unsupported: string; bearer?: true } {
  const type = String(s.type ?? "");
  if (type === "apiKey" && ["header", "query", "cookie"].includes(String(s.in))) return { kind: "apiKey" };
  if (type === "http") {
    const scheme = String(s.scheme ?? "").toLowerCase();
    if (scheme === "bearer" || scheme === "basic") return { kind: scheme };
    return { unsupported: `http ${scheme || "(no scheme)"}` };
  }
  if (type === "oauth2") {
    const flows = isObject(s.flows) ? s.flows : {};
    if (isObject(flows.clientCredentials) && typeof flows.clientCredentials.tokenUrl === "string") return { kind: "oauth2" };
    return { unsupported: `oauth2 ${Object.keys(flows).join("/") || "(no flows)"}`, bearer: true };
  }
  if (type === "openIdConnect") return { unsupported: type, bearer: true };
  return { unsupported: type || "(no type)" };
}

/** The descriptors of every scheme, in the document's order; a variable taken by an earlier scheme makes the later stem `<STEM>_2`. */
export function securitySchemes(schemes: unknown, resolveUrl: (url: string) => string): Record<string, SecuritySchemeDescriptor> {
  const out: Record<string, SecuritySchemeDescriptor> = {};
  const taken = new Set(CLIENT_VARIABLES);
  for (const [name, s] of Object.entries(isObject(schemes) ? schemes : {})) {
    if (!isObject(s)) continue;
    const k = kindOf(s);
    if ("unsupported" in k) {
      out[name] = { type: "unsupported", original: k.unsupported, bearer: k.bearer ?? false, env: {} };
      continue;
    }
    let env = variables(k.kind, envStem(name));
    for (let n = 2; Object.values(env).some((v) => taken.has(v)); n++) env = variables(k.kind, `${envStem(name)}_${n}`);
    for (const v of Object.values(env)) taken.add(v);
    out[name] = descriptor(k.kind, s, env, resolveUrl);
  }
  return out;
}

function descriptor(kind: Kind, s: Record<string, unknown>, env: Record<string, string>, resolveUrl: (url: string) => string): SecuritySchemeDescriptor {
  switch (kind) {
    case "apiKey":
      return { type: "apiKey", in: s.in as "header" | "query" | "cookie", name: String(s.name ?? ""), env: { value: env.value } };
    case "bearer":
      return { type: "http", scheme: "bearer", env: { token: env.token } };
    case "basic":
      return { type: "http", scheme: "basic", env: { username: env.username, password: env.password } };
    case "oauth2": {
      const flow = (s.flows as Record<string, Record<string, unknown>>).clientCredentials;
      const scopes = isObject(flow.scopes) ? Object.keys(flow.scopes) : [];
      return { type: "oauth2", flow: "clientCredentials", tokenUrl: resolveUrl(String(flow.tokenUrl)), scopes, env: { clientId: env.clientId, clientSecret: env.clientSecret } };
    }
  }
}

/** The environment variables of the schemes, each with what it configures: the project README's table. */
export function securityVariables(schemes: Record<string, SecuritySchemeDescriptor>): { name: string; what: string }[] {
  const rows: { name: string; what: string }[] = [];
  for (const [scheme, d] of Object.entries(schemes)) {
    if (d.type === "apiKey") rows.push({ name: d.env.value, what: `API key of scheme \`${scheme}\` (sent in the ${d.in} \`${d.name}\`)` });
    else if (d.type === "http" && d.scheme === "bearer") rows.push({ name: d.env.token, what: `bearer token of scheme \`${scheme}\`` });
    else if (d.type === "http") rows.push({ name: d.env.username, what: `user of scheme \`${scheme}\` (HTTP basic)` }, { name: d.env.password, what: `password of scheme \`${scheme}\`` });
    else if (d.type === "oauth2") {
      rows.push({ name: d.env.clientId, what: `OAuth 2 client id of scheme \`${scheme}\` (client credentials at ${d.tokenUrl})` }, { name: d.env.clientSecret, what: `its client secret` });
    }
  }
  return rows;
}
