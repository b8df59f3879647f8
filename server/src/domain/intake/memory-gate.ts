/**
 * How many bytes of documents the process holds in memory at once while it reads, checks and stores them (and, for a
 * synchronous analysis, reads them): a request waits its turn for room, first come first served, so sixteen
 * concurrent 20 MB uploads hold at most this much, not 320 MB. A document larger than the whole budget is let in
 * alone when nothing else holds any.
 */
export const DOCUMENT_MEMORY_BYTES = 64 * 1024 * 1024;

class ByteGate {
  private readonly total: number;
  private used = 0;
  private readonly waiting: Array<{ bytes: number; admit: () => void }> = [];

  constructor(total: number) {
    this.total = total;
  }

  get held(): number {
    return this.used;
  }

  private fits(bytes: number): boolean {
    return this.used === 0 || this.used + bytes <= this.total;
  }

  async acquire(bytes: number): Promise<() => void> {
    if (this.waiting.length > 0 || !this.fits(bytes)) {
      await new Promise<void>((admit) => this.waiting.push({ bytes, admit }));
    } else {
      this.used += bytes;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= bytes;
      this.admitWaiting();
    };
  }

  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0].bytes)) {
      const next = this.waiting.shift()!;
      this.used += next.bytes;
      next.admit();
    }
  }
}

const gate = new ByteGate(DOCUMENT_MEMORY_BYTES);

/** Runs `work` once `bytes` of the process's document memory are free, and gives them back when it ends. */
export async function withDocumentMemory<T>(bytes: number, work: () => Promise<T>): Promise<T> {
  const release = await gate.acquire(Math.max(0, bytes));
  try {
    return await work();
  } finally {
    release();
  }
}

/** Bytes of document memory held now (tests). */
export const documentMemoryHeld = (): number => gate.held;
