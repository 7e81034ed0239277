/**
 * `server.nodeHandler()` and `server.fetchHandler()` mounted in the Node frameworks, in this process, at /api/mcp:
 * Express 5 (app.use and app.all, with and without express.json()), Fastify (the raw stream, and Fastify's parsed
 * body), plain node:http, and Hono on @hono/node-server. Each runs the shared scenario (scenario.ts).
 */
import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import { serve } from "@hono/node-server";
import express from "express";
import Fastify, { type FastifyInstance } from "fastify";
import { Hono } from "hono";
import { describe } from "vitest";
import { makeServer } from "./app.js";
import { ENDPOINT_PATH, endpointOf } from "./listen.js";
import { mcpScenario, type Endpoint } from "./scenario.js";

for (const form of ["app.use", "app.all"] as const) {
  for (const parsed of [false, true]) {
    describe(`Express 5: ${form}("${ENDPOINT_PATH}", server.nodeHandler())${parsed ? " after express.json()" : ""}`, () => {
      mcpScenario(() => {
        const app = express();
        // express.json() consumes the stream and leaves req.body: the handler must use that instead of reading.
        if (parsed) app.use(express.json());
        const handler = makeServer().nodeHandler();
        // app.use strips the mount path (req.url is "/" inside), app.all keeps it: the handler checks no path.
        if (form === "app.use") app.use(ENDPOINT_PATH, handler);
        else app.all(ENDPOINT_PATH, handler);
        return endpointOf(app.listen(0, "127.0.0.1"));
      });
    });
  }
}

async function fastifyEndpoint(app: FastifyInstance): Promise<Endpoint> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}${ENDPOINT_PATH}`, stop: () => app.close() };
}

describe("Fastify 5: reply.hijack() and the raw request stream (Fastify's body parsing off for the route)", () => {
  mcpScenario(async () => {
    const app = Fastify();
    const handler = makeServer().nodeHandler();
    await app.register(async (scope) => {
      // Leave the body unread, so the handler reads the raw stream itself (with its own size limit).
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser("*", (_request, _payload, done) => done(null));
      scope.all(ENDPOINT_PATH, (request, reply) => {
        reply.hijack();
        handler(request.raw, reply.raw);
      });
    });
    return fastifyEndpoint(app);
  });
});

describe("Fastify 5: reply.hijack() with Fastify's parsed body (request.raw.body = request.body)", () => {
  mcpScenario(async () => {
    const app = Fastify();
    const handler = makeServer().nodeHandler();
    app.all(ENDPOINT_PATH, (request, reply) => {
      reply.hijack();
      (request.raw as IncomingMessage & { body?: unknown }).body = request.body;
      handler(request.raw, reply.raw);
    });
    return fastifyEndpoint(app);
  });
});

describe("node:http: createServer(server.nodeHandler())", () => {
  mcpScenario(() => endpointOf(createHttpServer(makeServer().nodeHandler()).listen(0, "127.0.0.1")));
});

describe(`Hono on @hono/node-server: app.all("${ENDPOINT_PATH}", (c) => handler(c.req.raw))`, () => {
  mcpScenario(() => {
    const app = new Hono();
    const handler = makeServer().fetchHandler();
    app.all(ENDPOINT_PATH, (c) => handler(c.req.raw));
    return endpointOf(serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server);
  });
});
