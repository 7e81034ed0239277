/**
 * `npm pack` of a package directory, in process: how the scaffolder vendors the runtime and the codegen into a
 * project without spawning npm. Deterministic (fixed mtime, sorted entries), so the same runtime packs to the same bytes.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";

/** Every file under `dir`, as sorted `/`-separated paths relative to `base`. */
export function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name), base) : e.isFile() ? [relative(base, join(dir, e.name)).split("\\").join("/")] : []))
    .sort();
}

/**
 * `npm pack` of a package directory (package.json, README/LICENSE if any, and its "files"), done in-process:
 * a gzipped ustar archive under `package/`, deterministic (fixed mtime), without spawning npm.
 */
export function packPackage(dir: string): Buffer {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { files?: string[]; bin?: Record<string, string> };
  // The package's bins are executable in the archive, as npm packs them (a linked or extracted copy runs as is).
  const executables = new Set(Object.values(pkg.bin ?? {}).map((b) => b.replace(/^\.\//, "")));
  const entries = new Set<string>(["package.json"]);
  for (const f of readdirSync(dir)) if (/^(readme|license)/i.test(f)) entries.add(f);
  for (const f of pkg.files ?? []) {
    const p = join(dir, f);
    if (!existsSync(p)) continue;
    if (statSync(p).isDirectory()) for (const sub of listFiles(p)) entries.add(`${f.replace(/\/$/, "")}/${sub}`);
    else entries.add(f);
  }
  const blocks: Buffer[] = [];
  const mtime = Math.floor(Date.UTC(1985, 9, 26, 8, 15) / 1000);
  for (const rel of [...entries].sort()) {
    const data = readFileSync(join(dir, rel));
    blocks.push(tarHeader(`package/${rel}`, data.length, mtime, executables.has(rel) ? 0o755 : 0o644), data);
    const pad = (512 - (data.length % 512)) % 512;
    if (pad) blocks.push(Buffer.alloc(pad));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks), { level: 1 });
}

function tarHeader(path: string, size: number, mtime: number, mode: number): Buffer {
  const h = Buffer.alloc(512);
  let name = path;
  let prefix = "";
  if (Buffer.byteLength(name) > 100) {
    const cut = path.lastIndexOf("/", 155);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
    if (Buffer.byteLength(name) > 100 || Buffer.byteLength(prefix) > 155) throw new Error(`path too long for a tar archive: ${path}`);
  }
  const put = (s: string, off: number, len: number) => h.write(s, off, len, "utf8");
  const octal = (n: number, len: number) => n.toString(8).padStart(len - 1, "0") + "\0";
  put(name, 0, 100);
  put(octal(mode, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(mtime, 12), 136, 12);
  put("        ", 148, 8);
  put("0", 156, 1);
  put("ustar\0", 257, 6);
  put("00", 263, 2);
  put(prefix, 345, 155);
  let sum = 0;
  for (const b of h) sum += b;
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148, 8);
  return h;
}
