// The conformance fixture, tool by tool, resource by resource and prompt by prompt, over every transport and revision served.
import { expect, it } from "vitest";
import { ClientError, type JsonRpcMessage } from "@create-mcp-server/runtime";
import {
  asked,
  eachConnection,
  hasAudio,
  hasElicitation,
  hasSep1330Enums,
  hasSsePolling,
  inputErrorsAsResult,
  isModern,
  manifest,
  taskWireForm,
  CLIENT_CAPABILITIES,
} from "./helpers.js";

type Content = { type: string; text?: string; data?: string; mimeType?: string; resource?: Record<string, unknown> };
const PNG_MAGIC = "iVBORw0KGgo";
const text = (result: Record<string, unknown>) => (result.content as Content[])[0]?.text;

/** Call a tool and collect the notifications that arrive while it runs. */
async function callCollecting(
  client: import("@create-mcp-server/runtime").McpClient,
  name: string,
  meta?: Record<string, unknown>,
) {
  const notifications: JsonRpcMessage[] = [];
  const result = await client.callTool(name, {}, { meta, onNotification: (n) => notifications.push(n) });
  const byMethod = (m: string) =>
    notifications
      .filter((n) => "method" in n && n.method === m)
      .map((n) => (n as { params: Record<string, unknown> }).params);
  return { result, byMethod };
}

const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const RELATED_TASK = "io.modelcontextprotocol/related-task";
/** 2026-07-28: the client capabilities of a request that declares the tasks extension. */
const WITH_TASKS = { ...CLIENT_CAPABILITIES, extensions: { [TASKS_EXTENSION]: {} } };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 2026-07-28: tasks/get until the task leaves `from` (working by default); gives up after about 10 s. */
async function pollTask(client: import("@create-mcp-server/runtime").McpClient, taskId: string, from = ["working"]) {
  let task = await client.request("tasks/get", { taskId }, { capabilities: WITH_TASKS });
  for (let i = 0; i < 200 && from.includes(task.status as string); i++) {
    await sleep(50);
    task = await client.request("tasks/get", { taskId }, { capabilities: WITH_TASKS });
  }
  return task;
}

async function rpcError(promise: Promise<unknown>): Promise<ClientError> {
  const outcome = await promise.then(
    (r) => new Error(`expected a JSON-RPC error, got ${JSON.stringify(r)}`),
    (e: unknown) => e,
  );
  if (!(outcome instanceof ClientError)) throw outcome;
  return outcome;
}

