/**
 * Admission order on one link: messages are admitted strictly in arrival order (classification, the handshake,
 * validation), so `initialize` settles the session before the next message is routed; handlers then run concurrently
 * and may finish in any order. Admission is synchronous in the common case; a message waits only while an earlier one
 * is still being admitted (e.g. while its revision's validators load).
 */
export class AdmissionQueue {
  /** An earlier message is not admitted yet: later ones wait. */
  private gated = false;
  private draining = false;
  private readonly waiting: (() => void)[] = [];
  private active = 0;
  private readonly idleWaiters: (() => void)[] = [];

  /**
   * Run `work` once every earlier message is admitted. `work` receives `admit`, to call once its message is admitted
   * (calling it again is harmless), and `settled`, which it MUST call when its message is answered (in a `finally`):
   * plain callbacks rather than promise chaining, as this runs for every message.
   */
  enter(work: (admit: () => void, settled: () => void) => Promise<void>): Promise<void> {
    if (this.gated) return new Promise((resolve) => this.waiting.push(() => void this.start(work).then(resolve)));
    return this.start(work);
  }

  /** Run `f` in arrival order (now, unless an earlier message is still being admitted). */
  inOrder(f: () => void): Promise<void> {
    if (!this.gated) {
      f();
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(() => (f(), resolve())));
  }

  /** Resolves when every message received so far has settled. */
  idle(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private start(work: (admit: () => void, settled: () => void) => Promise<void>): Promise<void> {
    this.gated = true;
    this.active++;
    let open = false;
    const admit = () => {
      if (open) return;
      open = true;
      this.gated = false;
      if (this.draining) return; // an outer drain loop continues
      this.draining = true;
      try {
        while (!this.gated && this.waiting.length) this.waiting.shift()!();
      } finally {
        this.draining = false;
      }
    };
    const settled = () => {
      admit();
      if (--this.active === 0 && this.waiting.length === 0) for (const w of this.idleWaiters.splice(0)) w();
    };
    return work(admit, settled);
  }
}
