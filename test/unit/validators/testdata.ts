/** Shared test data readers (files read at test time from ../shared/testdata; never copied). */
import fs from 'node:fs';
import path from 'node:path';

export const TESTDATA = path.resolve(import.meta.dirname, '../../../../shared/testdata');

export function readJson<T = any>(rel: string): T {
  return JSON.parse(fs.readFileSync(path.join(TESTDATA, rel), 'utf8')) as T;
}

export interface Disagreement {
  reason: string;
  value?: unknown;
}

export interface AgreementRow {
  source: string;
  total: number;
  compared: number;
  agree: number;
  deliberate: number;
  out_of_scope: number;
}

export function summarise(rows: AgreementRow[], title: string): void {
  const table = rows.map((r) => ({
    source: r.source,
    total: r.total,
    compared: r.compared,
    agree: r.agree,
    deliberate_differences: r.deliberate,
    out_of_scope: r.out_of_scope,
    agreement: r.compared ? `${((100 * (r.agree + r.deliberate)) / r.compared).toFixed(1)}% (strict ${((100 * r.agree) / r.compared).toFixed(1)}%)` : 'n/a',
  }));
  console.log(`\n${title}`);
  console.table(table);
}
