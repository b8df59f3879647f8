import type { Kysely, Transaction } from 'kysely';
import type { AnalysisRow, BatchRow, DB } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

export async function insertBatch(db: Conn, row: Omit<BatchRow, 'exports' | 'completed_at'>): Promise<void> {
  await db
    .insertInto('batches')
    .values({ ...row, analyses: JSON.stringify(row.analyses), metadata: JSON.stringify(row.metadata), completed_at: null })
    .execute();
}

export async function findBatch(db: Conn, scope: { account_id: string; livemode: boolean }, id: string): Promise<BatchRow | undefined> {
  return db
    .selectFrom('batches')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', scope.account_id)
    .where('livemode', '=', scope.livemode)
    .executeTakeFirst();
}

export async function findBatchById(db: Conn, id: string): Promise<BatchRow | undefined> {
  return db.selectFrom('batches').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Analysis count by status within a batch. */
export async function batchCounts(db: Conn, batchId: string): Promise<Record<AnalysisRow['status'], number>> {
  const rows = await db
    .selectFrom('analyses')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('batch_id', '=', batchId)
    .groupBy('status')
    .execute();
  const counts = { queued: 0, processing: 0, completed: 0, failed: 0 };
  for (const r of rows) counts[r.status] = Number(r.n);
  return counts;
}

/** Marks the batch completed once; true for the caller that did it (it sends batch.completed). */
export async function markBatchCompleted(db: Conn, id: string, at: Date): Promise<boolean> {
  const r = await db.updateTable('batches').set({ status: 'completed', completed_at: at }).where('id', '=', id).where('status', '=', 'processing').executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function setBatchExports(db: Conn, id: string, exports: Record<string, string>): Promise<void> {
  await db.updateTable('batches').set({ exports: JSON.stringify(exports) }).where('id', '=', id).execute();
}

export async function analysesOfBatch(db: Conn, batchId: string): Promise<AnalysisRow[]> {
  return db.selectFrom('analyses').selectAll().where('batch_id', '=', batchId).orderBy('id').execute();
}
