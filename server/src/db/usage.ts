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
      (eb) => eb.fn.sum<number>('analyses').as('count'),
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

/**
 * Folds per-analysis rows written before `before` into one row per account, mode, day, document type and kind
 * (`analysis_id` `usage:<account>:<mode>:<day>:<kind>:<type>`, adding to it when it exists). At most `limit` rows per
 * call; answers how many were folded. `aggregateUsage` answers the same before and after.
 */
export async function foldUsage(db: Conn, before: Date, limit: number): Promise<number> {
  const r = await sql<{ n: string }>`
    with gone as (
      delete from usage_records where analysis_id in (
        select analysis_id from usage_records where created_at < ${before} and analysis_id not like 'usage:%' limit ${limit}
      ) returning account_id, livemode, day, document_type, kind, pages, credits_milli, analyses, created_at
    ), folded as (
      insert into usage_records (analysis_id, account_id, livemode, day, document_type, kind, pages, credits_milli, analyses, created_at)
      select 'usage:' || account_id || ':' || (case when livemode then 'live' else 'test' end) || ':' || to_char(day, 'YYYY-MM-DD') || ':' || kind || ':' || document_type,
             account_id, livemode, day, document_type, kind, sum(pages), sum(credits_milli), sum(analyses), max(created_at)
      from gone group by account_id, livemode, day, document_type, kind
      on conflict (analysis_id) do update set
        pages = usage_records.pages + excluded.pages,
        credits_milli = usage_records.credits_milli + excluded.credits_milli,
        analyses = usage_records.analyses + excluded.analyses
      returning 1
    )
    select (select count(*) from gone) as n`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}
