/** `bun run test/hosts/bun-server.ts`: server.fetchHandler() under Bun.serve on 127.0.0.1, a free port; prints it. */
import { makeServer } from "./app.ts";

// Bun's own types are not installed; this is the part of Bun.serve used here.
declare const Bun: {
  serve(options: { port: number; hostname: string; fetch(request: Request): Promise<Response> }): { port: number };
};

const listening = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: makeServer().fetchHandler() });
console.log(`listening ${listening.port}`);
