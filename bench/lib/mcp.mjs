// Wire messages the bench drivers send, and the checks every response must pass.
export const LEGACY_VERSION = "2025-11-25";
export const MODERN_VERSION = "2026-07-28";
export const ECHO_TEXT = "hello";

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
};

export function initializeRequest(id) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: LEGACY_VERSION,
      capabilities: {},
      clientInfo: { name: "mcp-bench", version: "1.0.0" },
    },
  };
}

export const initializedNotification = {
  jsonrpc: "2.0",
  method: "notifications/initialized",
};

/** A tools/call echo request for the given era ("legacy" | "modern"). */
export function callRequest(id, era) {
  const params = { name: "echo", arguments: { text: ECHO_TEXT } };
  if (era === "modern") params._meta = MODERN_META;
  return { jsonrpc: "2.0", id, method: "tools/call", params };
}

function describe(msg) {
  const s = JSON.stringify(msg);
  return s && s.length > 300 ? s.slice(0, 300) + "…" : s;
}

export function verifyInitialize(msg, id) {
  if (msg?.jsonrpc !== "2.0" || msg.id !== id)
    throw new Error(`initialize: wrong response ${describe(msg)}`);
  if (msg.error || msg.result?.protocolVersion !== LEGACY_VERSION) {
    throw new Error(
      `initialize: expected protocolVersion ${LEGACY_VERSION}, got ${describe(msg)}`,
    );
  }
}

/** Throws unless msg is the correct echo result for the given era (id checked by the caller). */
export function verifyCallResult(msg, era) {
  if (msg?.jsonrpc !== "2.0")
    throw new Error(`not a JSON-RPC 2.0 message: ${describe(msg)}`);
  if (msg.error)
    throw new Error(`tools/call id ${msg.id} failed: ${describe(msg.error)}`);
  const result = msg.result;
  const content = result?.content;
  if (
    !Array.isArray(content) ||
    content.length !== 1 ||
    content[0]?.type !== "text" ||
    content[0].text !== ECHO_TEXT
  ) {
    throw new Error(`tools/call id ${msg.id}: wrong content ${describe(msg)}`);
  }
  if (result.isError)
    throw new Error(`tools/call id ${msg.id}: isError set ${describe(msg)}`);
  if (era === "modern" && result.resultType !== "complete") {
    throw new Error(
      `tools/call id ${msg.id}: modern result without resultType "complete": ${describe(msg)}`,
    );
  }
}
