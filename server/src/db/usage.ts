import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { DB, UsageRecordsTable } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

/** Records a finished analysis once (a retried job does not count twice). */
export async function recordUsage(db: Conn, row: Insertable<UsageRecordsTable>): Promise<void> {
  await db.insertInto('usage_records').values(row).onConflict((oc) => oc.column('analysis_id').doNothing()).execute();
}

export interface UsageRow {
  day: string;
  document_type: string;
  kind: UsageRecordsTable['kind'];
  count: number;
  pages: number;
  credits_milli: number;
}

/** Aggregated per day, type and kind, days ascending. */
export async function aggregateUsage(
  db: Conn,
  scope: { account_id: string; livemode: boolean },
  f: { from: string; to: string; type?: string; kind?: UsageRecordsTable['kind'] },
): Promise<UsageRow[]> {
  let q = db
    .selectFrom('usage_records')
    .select([
      sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'),
      'document_type',
      'kind',
      (eb) => eb.fn.countAll<number>().as('count'),
      (eb) => eb.fn.sum<number>('pages').as('pages'),
      (eb) => eb.fn.sum<number>('credits_milli').as('credits_milli'),
    ])
    .where('account_id', '=', scope.account_id)
    .where('livemode', '=', scope.livemode)
    .where('day', '>=', f.from)
    .where('day', '<=', f.to);
  if (f.type) q = q.where('document_type', '=', f.type);
  if (f.kind) q = q.where('kind', '=', f.kind);
  const rows = await q.groupBy(['day', 'document_type', 'kind']).orderBy('day').orderBy('document_type').orderBy('kind').execute();
  return rows.map((r) => ({ ...r, count: Number(r.count), pages: Number(r.pages), credits_milli: Number(r.credits_milli) }));
}
