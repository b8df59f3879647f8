// The ID-front tests' reading of a card's face: classify the lines, then read the fields its catalogue type declares
// (id-front-study, id-front-study2, id-front-study3).
import { expect } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { classifyIdFront, readIdFrontFields } from '../../../server/src/providers/local/text/id-front.ts';
import type { TextLine } from '../../../server/src/providers/local/types.ts';

/** The fields read from a card's lines (values, confidences, boxes); the lines must classify as an ID front. */
export function readFront(lines: TextLine[]): ReturnType<typeof readIdFrontFields> {
  const c = classifyIdFront(lines)!;
  expect(c).not.toBeNull();
  const entry = getEntry(c.type)!;
  return readIdFrontFields(lines, entry, entry.fields, { country: c.country, region: c.region });
}

/** The values read from a card's lines, by field name. */
export function fields(lines: TextLine[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(readFront(lines)).map(([k, x]) => [k, x.value]));
}
