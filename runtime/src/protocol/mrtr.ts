/**
 * Multi round-trip requests (MRTR), spec/2026-07-28/basic/patterns/mrtr.mdx.
 *
 * A modern handler asks for input with the same `ctx.elicit/sample/listRoots`
 * calls it uses in the legacy era. Unanswered asks make the runtime answer
 * `resultType: "input_required"` with `inputRequests` and a `requestState`;
 * the client retries with `inputResponses`, and the handler runs again from
 * the start, its earlier asks now answered.
 *
 * `requestState` is attacker-controlled input, so it is integrity-protected
 * (HMAC-SHA256) and bound to the originating method, a digest of its
 * parameters, an expiry and (with authorization) the principal (subject and client) — never to a connection or process, so a retry
 * may reach any process that shares the secret.
 */
import { nodeCrypto as crypto } from "../state/request-state.js";

/** JSON with sorted object keys, so equal values digest equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Digest of a request's salient parameters. */
export function paramsDigest(params: Record<string, unknown>): string {
  const { _meta: _m, inputResponses: _i, requestState: _s, ...salient } = params;
  return crypto().createHash("sha256").update(canonicalJson(salient)).digest("base64url");
}

/** Raised inside a handler's abandoned run when the runtime answered input_required instead. */
export class InputRequiredSignal extends Error {
  constructor() {
    super("input required");
    this.name = "InputRequiredSignal";
  }
}
