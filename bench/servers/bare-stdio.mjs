// Baseline: a bare newline-delimited JSON-RPC loop over stdio, no validation.
import { answer } from "./bare-core.mjs";

let buf = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buf += chunk;
  let nl;
  while ((nl = buf.indexOf("\n")) !== -1) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (!line.trim()) continue;
    const res = answer(JSON.parse(line));
    if (res) process.stdout.write(JSON.stringify(res) + "\n");
  }
});
process.stdin.on("end", () => process.exit(0));
