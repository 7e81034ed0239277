/** `deno run <DENO_FLAGS> test/hosts/deno-server.ts`: server.fetchHandler() under Deno.serve on 127.0.0.1, a free port. */
import { makeServer } from "./app.ts";

// Deno's own types are not installed; this is the part of Deno.serve used here.
declare const Deno: {
  serve(options: { port: number; hostname: string; onListen(addr: { port: number }): void }, handler: (request: Request) => Promise<Response>): unknown;
};

Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: ({ port }) => console.log(`listening ${port}`) }, makeServer().fetchHandler());
