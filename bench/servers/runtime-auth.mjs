// OUR server with authorization: the runtime's serveHttp as an OAuth 2.1 resource server. The authorization server's
// part is played in this process by a node:http server on 127.0.0.1 publishing RFC 8414 metadata and a JWKS (one
// ES256 key); the bench client's token (an ES256 JWT for this server's URL, valid for an hour) is printed as
// "bearer <token>" before the listening line. The runtime fetches the JWKS once and caches it, so what is measured is
// the verification of every request's token (signature, iss, aud, exp), not a fetch.
import { createServer as createHttpServer } from "node:http";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { benchServer } from "./runtime-server.mjs";

const { publicKey, privateKey } = await generateKeyPair("ES256");
const jwk = {
  ...(await exportJWK(publicKey)),
  kid: "bench",
  alg: "ES256",
  use: "sig",
};
const as = createHttpServer((req, res) => {
  const body =
    req.url === "/.well-known/oauth-authorization-server"
      ? {
          issuer,
          jwks_uri: `${issuer}/jwks`,
          token_endpoint: `${issuer}/token`,
          response_types_supported: ["code"],
        }
      : req.url === "/jwks"
        ? { keys: [jwk] }
        : undefined;
  if (!body) return void res.writeHead(404).end();
  res
    .writeHead(200, { "content-type": "application/json" })
    .end(JSON.stringify(body));
});
await new Promise((r) => as.listen(0, "127.0.0.1", r));
as.unref();
const issuer = `http://127.0.0.1:${as.address().port}`;

const handle = await benchServer().serveHttp({
  host: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
  quiet: true,
  authorization: { issuer },
});
const now = Math.floor(Date.now() / 1000);
const token = await new SignJWT({ scope: "tools:read", client_id: "bench" })
  .setProtectedHeader({ alg: "ES256", kid: "bench", typ: "at+jwt" })
  .setIssuer(issuer)
  .setAudience(handle.url)
  .setSubject("bench-user")
  .setIssuedAt(now)
  .setExpirationTime(now + 3600)
  .sign(privateKey);
process.stderr.write(`bearer ${token}\nlistening ${handle.url}\n`);
