/**
 * At most `max` units of work at once; the others wait in arrival order. A task takes `weight` units (1 by default,
 * at most `max`): a large page takes the whole lane and is read alone, so that two large pages' working sets (decoded
 * pixels, both OCR engines' buffers) are never resident at once. A waiting task is never overtaken (no starvation).
 */
export class Limiter {
  readonly max: number;
  private used = 0;
  private readonly waiting: Array<{ weight: number; start: () => void }> = [];

  constructor(max: number) {
    this.max = Math.max(1, max);
  }

  async run<T>(task: () => Promise<T>, weight = 1): Promise<T> {
    const w = Math.min(this.max, Math.max(1, Math.ceil(weight)));
    if (this.waiting.length > 0 || this.used + w > this.max) await new Promise<void>((start) => this.waiting.push({ weight: w, start }));
    else this.used += w;
    try {
      return await task();
    } finally {
      this.used -= w;
      this.wake();
    }
  }

  /** Starts the waiting tasks, in arrival order, while the first fits. */
  private wake(): void {
    while (this.waiting.length > 0 && this.used + this.waiting[0].weight <= this.max) {
      const next = this.waiting.shift()!;
      this.used += next.weight;
      next.start();
    }
  }
}
