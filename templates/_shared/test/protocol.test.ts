// The protocol rules every revision this server serves must follow: handshake or discovery, listings,
// the revision's errors for bad arguments, unknown tools and unknown resources, and the era-specific fields.
import { describe, expect, it } from "vitest";
import { ClientError, type Revision } from "@create-mcp-server/runtime";
import {
  eachConnection,
  inputErrorsAsResult,
  isModern,
  manifest,
  resourceNotFoundCode,
  servedTools,
} from "./helpers.js";

/** Await a request that must fail; return its JSON-RPC error. */
async function rpcError(promise: Promise<unknown>): Promise<ClientError> {
  try {
    const result = await promise;
    throw new Error(`expected a JSON-RPC error, got the result ${JSON.stringify(result)}`);
  } catch (err) {
    if (!(err instanceof ClientError)) throw err;
    return err;
  }
}

// What mcp.json declares of each capability: a server declares only those, and answers another's methods -32601.
const HAS = {
  tools: manifest.tools.length > 0,
  prompts: manifest.prompts.length > 0,
  resources: manifest.resources.length + manifest.resourceTemplates.length > 0,
};

const LISTS = [
  ["tools/list", "tools", "name", HAS.tools, (r: Revision) => servedTools(r).map((t) => t.name)],
  ["prompts/list", "prompts", "name", HAS.prompts, () => manifest.prompts.map((p) => p.name)],
  ["resources/list", "resources", "uri", HAS.resources, () => manifest.resources.map((r) => r.uri)],
  [
    "resources/templates/list",
    "resourceTemplates",
    "uriTemplate",
    HAS.resources,
    () => manifest.resourceTemplates.map((r) => r.uriTemplate),
  ],
] as const;

// A tool with a required argument (and no task support, so it is served in every revision), to send it bad arguments.
const strictTool = manifest.tools.find((t) => t.inputSchema.required?.length && !t.taskSupport);

eachConnection(({ transport, revision, get }) => {
  it(isModern(revision) ? "discovers the server (server/discover)" : "completes the initialize handshake", () => {
    const { client } = get();
    expect(client.revision).toBe(revision);
    const description = client.serverDescription!;
    if (isModern(revision)) {
      expect(client.era).toBe("modern");
      expect(description.supportedVersions).toContain(revision);
      expect(description.resultType).toBe("complete");
      expect((description._meta as Record<string, { name?: string }>)["io.modelcontextprotocol/serverInfo"]?.name).toBe(
        manifest.name,
      );
    } else {
      expect(client.era).toBe("legacy");
      expect(description.protocolVersion).toBe(revision);
      expect((description.serverInfo as { name: string }).name).toBe(manifest.name);
      expect(description).not.toHaveProperty("resultType");
    }
    const capabilities = description.capabilities as Record<string, unknown>;
    for (const feature of ["tools", "prompts", "resources"] as const) {
      if (HAS[feature]) expect(capabilities[feature]).toBeTypeOf("object");
      else expect(capabilities).not.toHaveProperty(feature);
    }
  });

  for (const [method, key, field, declared, expected] of LISTS) {
    if (!declared) {
      it(`${method} is -32601: mcp.json declares no ${key === "resourceTemplates" ? "resources" : key}`, async () => {
        const err = await rpcError(get().client.request(method));
        expect(err.code).toBe(-32601);
      });
      continue;
    }
    it(`${method} lists what mcp.json declares${isModern(revision) ? ", with resultType, ttlMs and cacheScope" : ""}`, async () => {
      const result = await get().client.request(method);
      const items = result[key] as Record<string, string>[];
      expect(items.map((i) => i[field])).toEqual(expected(revision));
      if (isModern(revision)) {
        expect(result.resultType).toBe("complete");
        expect(Number.isInteger(result.ttlMs) && (result.ttlMs as number) >= 0).toBe(true);
        expect(["public", "private"]).toContain(result.cacheScope);
      } else {
        for (const f of ["resultType", "ttlMs", "cacheScope"]) expect(result).not.toHaveProperty(f);
      }
    });
  }

  if (strictTool) {
    it(`answers bad tool arguments with ${inputErrorsAsResult(revision) ? "an isError result" : "a -32602 protocol error"}`, async () => {
      const { client } = get();
      if (inputErrorsAsResult(revision)) {
        const result = await client.callTool(strictTool.name, {});
        expect(result.isError).toBe(true);
        expect((result.content as { type: string }[])[0].type).toBe("text");
      } else {
        const err = await rpcError(client.callTool(strictTool.name, {}));
        expect(err.code).toBe(-32602);
      }
    });
  }

  it("answers an unknown tool with -32602", async () => {
    const err = await rpcError(get().client.callTool("no_such_tool_anywhere", {}));
    expect(err.code).toBe(-32602);
  });

  if (HAS.resources)
    it(`answers an unknown resource with ${resourceNotFoundCode(revision)} and data.uri`, async () => {
      const uri = "test://nonexistent-resource-for-conformance-testing";
      const err = await rpcError(get().client.readResource(uri));
      expect(err.code).toBe(resourceNotFoundCode(revision));
      expect((err.data as { uri?: string } | undefined)?.uri).toBe(uri);
    });

  it("answers an unknown method with -32601", async () => {
    const err = await rpcError(get().client.request("no/such/method"));
    expect(err.code).toBe(-32601);
  });

  if (isModern(revision)) {
    it("serves the stateless era: removed handshake-era methods are -32601", async () => {
      for (const method of ["initialize", "ping", "logging/setLevel"]) {
        const err = await rpcError(
          get().client.request(
            method,
            method === "initialize"
              ? { protocolVersion: revision, capabilities: {}, clientInfo: { name: "t", version: "1" } }
              : {},
          ),
        );
        expect(err.code, method).toBe(-32601);
      }
    });
    if (transport === "http") {
      it("sends no Mcp-Session-Id in the stateless era", async () => {
        const { delivery } = await get().client.requestWithDelivery("tools/list");
        expect(delivery?.status).toBe(200);
        expect(Object.keys(delivery?.headers ?? {}).map((h) => h.toLowerCase())).not.toContain("mcp-session-id");
      });
    }
  } else {
    it("answers ping with an empty result", async () => {
      expect(await get().client.request("ping")).toEqual({});
    });
  }
});

describe("mcp.json", () => {
  it("declares the revisions and transports this project serves", () => {
    expect(manifest.revisions.length).toBeGreaterThan(0);
    expect(manifest.transports.length).toBeGreaterThan(0);
  });
});
