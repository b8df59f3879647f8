import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { LARGE_PAGE_PIXELS, pageLaneWeight } from '../../../server/src/providers/local/image.ts';
import { Limiter } from '../../../server/src/providers/local/limiter.ts';

/** A task that records when it started and ends when `release` is called. */
function gate(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { release, task: async () => { log.push(`start ${name}`); await done; log.push(`end ${name}`); return name; } };
}
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('Limiter (the page lane)', () => {
  it('runs `max` tasks of weight 1 at once, the others in arrival order', async () => {
    const lane = new Limiter(2);
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((n) => gate(log, n));
    const runs = [lane.run(a.task), lane.run(b.task), lane.run(c.task)];
    await tick();
    expect(log).toEqual(['start a', 'start b']);
    b.release();
    await tick();
    expect(log).toEqual(['start a', 'start b', 'end b', 'start c']);
    a.release();
    c.release();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c']);
  });

  it('reads a task that takes the whole lane alone: it waits for the running ones, and the next wait for it', async () => {
    const lane = new Limiter(2);
    const log: string[] = [];
    const [small, large, after] = ['small', 'large', 'after'].map((n) => gate(log, n));
    const runs = [lane.run(small.task), lane.run(large.task, lane.max), lane.run(after.task)];
    await tick();
    // `after` would fit beside `small`, but never overtakes the large page that came first (no starvation).
    expect(log).toEqual(['start small']);
    small.release();
    await tick();
    expect(log).toEqual(['start small', 'end small', 'start large']);
    large.release();
    await tick();
    expect(log.slice(-2)).toEqual(['end large', 'start after']);
    after.release();
    await Promise.all(runs);
  });

  it('keeps the place of a task whose weight is still being read: one called later with a known weight waits behind it', async () => {
    const lane = new Limiter(1);
    const log: string[] = [];
    const [first, second] = ['first', 'second'].map((n) => gate(log, n));
    let weigh!: (w: number) => void;
    const runs = [lane.run(first.task, new Promise<number>((r) => (weigh = r))), lane.run(second.task, 1)];
    await tick();
    // The lane is free, but `second` does not overtake `first`, whose header is still being read.
    expect(log).toEqual([]);
    weigh(1);
    await tick();
    expect(log).toEqual(['start first']);
    first.release();
    await tick();
    expect(log).toEqual(['start first', 'end first', 'start second']);
    second.release();
    expect(await Promise.all(runs)).toEqual(['first', 'second']);
    // A weight that cannot be told (its promise fails) is the whole lane, and the task still runs.
    const whole = gate(log, 'whole');
    const beside = gate(log, 'beside');
    const two = new Limiter(2);
    const more = [two.run(whole.task, Promise.reject(new Error('no header'))), two.run(beside.task)];
    await tick();
    expect(log.slice(-1)).toEqual(['start whole']);
    whole.release();
    await tick();
    expect(log.slice(-2)).toEqual(['end whole', 'start beside']);
    beside.release();
    await Promise.all(more);
  });

  it('frees the units of a task that throws, and clamps a weight above the lane to the lane', async () => {
    const lane = new Limiter(2);
    await expect(lane.run(() => Promise.reject(new Error('boom')), 5)).rejects.toThrow('boom');
    const log: string[] = [];
    const [a, b] = ['a', 'b'].map((n) => gate(log, n));
    const runs = [lane.run(a.task), lane.run(b.task)];
    await tick();
    expect(log).toEqual(['start a', 'start b']);
    a.release();
    b.release();
    await Promise.all(runs);
  });
});

describe('pageLaneWeight (how much of the page lane an image takes)', () => {
  const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#fff' } }).png().toBuffer();

  it('a photo takes one slot; a page over LARGE_PAGE_PIXELS once fitted to the reading size takes the whole lane', async () => {
    expect(await pageLaneWeight(await png(1080, 1527), 2)).toBe(1);
    // 2975 x 3850 (11.5 Mpx) is read at 2318 x 3000 (7 Mpx): large.
    expect(await pageLaneWeight(await png(2975, 3850), 2)).toBe(2);
    expect(2318 * 3000).toBeGreaterThan(LARGE_PAGE_PIXELS);
  });

  it('a real ID photo of the test data (PassportEye) takes one slot', async () => {
    const dir = path.resolve('../shared/testdata/documents/id-images/PassportEye/testdata');
    const file = fs.readdirSync(dir).find((f) => /\.(jpe?g|png)$/i.test(f))!;
    expect(await pageLaneWeight(fs.readFileSync(path.join(dir, file)), 2)).toBe(1);
  });

  it('an image whose size its header does not tell (sharp cannot read it) takes the whole lane', async () => {
    expect(await pageLaneWeight(new Uint8Array([0xff, 0xd8, 0xff, 0x00, 1, 2, 3]), 2)).toBe(2);
  });
});
