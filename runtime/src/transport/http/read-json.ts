/** The checks every POST passes before its era matters: Content-Type, Accept, the body's size and its JSON. */
import { afterNextPoll, YIELD_BYTES } from "../../protocol/turns.js";
import { loopNow } from "./cpu-share.js";
import { isJsonType, one, type Accept } from "./body.js";
import type { Incoming, Reply } from "./io.js";
import type { Responder } from "./respond.js";

/** Fatal: a body that is not UTF-8 is a parse error (-32700), as the same bytes are on stdio (RFC 8259 §8.1), never U+FFFD. */
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The replies of POSTs whose body was over YIELD_BYTES: their answer is encoded in a turn of its own (Exchange), as a
 * large request tends to have a large answer (a 512 KiB URI is read back in a 512 KiB result).
 */
export const largeBodies = new WeakSet<object>();

export class JsonBodies {
  /** @param maxBody the largest accepted body in bytes (HandlerOptions.maxBodyBytes). */
  constructor(
    private readonly responder: Responder,
    private readonly maxBody: number,
  ) {}

  /**
   * The POST's JSON body to `done` (with the ms spent decoding and parsing it: its caller's, cpu-share.ts), or the
   * answer why there is none (415 for its Content-Type or Content-Encoding, 406, 413, 400, -32700). A body over YIELD_BYTES reaches `done` in a
   * later turn of the event loop.
   */
  read(req: Incoming, res: Reply, accept: Accept, done: (value: unknown, spentMs: number) => void): void {
    const responder = this.responder;
    if (!isJsonType(one(req.headers["content-type"]))) return responder.invalidRequest(res, 415, "Unsupported Media Type: Content-Type must be application/json");
    if (!accept.json && !accept.sse) return responder.invalidRequest(res, 406, "Not Acceptable: Accept must allow application/json or text/event-stream");
    const accepted = (value: unknown, spentMs = 0) => {
      try {
        done(value, spentMs);
      } catch (err) {
        responder.internalError(res, err);
      }
    };
    if (req.parsedBody !== undefined) return accepted(req.parsedBody);
    // A coded body (gzip) read as it is would be a parse error at best: 415, naming the coding understood (a framework
    // that read the body, express.text() or raw(), inflated it). RFC 9110 §8.4.1, §15.5.16
    const coding = req.readByFramework ? undefined : one(req.headers["content-encoding"])?.trim().toLowerCase();
    if (coding && coding !== "identity")
      return responder.invalidRequest(res, 415, `Unsupported Media Type: Content-Encoding ${JSON.stringify(coding)} is not accepted; send the body unencoded`, null, { "accept-encoding": "identity" });
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
        const spent = loopNow() - began;
        if (body.length <= YIELD_BYTES) return accepted(value, spent);
        largeBodies.add(res);
        afterNextPoll(() => accepted(value, spent));
      },
      tooLarge,
      // The body could not be read (its stream failed, or another handler consumed it): 400, never silence.
      (err) => responder.invalidRequest(res, 400, `Bad Request: the body could not be read (${(err as Error)?.message ?? err})`),
    );
  }
}
