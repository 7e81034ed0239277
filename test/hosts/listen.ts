/** Listening on 127.0.0.1 (a free port) and closing again, for the in-process Node hosts. */
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Endpoint } from "./scenario.js";

export const ENDPOINT_PATH = "/api/mcp";

/** The endpoint of a node:http server that is listening (or about to). */
export async function endpointOf(server: Server): Promise<Endpoint> {
  if (!server.listening) await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${ENDPOINT_PATH}`,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        // Open SSE streams would hold close() forever; the scenario leaves none, but a failing test might.
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
