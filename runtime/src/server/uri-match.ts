/**
 * The machine that matches a URI template (uri-template.ts compiles a template to its instructions): a tiny
 * regular-expression machine with captures, run by a backtracking search that never enters a branch twice at the same
 * position, so that a match costs O(n·k) steps for an input of n characters and k instructions, whatever the input.
 * Pure: no I/O, no imports.
 */
// ---- the program: what one template accepts, as instructions of a tiny regular-expression machine ----

const CHAR = 0; // the character a
const CLASS = 1; // any character but the ASCII ones excluded at sets[a …]
const SPLIT = 2; // continue at a, or else (lower priority) at b; split[pc] numbers the split
const JUMP = 3; // continue at a
const SAVE = 4; // record the position in slot a
const MATCH = 5; // accept, when at the end of the URI

/** A template's instructions, one per array element (pc); what `a` and `b` mean depends on `op`. */
export interface Program {
  op: Int32Array;
  a: Int32Array;
  b: Int32Array;
  /** Per pc: the number of its split (for SPLIT); how many splits. */
  split: Int32Array;
  splits: number;
  /** 128 bytes per character class, 1 for each excluded ASCII character (every excluded character is ASCII). */
  sets: Uint8Array;
  /** Per pc: the split (its number) that the instructions from pc lead to without a choice (-1: none), and the characters taken. */
  ahead: Int32Array;
  aheadLength: Int32Array;
  /** FIRST bytes per pc: 1 for each next character (ASCII, then NON_ASCII, then END) a path from pc can consume. */
  first: Uint8Array;
  /**
   * Per pc of a loop's split: a sticky regular expression taking the characters only the loop's body can take and its
   * exit cannot start with (runThrough), else undefined. A native scan: about 0.2 ms for 512 KiB, not 2 ms of charCodeAt.
   */
  through: (RegExp | undefined)[];
  /** The variable captured in each pair of slots, in order; the query's pair follows. */
  names: string[];
  /** The variables read from the query (`{?…}`, `{&…}`), in any order. */
  queryNames: string[];
  slots: number;
  /** The text before the first expression, and (without a query) after the last. */
  prefix: string;
  suffix: string;
}

const NON_ASCII = 128;
const END = 129;
const FIRST = 130;

interface Instruction {
  op: number;
  a: number;
  b: number;
}

export class Builder {
  readonly names: string[] = [];
  private readonly code: Instruction[] = [];
  private readonly classes: string[] = [];

  private emit(op: number, a = 0, b = 0): Instruction {
    const inst = { op, a, b };
    this.code.push(inst);
    return inst;
  }

  /** A new pair of slots for the variable `name`: its first slot. */
  slot(name: string): number {
    this.names.push(name);
    return 2 * (this.names.length - 1);
  }

  literal(text: string): void {
    for (let i = 0; i < text.length; i++) this.emit(CHAR, text.charCodeAt(i));
  }

  /** At least `min` characters but `excluded` into slots `slot`, `slot + 1`: the fewest first when `lazy`, else the most. */
  capture(slot: number, excluded: string, run: { min: 0 | 1; lazy: boolean }): void {
    if (!this.classes.includes(excluded)) this.classes.push(excluded);
    const set = 128 * this.classes.indexOf(excluded);
    this.emit(SAVE, slot);
    // [SPLIT (when min is 0)] CLASS SPLIT: each split chooses between the loop's CLASS and its exit.
    const loop = (split: Instruction, body: number, exit: number) => ([split.a, split.b] = run.lazy ? [exit, body] : [body, exit]);
    const skip = run.min === 0 ? this.emit(SPLIT) : undefined;
    const body = this.code.length;
    this.emit(CLASS, set);
    const again = this.emit(SPLIT);
    if (skip) loop(skip, body, body + 2);
    loop(again, body, body + 2);
    this.emit(SAVE, slot + 1);
  }

  /** An empty value in slots `slot`, `slot + 1`. */
  empty(slot: number): void {
    this.emit(SAVE, slot);
    this.emit(SAVE, slot + 1);
  }

  /** The text `lead` then what `preferred` emits, or else what `otherwise` emits (by default: nothing). */
  either(lead: string, preferred: () => void, otherwise: () => void = () => {}): void {
    const split = this.emit(SPLIT, this.code.length + 1);
    this.literal(lead);
    preferred();
    const jump = this.emit(JUMP);
    split.b = this.code.length;
    otherwise();
    jump.a = this.code.length;
  }

