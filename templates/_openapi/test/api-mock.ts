// The upstream API for the tests: a Prism mock server (@stoplight/prism-cli, a devDependency) generated from the
// project's OpenAPI document, and a recording reverse proxy in front of it, both on 127.0.0.1, so that a test sees
// the request the API received (method, path, query, headers, body).
import { spawn } from "node:child_process";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";

export interface Mock {
  url: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Prism's command line script, from the installed package. */
function prismBin(): string {
  const pkg = createRequire(import.meta.url).resolve("@stoplight/prism-cli/package.json");
  return join(dirname(pkg), "dist", "index.js");
}

/** `prism mock <document> -h 127.0.0.1 -p <port>` once; rejects when it exits before listening. */
function prismOnce(document: string, port: number): Promise<Mock> {
  const child = spawn(process.execPath, [prismBin(), "mock", document, "-h", "127.0.0.1", "-p", String(port)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let stopping = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`prism did not listen within 60 s:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!/Prism is listening on (http:\/\/\S+)/.test(output)) return;
      clearTimeout(timer);
      // Prism exiting while the tests run makes every later request ECONNREFUSED: say why, once.
      child.once("exit", (code, signal) => {
        if (!stopping)
          process.stderr.write(`prism exited (${code ?? signal}) while serving:\n${output.slice(-2000)}\n`);
      });
      resolve({
        url: `http://127.0.0.1:${port}`,
        stop: () =>
          new Promise<void>((done) => {
            stopping = true;
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      });
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(
        Object.assign(new Error(`prism exited (${code}) before listening:\n${output}`), {
          portTaken: /EADDRINUSE/.test(output),
        }),
      );
    });
  });
}

/** A Prism mock server of `document` (static answers: the document's examples, else values built from its schemas). */
export async function startPrism(document: string): Promise<Mock> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await prismOnce(document, await freePort());
    } catch (err) {
      // Another process may take the free port before prism binds it: another port then.
      if (!(err as { portTaken?: boolean }).portTaken || attempt >= 3) throw err;
    }
  }
}

/** One request as the API received it. */
export interface Recorded {
  method: string;
  path: string;
  /** The raw query string, without `?` ("" when none). */
  query: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The API's answer: its status and body. */
  status?: number;
  answer?: Buffer;
}

export interface RecordingProxy extends Mock {
  requests: Recorded[];
  /** Answer requests itself (status and JSON body) instead of forwarding, while set (e.g. a 503 the document lacks). */
  override?: (r: Recorded) => { status: number; body: unknown } | undefined;
  /** A `Prefer` header added to what is forwarded, while set: `code=503` makes Prism answer its documented 503. */
  prefer?: string;
}

/** A reverse proxy to `target` on 127.0.0.1 that records each request and the answer to it. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const proxy: RecordingProxy = { url: "", requests: [], stop: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = req.url ?? "/";
      const q = url.indexOf("?");
      const r: Recorded = {
        method: req.method ?? "",
        path: q < 0 ? url : url.slice(0, q),
        query: q < 0 ? "" : url.slice(q + 1),
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      proxy.requests.push(r);
      const own = proxy.override?.(r);
      if (own) {
        r.status = own.status;
        r.answer = Buffer.from(JSON.stringify(own.body));
        res.writeHead(own.status, { "content-type": "application/json" });
        return res.end(r.answer);
      }
      const out = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: url,
          headers: { ...req.headers, host: upstream.host, ...(proxy.prefer ? { prefer: proxy.prefer } : {}) },
        },
        (answer) => {
          const body: Buffer[] = [];
          answer.on("data", (c: Buffer) => body.push(c));
          answer.on("end", () => {
            r.status = answer.statusCode;
            r.answer = Buffer.concat(body);
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(r.answer);
          });
        },
      );
      out.on("error", (err) => {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(`proxy: ${err.message}`);
      });
      out.end(r.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.stop = () =>
    new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
  return proxy;
}
