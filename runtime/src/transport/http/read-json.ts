/** The checks every POST passes before its era matters: Content-Type, Accept, the body's size and its JSON. */
import { loopNow } from "./cpu-share.js";
import { isJsonType, one, type Accept } from "./body.js";
import type { Incoming, Reply } from "./io.js";
import type { Responder } from "./respond.js";

/** Fatal: a body that is not UTF-8 is a parse error (-32700), as the same bytes are on stdio (RFC 8259 §8.1), never U+FFFD. */
const utf8 = new TextDecoder("utf-8", { fatal: true });

export class JsonBodies {
  /** @param maxBody the largest accepted body in bytes (HandlerOptions.maxBodyBytes). */
  constructor(
    private readonly responder: Responder,
    private readonly maxBody: number,
  ) {}

  /**
   * The POST's JSON body to `done` (with the loopNow() at which its bytes were all in: what decoding and parsing
   * them cost is its caller's, cpu-share.ts), or the answer why there is none (415, 406, 413, 400, -32700).
   */
  read(req: Incoming, res: Reply, accept: Accept, done: (value: unknown, began: number) => void): void {
    const responder = this.responder;
    if (!isJsonType(one(req.headers["content-type"]))) return responder.invalidRequest(res, 415, "Unsupported Media Type: Content-Type must be application/json");
    if (!accept.json && !accept.sse) return responder.invalidRequest(res, 406, "Not Acceptable: Accept must allow application/json or text/event-stream");
    const accepted = (value: unknown, began = loopNow()) => {
      try {
        done(value, began);
      } catch (err) {
        responder.internalError(res, err);
      }
    };
    if (req.parsedBody !== undefined) return accepted(req.parsedBody);
    const limit = this.maxBody;
    // Past the limit: 413 with a JSON-RPC body, and the connection closed after it.
    const tooLarge = () => responder.invalidRequest(res, 413, `Payload Too Large: the body exceeds ${limit} bytes`, null, { connection: "close" });
    req.readBody(
      limit,
      (body) => {
        const began = loopNow();
        let text: string;
        try {
          text = utf8.decode(body);
        } catch {
          return responder.parseError(res, "Parse error: the body is not valid UTF-8");
        }
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (err) {
          return responder.parseError(res, `Parse error: ${(err as Error).message}`);
        }
        accepted(value, began);
      },
      tooLarge,
      // The body could not be read (its stream failed, or another handler consumed it): 400, never silence.
      (err) => responder.invalidRequest(res, 400, `Bad Request: the body could not be read (${(err as Error)?.message ?? err})`),
    );
  }
}
