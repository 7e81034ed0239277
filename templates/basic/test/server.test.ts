// Each tool, resource, resource template and prompt of mcp.json, over every transport and revision served.
import { expect, it } from "vitest";
import { CLIENT_CAPABILITIES, eachConnection, hasStructuredContent, manifest, taskWireForm } from "./helpers.js";

const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const RELATED_TASK = "io.modelcontextprotocol/related-task";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// countdown came with tasks: a project made before them (and upgraded since) has no such tool in its mcp.json.
const hasCountdown = manifest.tools.some((t) => t.name === "countdown");

eachConnection(({ revision, get }) => {
  it("echo returns its text as one text item", async () => {
    const result = await get().client.callTool("echo", { text: "hello there" });
    expect(result.content).toEqual([{ type: "text", text: "hello there" }]);
    expect(result.isError ?? false).toBe(false);
  });

  it(`add returns the sum${hasStructuredContent(revision) ? " as structuredContent" : " as text"}`, async () => {
    const result = await get().client.callTool("add", { a: 2, b: 3.5 });
    expect(result.content).toEqual([{ type: "text", text: "5.5" }]);
    if (hasStructuredContent(revision)) expect(result.structuredContent).toEqual({ sum: 5.5 });
    else expect(result).not.toHaveProperty("structuredContent");
  });

  it("tools/list carries add's outputSchema where the revision has one", async () => {
    const { tools } = (await get().client.listTools()) as { tools: { name: string; outputSchema?: unknown }[] };
    const add = tools.find((t) => t.name === "add")!;
    if (hasStructuredContent(revision)) expect(add.outputSchema).toMatchObject({ type: "object", required: ["sum"] });
    else expect(add).not.toHaveProperty("outputSchema");
  });

  it.runIf(hasCountdown)("countdown without a task: an ordinary result", async () => {
    const result = await get().client.callTool("countdown", { seconds: 0.1 });
    expect(result.content).toEqual([{ type: "text", text: "Counted down 0.1 s" }]);
    expect(result).not.toHaveProperty("resultType", "task");
    expect(result).not.toHaveProperty("task");
  });

  if (hasCountdown && taskWireForm(revision) === "core") {
    it("countdown as a task (2025-11-25): CreateTaskResult at once, tasks/get, tasks/result waits for the result", async () => {
      const { client } = get();
      const { tools } = (await client.listTools()) as { tools: { name: string; execution?: unknown }[] };
      expect(tools.find((t) => t.name === "countdown")!.execution).toEqual({ taskSupport: "optional" });
      const created = (await client.request("tools/call", {
        name: "countdown",
        arguments: { seconds: 0.3 },
        task: { ttl: 60_000 },
      })) as { task: { taskId: string; status: string; ttl: number | null } };
      expect(created.task).toMatchObject({ status: "working", ttl: 60_000 });
      const { taskId } = created.task;
      expect(await client.request("tasks/get", { taskId })).toMatchObject({ taskId });
      const result = await client.request("tasks/result", { taskId });
      expect(result).toMatchObject({ content: [{ type: "text", text: "Counted down 0.3 s" }] });
      expect((result._meta as Record<string, unknown>)[RELATED_TASK]).toEqual({ taskId });
      expect(await client.request("tasks/get", { taskId })).toMatchObject({ taskId, status: "completed" });
    });
  }

  if (hasCountdown && taskWireForm(revision) === "extension") {
    it("countdown with the tasks extension declared (2026-07-28): CreateTaskResult, then tasks/get to completed", async () => {
      const { client } = get();
      const capabilities = { ...CLIENT_CAPABILITIES, extensions: { [TASKS_EXTENSION]: {} } };
      const created = await client.callTool("countdown", { seconds: 0.3 }, { capabilities });
      expect(created).toMatchObject({ resultType: "task", status: "working" });
      expect(created).not.toHaveProperty("content");
      const taskId = created.taskId as string;
      let task = await client.request("tasks/get", { taskId }, { capabilities });
      for (let i = 0; i < 200 && task.status === "working"; i++) {
        await sleep(50);
        task = await client.request("tasks/get", { taskId }, { capabilities });
      }
      expect(task).toMatchObject({
        taskId,
        status: "completed",
        resultType: "complete",
        result: { content: [{ type: "text", text: "Counted down 0.3 s" }] },
      });
    });
  }

  it("reads the app://about resource", async () => {
    const { contents } = (await get().client.readResource("app://about")) as {
      contents: { uri: string; mimeType: string; text: string }[];
    };
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri: "app://about", mimeType: "text/plain" });
    expect(contents[0].text.length).toBeGreaterThan(0);
  });

  it("reads the app://greetings/{name} template", async () => {
    const { contents } = (await get().client.readResource("app://greetings/Ada")) as {
      contents: { uri: string; text: string }[];
    };
    expect(contents).toEqual([{ uri: "app://greetings/Ada", mimeType: "text/plain", text: "Hello, Ada!" }]);
  });

  it("completes the template's {name} variable", async () => {
    const { completion } = (await get().client.complete(
      { type: "ref/resource", uri: "app://greetings/{name}" },
      { name: "name", value: "Al" },
    )) as { completion: { values: string[] } };
    expect(completion.values).toEqual(["Alan"]);
  });

  it("gets the summarize prompt with its arguments", async () => {
    const result = (await get().client.getPrompt("summarize", { text: "A long story.", style: "detailed" })) as {
      messages: { role: string; content: { type: string; text: string } }[];
    };
    expect(result.messages).toHaveLength(1);
    expect(result.messages[0].role).toBe("user");
    expect(result.messages[0].content.text).toContain("style: detailed");
    expect(result.messages[0].content.text).toContain("A long story.");
  });

  it("completes the summarize prompt's style argument", async () => {
    const { completion } = (await get().client.complete(
      { type: "ref/prompt", name: "summarize" },
      { name: "style", value: "b" },
    )) as { completion: { values: string[] } };
    expect(completion.values).toEqual(["brief", "bullet-points"]);
  });

  it("answers a missing required prompt argument with -32602", async () => {
    await expect(get().client.getPrompt("summarize", {})).rejects.toMatchObject({ code: -32602 });
  });
});
