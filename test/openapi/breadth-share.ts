/**
 * One share of the breadth test's documents (test/openapi/breadth.test.ts forks one per core): the parent sends a
 * document at a time ({ id, path }) and this process imports it into the workspace and runs its project's codegen,
 * answering a ShareDocument; after { done: true }, one `tsc --strict` over the projects of the share, answered as a
 * ShareDone. A queue rather than fixed shares: a document's cost follows neither its size nor its operations.
 *
 *   fork("test/openapi/breadth-share.ts", [<workspace dir>, <share name>], { execArgv: ["--import", "tsx"] })
 */
import { codegen, importProject, typecheck } from "./workspace.js";

/** A document done: the tools imported, or the one line it was refused with. */
export interface ShareDocument {
  id: string;
  tools?: number;
  refused?: string;
  /** Milliseconds of wall time. */
  ms: { import: number; codegen: number };
}

/** The share done: tsc's diagnostics over its projects (empty when every one type-checks), and tsc's wall ms. */
export interface ShareDone {
  diagnostics: string;
  ms: number;
}

const [dir, name] = process.argv.slice(2);
const ws = { dir };
const ids: string[] = [];

process.on("message", (m: { id: string; path: string } | { done: true }) => void handle(m));

async function handle(m: { id: string; path: string } | { done: true }): Promise<void> {
  if ("done" in m) {
    const t = performance.now();
    const diagnostics = ids.length ? await typecheck(ws, name, ids) : "";
    process.send!({ diagnostics, ms: performance.now() - t } satisfies ShareDone, () => process.exit(0));
    return;
  }
  const t0 = performance.now();
  try {
    const { dir: project, changes } = await importProject(ws, m.id, m.path);
    const t1 = performance.now();
    await codegen(project);
    ids.push(m.id);
    process.send!({ id: m.id, tools: changes.added.length, ms: { import: t1 - t0, codegen: performance.now() - t1 } } satisfies ShareDocument);
  } catch (err) {
    process.send!({ id: m.id, refused: (err as Error).message, ms: { import: performance.now() - t0, codegen: 0 } } satisfies ShareDocument);
  }
}
