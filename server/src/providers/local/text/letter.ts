/**
 * Conventions of business letters that invoices follow, for the invoice rules of extract.ts (issue #28, third study
 * set): the place-and-date line a letter is dated by (`69469 Weinheim, 01.10.2025`, `Madrid, 3 de marzo de 2024`:
 * DIN 5008 and most European letters put the date so, with no label) and the series code printed before an
 * invoice's number (`E 5325736367`, `FE 1024`: Latin American and Iberian invoice series).
 */
import type { DateMatch, Line } from './normalize.ts';

/**
 * A place then a comma then a date, the whole of its cell, on the first page: a postcode may lead (`69469 Weinheim,`)
 * and an article may follow the comma (`Paris, le`, `Berlin, den`, `Lima, el`). Nothing else may share the cell: a
 * sentence that ends with a date (`Lieferung vom 03.09.2025`) is no date line.
 */
const PLACE_COMMA = /^\s*(?:\d{4,5}\s+)?\p{L}[\p{L}'’.\- ]{1,38}\p{L}\.?\s*,\s*(?:(?:den|le|el|il|em|am)\s+)?$/u;
/** Words of a place-and-date line that say it is some other date (`Lieferung, 03.09.2025` is no letter's date). */
const NOT_A_PLACE = /(?<![\p{L}])(datum|date|fecha|data|fallig|due|lieferung|delivery|period|bon|vom|bis|von|from|until|valid)(?![\p{L}])/u;

export function placeDate(lines: readonly Line[], dates: readonly DateMatch[][]): { line: Line; date: DateMatch } | null {
  const first = lines[0]?.page;
  for (const line of lines) {
    if (line.page !== first) break;
    for (const d of dates[line.index]) {
      const cell = line.cells.find((c) => c.start <= d.start && c.end >= d.end) ?? { start: 0, end: line.fold.length };
      const before = line.fold.slice(cell.start, d.start);
      if (line.fold.slice(d.end, cell.end).trim() !== '' || !PLACE_COMMA.test(before) || NOT_A_PLACE.test(before)) continue;
      return { line, date: d };
    }
  }
  return null;
}

/**
 * A series code of 1-4 capitals, a space, then the number's digits (4 or more, the whole token): one id, as the
 * series is part of an invoice's number (`Factura de Venta No.: E 5325736367`). Group 1 is the id.
 */
export const SERIES_NUMBER = /^([A-Z]{1,4} \d{4,})(?=$|[\s,;)]|\.(?:\s|$))/;
