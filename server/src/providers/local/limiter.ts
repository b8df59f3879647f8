/** At most `max` tasks at once; the others wait in arrival order. */
export class Limiter {
  readonly max: number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(max: number) {
    this.max = Math.max(1, max);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next(); // the slot passes straight to the next task
      else this.running--;
    }
  }
}