eachConnection(({ transport, revision, get }) => {
  const modern = isModern(revision);

  // ---- content ----
  it("test_simple_text (called without arguments)", async () => {
    const result = await get().client.request("tools/call", { name: "test_simple_text" });
    expect(result.content).toEqual([{ type: "text", text: "This is a simple text response for testing." }]);
  });

  it("test_image_content", async () => {
    const [item] = (await get().client.callTool("test_image_content", {})).content as Content[];
    expect(item).toMatchObject({ type: "image", mimeType: "image/png" });
    expect(item.data!.startsWith(PNG_MAGIC)).toBe(true);
  });

  it(`test_audio_content${hasAudio(revision) ? "" : " (no audio content before 2025-03-26: a tool error)"}`, async () => {
    const result = await get().client.callTool("test_audio_content", {});
    if (hasAudio(revision))
      expect((result.content as Content[])[0]).toMatchObject({ type: "audio", mimeType: "audio/wav" });
    else expect(result.isError).toBe(true);
  });

  it("test_embedded_resource", async () => {
    const result = await get().client.callTool("test_embedded_resource", {});
    expect(result.content).toEqual([
      {
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content.",
        },
      },
    ]);
  });

  it(`test_reconnection${transport === "http" && hasSsePolling(revision) ? " (the server closes the stream first; the client resumes it)" : ""}`, async () => {
    const result = await get().client.callTool("test_reconnection", {});
    const polled = transport === "http" && hasSsePolling(revision);
    expect(text(result)).toBe(`Reconnection test completed (connection closed first: ${polled})`);
  });

  it("test_multiple_content_types", async () => {
    const content = (await get().client.callTool("test_multiple_content_types", {})).content as Content[];
    expect(content.map((c) => c.type)).toEqual(["text", "image", "resource"]);
    expect(content[0].text).toBe("Multiple content types test:");
    expect(content[2].resource).toEqual({
      uri: "test://mixed-content-resource",
      mimeType: "application/json",
      text: '{"test":"data","value":123}',
    });
  });

  it("test_error_handling returns an isError result", async () => {
    const result = await get().client.callTool("test_error_handling", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toBe("This tool intentionally returns an error for testing");
  });

  // ---- logging and progress ----
  it(
    modern
      ? "test_tool_with_logging logs only when _meta sets a level"
      : "test_tool_with_logging logs three info messages",
    async () => {
      const { client } = get();
      const quiet = await callCollecting(client, "test_tool_with_logging");
      if (modern) {
        expect(quiet.byMethod("notifications/message")).toEqual([]);
        const loud = await callCollecting(client, "test_tool_with_logging", {
          "io.modelcontextprotocol/logLevel": "debug",
        });
        expect(loud.byMethod("notifications/message").map((p) => p.data)).toEqual([
          "Tool execution started",
          "Tool processing data",
          "Tool execution completed",
        ]);
      } else {
        const logs = quiet.byMethod("notifications/message");
        expect(logs.map((p) => [p.level, p.data])).toEqual([
          ["info", "Tool execution started"],
          ["info", "Tool processing data"],
          ["info", "Tool execution completed"],
        ]);
      }
    },
  );

  if (modern) {
    it("test_logging_tool sends no log without a requested level", async () => {
      const { result, byMethod } = await callCollecting(get().client, "test_logging_tool");
      expect(text(result)).toBe("Logged at info");
      expect(byMethod("notifications/message")).toEqual([]);
    });
  } else {
    it("logging/setLevel above info silences test_tool_with_logging", async () => {
      const { client } = get();
      expect(await client.request("logging/setLevel", { level: "warning" })).toEqual({});
      const { byMethod } = await callCollecting(client, "test_tool_with_logging");
      expect(byMethod("notifications/message")).toEqual([]);
      await client.request("logging/setLevel", { level: "info" });
    });
  }

  it("test_tool_with_progress reports 0, 50, 100 of 100 for a progressToken", async () => {
    const { client } = get();
    const { byMethod } = await callCollecting(client, "test_tool_with_progress", { progressToken: "progress-test-1" });
    const progress = byMethod("notifications/progress");
    expect(progress.map((p) => [p.progressToken, p.progress, p.total])).toEqual([
      ["progress-test-1", 0, 100],
      ["progress-test-1", 50, 100],
      ["progress-test-1", 100, 100],
    ]);
    const none = await callCollecting(client, "test_tool_with_progress");
    expect(none.byMethod("notifications/progress")).toEqual([]);
  });

  // ---- asking the client ----
  it("test_sampling asks the client's model", async () => {
    asked.length = 0;
    const result = await get().client.callTool("test_sampling", { prompt: "What is 2+2?" });
    expect(text(result)).toBe("LLM response: echo: What is 2+2?");
    expect(asked).toHaveLength(1);
    expect(asked[0].params).toMatchObject({
      messages: [{ role: "user", content: { type: "text", text: "What is 2+2?" } }],
      maxTokens: 100,
    });
  });

  it(`test_elicitation${hasElicitation(revision) ? " asks for username and email" : " (no elicitation before 2025-06-18: a tool error)"}`, async () => {
    asked.length = 0;
    const result = await get().client.callTool("test_elicitation", { message: "Who are you?" });
    if (!hasElicitation(revision)) {
      expect(result.isError).toBe(true);
      expect(asked).toEqual([]);
      return;
    }
    expect(text(result)).toBe('User response: {"username":"alice","email":"alice@example.com"}');
    expect(asked[0].params).toMatchObject({
      message: "Who are you?",
      requestedSchema: { required: ["username", "email"] },
    });
  });

  if (hasElicitation(revision)) {
    it("test_elicitation_sep1034_defaults sends a form with defaults", async () => {
      asked.length = 0;
      const result = await get().client.callTool("test_elicitation_sep1034_defaults", {});
      expect(text(result)).toContain("action=accept");
      const props = (
        asked[0].params.requestedSchema as {
          properties: Record<string, { type: string; default: unknown; enum?: string[] }>;
        }
      ).properties;
      expect(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, [v.type, v.default]]))).toEqual({
        name: ["string", "John Doe"],
        age: ["integer", 30],
        score: ["number", 95.5],
        status: ["string", "active"],
        verified: ["boolean", true],
      });
      expect(props.status.enum).toEqual(["active", "inactive", "pending"]);
    });

    it(`test_elicitation_sep1330_enums sends ${hasSep1330Enums(revision) ? "every enum variant" : "only the plain enum forms the revision defines"}`, async () => {
      asked.length = 0;
      await get().client.callTool("test_elicitation_sep1330_enums", {});
      const props = (asked[0].params.requestedSchema as { properties: Record<string, Record<string, unknown>> })
        .properties;
      expect(props.untitledSingle.enum).toEqual(["option1", "option2", "option3"]);
      expect(props.legacyEnum.enumNames).toEqual(["Option One", "Option Two", "Option Three"]);
      if (!hasSep1330Enums(revision)) {
        expect(Object.keys(props).sort()).toEqual(["legacyEnum", "untitledSingle"]);
        return;
      }
      expect(props.titledSingle.oneOf).toHaveLength(3);
      expect((props.untitledMulti.items as { enum: string[] }).enum).toHaveLength(3);
      expect((props.titledMulti.items as { anyOf: unknown[] }).anyOf).toHaveLength(3);
    });
  }

  it(
    modern
      ? "test_missing_capability: -32021 naming sampling when the client lacks it"
      : "test_missing_capability samples when the session declared sampling",
    async () => {
      const { client } = get();
      if (modern) {
        const err = await rpcError(
          client.request("tools/call", { name: "test_missing_capability", arguments: {} }, { capabilities: {} }),
        );
        expect(err.code).toBe(-32021);
        expect(err.data).toEqual({ requiredCapabilities: { sampling: {} } });
      } else {
        expect(text(await client.callTool("test_missing_capability", {}))).toBe("Sampled with model test-model");
      }
    },
  );

  if (modern) {
    it("test_input_required_result_elicitation: input_required with user_name, then complete", async () => {
      const { client } = get();
      const first = await client.request(
        "tools/call",
        { name: "test_input_required_result_elicitation", arguments: {} },
        { rawInputRequired: true },
      );
      expect(first.resultType).toBe("input_required");
      expect(Object.keys(first.inputRequests as object)).toEqual(["user_name"]);
      expect((first.inputRequests as Record<string, { method: string }>).user_name.method).toBe("elicitation/create");
      const done = await client.callTool("test_input_required_result_elicitation", {});
      expect(done.resultType).toBe("complete");
      expect(text(done)).toBe("Hello, alice!");
    });

    it("test_input_required_result_multiple_inputs asks for three inputs in one round", async () => {
      const first = await get().client.request(
        "tools/call",
        { name: "test_input_required_result_multiple_inputs", arguments: {} },
        { rawInputRequired: true },
      );
      const requests = first.inputRequests as Record<string, { method: string }>;
      expect(Object.fromEntries(Object.entries(requests).map(([k, v]) => [k, v.method]))).toEqual({
        user_name: "elicitation/create",
        greeting: "sampling/createMessage",
        client_roots: "roots/list",
      });
      expect(typeof first.requestState).toBe("string");
    });

    it("test_input_required_result_multi_round takes two rounds with different requestState", async () => {
      const { client } = get();
      const r1 = await client.request(
        "tools/call",
        { name: "test_input_required_result_multi_round", arguments: {} },
        { rawInputRequired: true },
      );
      const r2 = await client.request(
        "tools/call",
        {
          name: "test_input_required_result_multi_round",
          arguments: {},
          inputResponses: { step1: { action: "accept", content: { name: "Ada" } } },
          requestState: r1.requestState,
        },
        { rawInputRequired: true },
      );
      expect(r2.resultType).toBe("input_required");
      expect(Object.keys(r2.inputRequests as object)).toEqual(["step2"]);
      expect(r2.requestState).not.toBe(r1.requestState);
      const r3 = await client.request(
        "tools/call",
        {
          name: "test_input_required_result_multi_round",
          arguments: {},
          inputResponses: { step2: { action: "accept", content: { city: "Paris" } } },
          requestState: r2.requestState,
        },
        { rawInputRequired: true },
      );
      expect(r3.resultType).toBe("complete");
      expect(text(r3)).toBe('step1={"name":"Ada"} step2={"city":"Paris"}');
    });

    it("test_input_required_result_tampered_state: a tampered requestState is -32602", async () => {
      const { client } = get();
      const r1 = await client.request(
        "tools/call",
        { name: "test_input_required_result_tampered_state", arguments: {} },
        { rawInputRequired: true },
      );
      const err = await rpcError(
        client.request(
          "tools/call",
          {
            name: "test_input_required_result_tampered_state",
            arguments: {},
            inputResponses: { confirm: { action: "accept", content: { ok: true } } },
            requestState: `${r1.requestState}-TAMPERED`,
          },
          { rawInputRequired: true },
        ),
      );
      expect(err.code).toBe(-32602);
    });

    it("test_input_required_result_capabilities asks only for declared capabilities", async () => {
      const r = await get().client.request(
        "tools/call",
        { name: "test_input_required_result_capabilities", arguments: {} },
        { rawInputRequired: true, capabilities: { sampling: {} } },
      );
      expect(r.resultType).toBe("input_required");
      expect(Object.values(r.inputRequests as Record<string, { method: string }>).map((q) => q.method)).toEqual([
        "sampling/createMessage",
      ]);
    });
  }

  it("the input-requesting tools complete once answered", async () => {
    const { client } = get();
    expect(text(await client.callTool("test_input_required_result_sampling", {}))).toBe(
      "The model says: echo: What is the capital of France?",
    );
    expect(text(await client.callTool("test_input_required_result_list_roots", {}))).toBe("Roots: file:///test/root");
    if (hasElicitation(revision)) {
      expect(text(await client.callTool("test_input_required_result_request_state", {}))).toContain("state-ok");
      expect(text(await client.callTool("test_input_required_result_multiple_inputs", {}))).toBe(
        "alice: echo: Write a one-line greeting. (1 roots)",
      );
      expect(text(await client.callTool("test_streaming_elicitation", {}))).toContain("Streaming elicitation answered");
    }
  });

  // ---- tasks (the conformance suite's tasks fixture tools) ----
  it("greet answers at once, never as a task", async () => {
    const result = await get().client.callTool("greet", { name: "sep-2243" });
    expect(text(result)).toBe("Hello, sep-2243!");
    expect(result).not.toHaveProperty("taskId");
  });

  it("slow_compute without a task is an ordinary result", async () => {
    const result = await get().client.callTool("slow_compute", { seconds: 0.05, label: "plain" });
    expect(text(result)).toBe("Computed plain after 0.05 s");
  });

  if (taskWireForm(revision) === "none") {
    it("a tool whose taskSupport is required does not exist where the revision has no tasks", async () => {
      expect((await rpcError(get().client.callTool("failing_job", {}))).code).toBe(-32602);
    });
  }

  if (taskWireForm(revision) === "core") {
    it("2025-11-25 tasks: slow_compute as a task, tasks/result with the related-task _meta", async () => {
      const { client } = get();
      const created = (await client.request("tools/call", {
        name: "slow_compute",
        arguments: { seconds: 0.2 },
        task: { ttl: 60_000 },
      })) as {
        task: { taskId: string; status: string };
      };
      expect(created.task.status).toBe("working");
      const result = await client.request("tasks/result", { taskId: created.task.taskId });
      expect(text(result)).toBe("Computed after 0.2 s");
      expect((result._meta as Record<string, unknown>)[RELATED_TASK]).toEqual({ taskId: created.task.taskId });
    });

    it("2025-11-25 tasks: failing_job is failed (isError), protocol_error_job is failed (-32603), a plain call -32601", async () => {
      const { client } = get();
      expect((await rpcError(client.callTool("failing_job", {}))).code).toBe(-32601);
      expect(
        (await rpcError(client.request("tools/call", { name: "greet", arguments: { name: "x" }, task: {} }))).code,
      ).toBe(-32601);
      const failing = (await client.request("tools/call", { name: "failing_job", arguments: {}, task: {} })) as {
        task: { taskId: string };
      };
      expect(await client.request("tasks/result", { taskId: failing.task.taskId })).toMatchObject({ isError: true });
      expect(await client.request("tasks/get", { taskId: failing.task.taskId })).toMatchObject({ status: "failed" });
      const broken = (await client.request("tools/call", { name: "protocol_error_job", arguments: {}, task: {} })) as {
        task: { taskId: string };
      };
      expect((await rpcError(client.request("tasks/result", { taskId: broken.task.taskId }))).code).toBe(-32603);
      expect(await client.request("tasks/get", { taskId: broken.task.taskId })).toMatchObject({ status: "failed" });
    });

    it("2025-11-25 tasks: confirm_delete asks the client with the related-task _meta while tasks/result waits", async () => {
      const { client } = get();
      asked.length = 0;
      const created = (await client.request("tools/call", {
        name: "confirm_delete",
        arguments: { filename: "a.txt" },
        task: {},
      })) as { task: { taskId: string } };
      const result = await client.request("tasks/result", { taskId: created.task.taskId });
      expect(text(result)).toMatch(/a\.txt$/);
      expect(asked).toHaveLength(1);
      expect(asked[0].params).toMatchObject({
        message: "Delete a.txt?",
        _meta: { [RELATED_TASK]: { taskId: created.task.taskId } },
      });
    });

    it("2025-11-25 tasks: tasks/cancel cancels a working task; a second cancel is -32602", async () => {
      const { client } = get();
      const created = (await client.request("tools/call", {
        name: "slow_compute",
        arguments: { seconds: 60 },
        task: {},
      })) as { task: { taskId: string } };
      const { taskId } = created.task;
      expect(await client.request("tasks/cancel", { taskId })).toMatchObject({ taskId, status: "cancelled" });
      expect(await client.request("tasks/get", { taskId })).toMatchObject({ status: "cancelled" });
      expect((await rpcError(client.request("tasks/cancel", { taskId }))).code).toBe(-32602);
    });
  }

  if (taskWireForm(revision) === "extension") {
    it("2026-07-28 tasks: slow_compute is a task only with the extension declared; tasks/get inlines the result", async () => {
      const { client } = get();
      const created = await client.callTool("slow_compute", { seconds: 0.2 }, { capabilities: WITH_TASKS });
      expect(created).toMatchObject({ resultType: "task", status: "working" });
      expect(await pollTask(client, created.taskId as string)).toMatchObject({
        status: "completed",
        resultType: "complete",
        result: { content: [{ type: "text", text: "Computed after 0.2 s" }] },
      });
    });

    it("2026-07-28 tasks: failing_job is completed with isError (-32021 without the extension); protocol_error_job is failed", async () => {
      const { client } = get();
      const missing = await rpcError(client.callTool("failing_job", {}));
      expect(missing.code).toBe(-32021);
      expect(missing.data).toMatchObject({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
      const failing = await client.callTool("failing_job", {}, { capabilities: WITH_TASKS });
      expect(await pollTask(client, failing.taskId as string)).toMatchObject({
        status: "completed",
        result: { isError: true },
      });
      const broken = await client.callTool("protocol_error_job", {}, { capabilities: WITH_TASKS });
      const task = await pollTask(client, broken.taskId as string);
      expect(task).toMatchObject({ status: "failed", error: { code: -32603 } });
      expect(task).not.toHaveProperty("result");
    });

    it("2026-07-28 tasks: confirm_delete and multi_input ask through inputRequests, answered by tasks/update", async () => {
      const { client } = get();
      const del = await client.callTool("confirm_delete", { filename: "b.txt" }, { capabilities: WITH_TASKS });
      const waiting = await pollTask(client, del.taskId as string);
      expect(waiting).toMatchObject({
        status: "input_required",
        inputRequests: { confirm_delete: { method: "elicitation/create" } },
      });
      const ack = await client.request(
        "tasks/update",
        { taskId: del.taskId, inputResponses: { confirm_delete: { action: "accept", content: { confirm: true } } } },
        { capabilities: WITH_TASKS },
      );
      expect(ack).toEqual(expect.objectContaining({ resultType: "complete" }));
      expect(ack).not.toHaveProperty("status");
      expect(await pollTask(client, del.taskId as string, ["working", "input_required"])).toMatchObject({
        status: "completed",
        result: { content: [{ text: "Deleted b.txt" }] },
      });

      const multi = await client.callTool("multi_input", {}, { capabilities: WITH_TASKS });
      const both = await pollTask(client, multi.taskId as string);
      expect(Object.keys(both.inputRequests as object).sort()).toEqual(["color", "name"]);
      await client.request(
        "tasks/update",
        { taskId: multi.taskId, inputResponses: { name: { action: "accept", content: { name: "Ada" } } } },
        { capabilities: WITH_TASKS },
      );
      expect(Object.keys((await pollTask(client, multi.taskId as string)).inputRequests as object)).toEqual(["color"]);
      await client.request(
        "tasks/update",
        { taskId: multi.taskId, inputResponses: { color: { action: "accept", content: { color: "green" } } } },
        { capabilities: WITH_TASKS },
      );
      expect(await pollTask(client, multi.taskId as string, ["working", "input_required"])).toMatchObject({
        status: "completed",
      });
    });

    it("2026-07-28 tasks: test_tool_with_task answers input_required first, then becomes a task with the answer", async () => {
      const { client } = get();
      const first = await client.callTool(
        "test_tool_with_task",
        {},
        { capabilities: WITH_TASKS, rawInputRequired: true },
      );
      expect(first).toMatchObject({
        resultType: "input_required",
        inputRequests: { user_name: { method: "elicitation/create" } },
      });
      const created = await client.callTool("test_tool_with_task", {}, { capabilities: WITH_TASKS });
      expect(created).toMatchObject({ resultType: "task" });
      expect(await pollTask(client, created.taskId as string)).toMatchObject({
        status: "completed",
        result: { content: [{ text: "Hello, alice! The task is done." }] },
      });
    });

    it("2026-07-28 tasks: tasks/cancel is a bare ack, for a working and for a finished task; tasks/result is -32601", async () => {
      const { client } = get();
      const created = await client.callTool("slow_compute", { seconds: 60 }, { capabilities: WITH_TASKS });
      const taskId = created.taskId as string;
      expect(await client.request("tasks/cancel", { taskId }, { capabilities: WITH_TASKS })).not.toHaveProperty(
        "status",
      );
      expect(await pollTask(client, taskId)).toMatchObject({ status: "cancelled" });
      expect(await client.request("tasks/cancel", { taskId }, { capabilities: WITH_TASKS })).toEqual(
        expect.objectContaining({ resultType: "complete" }),
      );
      expect((await rpcError(client.request("tasks/result", { taskId }, { capabilities: WITH_TASKS }))).code).toBe(
        -32601,
      );
      expect((await rpcError(client.request("tasks/get", { taskId }))).code).toBe(-32021);
    });
  }

  // ---- change notifications ----
  if (!modern && transport === "stdio") {
    it("test_trigger_tool_change and test_trigger_prompt_change announce list changes", async () => {
      const { client } = get();
      const from = client.notifications.length;
      await client.callTool("test_trigger_tool_change", {});
      await client.callTool("test_trigger_prompt_change", {});
      await client.request("ping");
      const methods = client.notifications.slice(from).map((n) => ("method" in n ? n.method : ""));
      expect(methods).toContain("notifications/tools/list_changed");
      expect(methods).toContain("notifications/prompts/list_changed");
    });
  }

  // ---- schemas ----
  it("json_schema_2020_12_tool keeps its 2020-12 inputSchema intact in tools/list", async () => {
    const { tools } = (await get().client.listTools()) as {
      tools: { name: string; inputSchema: Record<string, unknown> }[];
    };
    const listed = tools.find((t) => t.name === "json_schema_2020_12_tool")!;
    const declared = manifest.tools.find((t) => t.name === "json_schema_2020_12_tool")!;
    expect(listed.inputSchema).toEqual(declared.inputSchema);
    expect(listed.inputSchema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect((listed.inputSchema.$defs as { address: { $anchor: string } }).address.$anchor).toBe("addressDef");
  });

  it("json_schema_2020_12_tool validates with $ref, anyOf, allOf and if/then/else", async () => {
    const { client } = get();
    const ok = await client.callTool("json_schema_2020_12_tool", {
      name: "Ada",
      address: { city: "London" },
      contact: "ada@example.com",
      kind: "company",
      vatId: "GB1",
    });
    expect(ok.isError ?? false).toBe(false);
    expect(
      (await client.callTool("json_schema_2020_12_tool", { address: { street: "1 Main St" } })).isError ?? false,
    ).toBe(false);
    for (const bad of [
      { name: "x", kind: "company" }, // if/then: a company needs vatId
      { name: "x", vatId: "GB1" }, // else: only a company has one
      { tags: [] }, // allOf/anyOf: name or address is required
      { address: { city: 3 } }, // $ref to $defs/address
      { name: "x", tags: ["a", "b", "c", "d", "e", "f"] },
      { name: "x", unknown: 1 }, // additionalProperties: false
      { name: "x", contact: "not an email" }, // anyOf of two string forms
    ]) {
      if (inputErrorsAsResult(revision))
        expect((await client.callTool("json_schema_2020_12_tool", bad)).isError, JSON.stringify(bad)).toBe(true);
      else
        expect((await rpcError(client.callTool("json_schema_2020_12_tool", bad))).code, JSON.stringify(bad)).toBe(
          -32602,
        );
    }
  });

  it("test_header_param declares its x-mcp-header parameter", async () => {
    const { tools } = (await get().client.listTools()) as {
      tools: { name: string; inputSchema: { properties: Record<string, Record<string, unknown>> } }[];
    };
    expect(tools.find((t) => t.name === "test_header_param")!.inputSchema.properties.region["x-mcp-header"]).toBe(
      "Region",
    );
    expect(text(await get().client.callTool("test_header_param", { region: "eu-west" }))).toBe("Region: eu-west");
  });

  // ---- resources ----
  it("reads test://static-text", async () => {
    expect((await get().client.readResource("test://static-text")).contents).toEqual([
      { uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." },
    ]);
  });

  it("reads test://static-binary", async () => {
    const [c] = (await get().client.readResource("test://static-binary")).contents as {
      uri: string;
      mimeType: string;
      blob: string;
    }[];
    expect(c).toMatchObject({ uri: "test://static-binary", mimeType: "image/png" });
    expect(c.blob.startsWith(PNG_MAGIC)).toBe(true);
  });

  it("reads test://template/123/data", async () => {
    expect((await get().client.readResource("test://template/123/data")).contents).toEqual([
      {
        uri: "test://template/123/data",
        mimeType: "application/json",
        text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}',
      },
    ]);
  });

  it(
    modern
      ? "resources/subscribe does not exist in the stateless era"
      : "subscribes to and unsubscribes from test://watched-resource",
    async () => {
      const { client } = get();
      if (modern)
        expect((await rpcError(client.request("resources/subscribe", { uri: "test://watched-resource" }))).code).toBe(
          -32601,
        );
      else {
        expect(await client.request("resources/subscribe", { uri: "test://watched-resource" })).toEqual({});
        expect(await client.request("resources/unsubscribe", { uri: "test://watched-resource" })).toEqual({});
      }
    },
  );

  // ---- prompts and completion ----
  it("test_simple_prompt", async () => {
    expect((await get().client.getPrompt("test_simple_prompt")).messages).toEqual([
      { role: "user", content: { type: "text", text: "This is a simple prompt for testing." } },
    ]);
  });

  it("test_prompt_with_arguments", async () => {
    expect(
      (await get().client.getPrompt("test_prompt_with_arguments", { arg1: "testValue1", arg2: "testValue2" })).messages,
    ).toEqual([
      { role: "user", content: { type: "text", text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'" } },
    ]);
  });

  it("test_prompt_with_embedded_resource", async () => {
    expect(
      (await get().client.getPrompt("test_prompt_with_embedded_resource", { resourceUri: "test://example-resource" }))
        .messages,
    ).toEqual([
      {
        role: "user",
        content: {
          type: "resource",
          resource: {
            uri: "test://example-resource",
            mimeType: "text/plain",
            text: "Embedded resource content for testing.",
          },
        },
      },
      { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
    ]);
  });

  it("test_prompt_with_image", async () => {
    const messages = (await get().client.getPrompt("test_prompt_with_image")).messages as { content: Content }[];
    expect(messages[0].content).toMatchObject({ type: "image", mimeType: "image/png" });
    expect(messages[1].content).toEqual({ type: "text", text: "Please analyze the image above." });
  });

  if (hasElicitation(revision)) {
    it("test_input_required_result_prompt gets its context from the user", async () => {
      const messages = (await get().client.getPrompt("test_input_required_result_prompt")).messages as {
        content: Content;
      }[];
      expect(messages[0].content.text).toBe("Context: alice");
    });
  }

  it("completes arg1 of test_prompt_with_arguments", async () => {
    const { completion } = (await get().client.complete(
      { type: "ref/prompt", name: "test_prompt_with_arguments" },
      { name: "arg1", value: "test" },
    )) as { completion: { values: string[] } };
    expect(completion.values).toEqual(["test", "testing", "tested"]);
  });

  it("completes {id} of test://template/{id}/data", async () => {
    const { completion } = (await get().client.complete(
      { type: "ref/resource", uri: "test://template/{id}/data" },
      { name: "id", value: "4" },
    )) as { completion: { values: string[] } };
    expect(completion.values).toEqual(["456"]);
  });
});