  finish(queryNames: string[], ends: { prefix: string; suffix: string }): Program {
    this.emit(MATCH);
    const code = this.code;
    const split = new Int32Array(code.length);
    let splits = 0;
    code.forEach((inst, pc) => {
      if (inst.op === SPLIT) split[pc] = splits++;
    });
    const sets = new Uint8Array(128 * this.classes.length);
    this.classes.forEach((excluded, i) => {
      for (const ch of excluded) sets[128 * i + ch.charCodeAt(0)] = 1;
    });
    const column = (f: (inst: Instruction) => number) => Int32Array.from(code, f);
    const first = firstSets(code, sets);
    const ahead = new Int32Array(code.length).fill(-1);
    const aheadLength = new Int32Array(code.length);
    code.forEach((_, start) => {
      let pc = start;
      for (; code[pc].op !== SPLIT && code[pc].op !== MATCH; pc = code[pc].op === JUMP ? code[pc].a : pc + 1) {
        if (code[pc].op === CHAR || code[pc].op === CLASS) aheadLength[start]++;
      }
      if (code[pc].op === SPLIT) ahead[start] = split[pc];
    });
    const through = code.map((inst, pc) => throughScan(code, first, pc));
    return {
      through,
      op: column((i) => i.op),
      a: column((i) => i.a),
      b: column((i) => i.b),
      split,
      splits,
      sets,
      first,
      ahead,
      aheadLength,
      names: this.names,
      queryNames,
      slots: 2 * this.names.length + 2,
      ...ends,
    };
  }
}

/** Program.through at `pc`: the characters but those the body cannot take or the exit can start with, any number. */
function throughScan(code: Instruction[], first: Uint8Array, pc: number): RegExp | undefined {
  const body = pc - 1;
  const { op, a, b } = code[pc];
  if (op !== SPLIT || (a !== body && b !== body) || code[body]?.op !== CLASS) return undefined;
  const stops = (c: number) => first[FIRST * body + c] === 0 || first[FIRST * (a === body ? b : a) + c] === 1;
  let stop = "";
  for (let c = 0; c < 128; c++) if (stops(c)) stop += `\\u${c.toString(16).padStart(4, "0")}`;
  if (stops(NON_ASCII)) stop += "\\u0080-\\uffff";
  return new RegExp(stop ? `[^${stop}]*` : "[^]*", "y");
}

/** What each pc can consume first, through splits, jumps and saves (see Program.first). */
function firstSets(code: Instruction[], sets: Uint8Array): Uint8Array {
  const first = new Uint8Array(FIRST * code.length);
  code.forEach((_, start) => {
    const row = FIRST * start;
    const seen = new Set<number>();
    const visit = (pc: number): void => {
      if (seen.has(pc)) return;
      seen.add(pc);
      const { op, a, b } = code[pc];
      if (op === SPLIT) {
        visit(a);
        visit(b);
      } else if (op === JUMP) visit(a);
      else if (op === SAVE) visit(pc + 1);
      else if (op === MATCH) first[row + END] = 1;
      else if (op === CHAR) first[row + (a < 128 ? a : NON_ASCII)] = 1;
      else for (let c = 0; c <= NON_ASCII; c++) first[row + c] ||= c === NON_ASCII || sets[a + c] === 0 ? 1 : 0;
    };
    visit(start);
  });
  return first;
}

// ---- running a program: backtracking that never tries a branch twice at the same position ----

/**
 * The slots of the first way (in priority order) `program` matches all of `input`, or undefined. A backtracking
 * search that marks each (split, position) it enters: whatever the slots, the rest of the program fails from there the
 * same way, so a second visit is skipped. Each split runs at most once per position: O(n·k) steps.
 */
