// The ID-front tests' reading of a card's face: classify the lines, then read the fields its catalogue type declares
// (id-front-study, id-front-study2).
import { expect } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { classifyIdFront, readIdFrontFields } from '../../../server/src/providers/local/text/id-front.ts';
import type { TextLine } from '../../../server/src/providers/local/types.ts';

/** The values read from a card's lines, by field name; the lines must classify as an ID front. */
export function fields(lines: TextLine[]): Record<string, unknown> {
  const c = classifyIdFront(lines)!;
  expect(c).not.toBeNull();
  const entry = getEntry(c.type)!;
  const f = readIdFrontFields(lines, entry, entry.fields, { country: c.country, region: c.region });
  return Object.fromEntries(Object.entries(f).map(([k, x]) => [k, x.value]));
}
