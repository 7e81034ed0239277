// `--import` hook of `npm run bench:suite`: every Node.js process the suite starts (NODE_OPTIONS carries the hook to
// the children that keep their environment) appends its command line and CPU time to BENCH_CPU_ACCOUNT at exit, so
// the suite's CPU can be told apart by what spent it (tsc, npm, the command, generated servers...). A process killed
// by a signal it does not handle writes nothing: the accounted share is printed beside the whole.
import { appendFileSync } from "node:fs";

const file = process.env.BENCH_CPU_ACCOUNT;
if (file) {
  process.on("exit", () => {
    const u = process.resourceUsage();
    const line = {
      argv: process.argv.slice(1, 4),
      cpu: (u.userCPUTime + u.systemCPUTime) / 1e6,
    };
    try {
      appendFileSync(file, JSON.stringify(line) + "\n");
    } catch {
      /* the run's folder is gone: nothing to account to */
    }
  });
}
