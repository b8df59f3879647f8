/**
 * At most `max` units of work at once; the others wait in arrival order. A task takes `weight` units (1 by default,
 * at most `max`): a large page takes the whole lane and is read alone, so that two large pages' working sets (decoded
 * pixels, both OCR engines' buffers) are never resident at once. A waiting task is never overtaken (no starvation).
 *
 * The weight may be a promise (an image's size read from its header): the task takes its place in line when `run` is
 * called, not when its weight is known, so a task whose header is read later is not overtaken for it.
 */
export class Limiter {
  readonly max: number;
  private used = 0;
  private readonly waiting: Array<{ weight: number | null; start: () => void }> = [];

  constructor(max: number) {
    this.max = Math.max(1, max);
  }

  async run<T>(task: () => Promise<T>, weight: number | Promise<number> = 1): Promise<T> {
    const place: { weight: number | null; start: () => void } = { weight: null, start: () => {} };
    const started = new Promise<void>((start) => (place.start = start));
    this.waiting.push(place);
    let w: number;
    try {
      w = this.clamp(await weight);
    } catch {
      // A weight that cannot be told is the whole lane (the cautious answer for memory).
      w = this.max;
    }
    place.weight = w;
    this.wake();
    await started;
    try {
      return await task();
    } finally {
      this.used -= w;
      this.wake();
    }
  }

  private clamp(weight: number): number {
    return Math.min(this.max, Math.max(1, Math.ceil(Number.isFinite(weight) ? weight : this.max)));
  }

  /** Starts the waiting tasks, in arrival order, while the first's weight is known and fits. */
  private wake(): void {
    while (this.waiting.length > 0 && this.waiting[0].weight !== null && this.used + this.waiting[0].weight <= this.max) {
      const next = this.waiting.shift()!;
      this.used += next.weight!;
      next.start();
    }
  }
}