export function run(program: Program, input: string): Int32Array | undefined {
  const { op, a, b, split, sets, first, ahead, aheadLength } = program;
  const n = input.length;
  const slots = new Int32Array(program.slots).fill(-1);
  // A bit per split and position: the split was entered there (so the rest failed from there, whatever the slots).
  const words = (n >>> 5) + 1;
  const visited = new Int32Array(program.splits * words);
  const marks = { visited, words };
  const isVisited = (splitNo: number, p: number) => (visited[splitNo * words + (p >>> 5)] & (1 << (p & 31))) !== 0;
  // Whether the straight run of instructions from `to` (at `at`) reaches a split at a position it already left.
  const dead = (to: number, at: number): boolean => ahead[to] >= 0 && (at + aheadLength[to] > n || isVisited(ahead[to], at + aheadLength[to]));
  const stack = new Backtrack();
  let pc = 0;
  let at = 0;
  for (;;) {
    const c = at < n ? input.charCodeAt(at) : -1;
    const code = op[pc];
    if (code === CHAR || code === CLASS) {
      if (code === CHAR ? c === a[pc] : c >= 0 && (c >= 128 || sets[a[pc] + c] === 0)) {
        pc++;
        at++;
        continue;
      }
    } else if (code === SPLIT) {
      // A loop's split (its body the CLASS just before it) stays here for as long as it takes the body.
      let to = -1;
      const self = split[pc];
      // Through the characters that only the loop's body can take, at once (the cost of a long value).
      at = runThrough(program, input, pc, at, marks);
      for (; !isVisited(self, at); at++) {
        visited[self * words + (at >>> 5)] |= 1 << (at & 31);
        // Only the branches that can go on from this character (or the end) and were not left before: a lazy loop
        // does not try its exit at every character, nor a greedy one leave an alternative at every character.
        const next = at < n ? (input.charCodeAt(at) < 128 ? input.charCodeAt(at) : NON_ASCII) : END;
        const x = first[FIRST * a[pc] + next] === 1 && !dead(a[pc], at);
        const y = first[FIRST * b[pc] + next] === 1 && !dead(b[pc], at);
        if (x && y) stack.branch(b[pc], at);
        to = x ? a[pc] : y ? b[pc] : -1;
        // Into the body, which `first` says takes this character: take it here.
        if (to !== pc - 1 || op[to] !== CLASS) break;
        to = -1;
      }
      if (to >= 0) {
        pc = to;
        continue;
      }
    } else if (code === JUMP) {
      pc = a[pc];
      continue;
    } else if (code === SAVE) {
      stack.undo(a[pc], slots[a[pc]]);
      slots[a[pc]] = at;
      pc++;
      continue;
    } else if (c < 0) return slots; // MATCH at the end
    if (!stack.resume(slots)) return undefined;
    pc = stack.pc;
    at = stack.at;
  }
}

/**
 * Where the loop whose split is at `pc` stops taking characters that only its body (the CLASS before the split) can
 * take and its exit cannot start with, from `at`; each position passed is marked entered, as the split's own step
 * would. Not a loop's split: `at`.
 */
function runThrough(program: Program, input: string, pc: number, at: number, marks: { visited: Int32Array; words: number }): number {
  const scan = program.through[pc];
  if (!scan || at >= input.length) return at;
  scan.lastIndex = at;
  scan.test(input);
  return markUntilVisited(marks.visited, program.split[pc] * marks.words, at, scan.lastIndex);
}

/**
 * Marks the positions from `from` up to `to` (exclusive) in the bits at word `base` of `visited`, stopping at the first
 * one marked already: where it stopped. A word (32 positions) at a time.
 */
function markUntilVisited(visited: Int32Array, base: number, from: number, to: number): number {
  for (let p = from; p < to;) {
    const w = base + (p >>> 5);
    const lo = p & 31;
    const hi = Math.min(32, lo + (to - p));
    const mask = hi === 32 ? -1 << lo : ((1 << hi) - 1) & (-1 << lo);
    const seen = visited[w] & mask;
    if (seen) {
      const stop = 31 - Math.clz32(seen & -seen);
      visited[w] |= mask & ((1 << stop) - 1);
      return p - lo + stop;
    }
    visited[w] |= mask;
    p += hi - lo;
  }
  return to;
}

/**
 * The backtracking stack: alternatives to resume (pc, from, to: at each position from `to` down to `from`, so that a
 * greedy loop costs one entry) and slot values to restore (-1 - slot, value).
 */
class Backtrack {
  private entries = new Int32Array(96);
  private top = 0;
  pc = 0;
  at = 0;

  branch(pc: number, at: number): void {
    const e = this.entries;
    const t = this.top;
    if (t && e[t - 3] === pc && e[t - 1] === at - 1) e[t - 1] = at;
    else this.push(pc, at, at);
  }

  undo(slot: number, value: number): void {
    this.push(-1 - slot, value, 0);
  }

  /** Restore slots down to the latest alternative, and take it (pc, at); false when none is left. */
  resume(slots: Int32Array): boolean {
    const e = this.entries;
    while (this.top) {
      const t = this.top - 3;
      if (e[t] < 0) {
        slots[-1 - e[t]] = e[t + 1];
        this.top = t;
        continue;
      }
      this.pc = e[t];
      this.at = e[t + 2];
      if (e[t + 2] === e[t + 1]) this.top = t;
      else e[t + 2]--;
      return true;
    }
    return false;
  }

  private push(x: number, y: number, z: number): void {
    if (this.top + 3 > this.entries.length) {
      const grown = new Int32Array(this.entries.length * 2);
      grown.set(this.entries);
      this.entries = grown;
    }
    const e = this.entries;
    e[this.top++] = x;
    e[this.top++] = y;
    e[this.top++] = z;
  }
}
