import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, migrateToLatest, openDatabase, type Database } from '../../server/src/db/database.ts';
import { Mutex } from '../../server/src/db/mutex.ts';
import { DATABASES } from '../support/app.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PGlite without a lock (the hazard the dialect removes)', () => {
  it('lets a statement of another caller land inside a foreign transaction and vanish with its rollback', async () => {
    const pg = await PGlite.create();
    await pg.exec('create table t (v text)');
    await pg.query('begin');
    await pg.query("insert into t values ('inside')");
    await pg.query("insert into t values ('other caller')"); // a concurrent request on the single connection
    await pg.query('rollback');
    const { rows } = await pg.query<{ n: number }>('select count(*)::int as n from t');
    expect(rows[0].n).toBe(0); // the other caller's row was lost
    await pg.close();
  });
});

describe('Mutex', () => {
  it('serves holders one at a time in arrival order', async () => {
    const m = new Mutex();
    const order: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((name, i) =>
        m.run(async () => {
          order.push(`${name}+`);
          await sleep(5 * (3 - i));
          order.push(`${name}-`);
        }),
      ),
    );
    expect(order).toEqual(['a+', 'a-', 'b+', 'b-', 'c+', 'c-']);
  });
});

describe.each(DATABASES)('database on %s', (kind) => {
  let database: Database;
  const schema = kind === 'postgres' ? `t_${ulid().toLowerCase()}` : undefined;
  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: kind === 'postgres' ? process.env.DATABASE_URL : undefined, schema });
    await migrateToLatest(database.db, schema);
    await sql`create table probe (v text not null)`.execute(database.db);
  });
  afterAll(async () => {
    await database?.close();
    if (schema) await dropSchema(process.env.DATABASE_URL!, schema);
  });

  it('migrates idempotently (a second run is a no-op)', async () => {
    await migrateToLatest(database.db, schema);
    const tables = await sql<{ table_name: string }>`
      select table_name from information_schema.tables where table_schema = current_schema() order by table_name`.execute(database.db);
    expect(tables.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['accounts', 'api_keys', 'credit_ledger', 'idempotency_keys', 'server_settings', 'webhook_endpoints']),
    );
  });

  it('keeps statements of other callers out of a transaction that rolls back', async () => {
    const failing = database.db.transaction().execute(async (trx) => {
      await sql`insert into probe values ('rolled back')`.execute(trx);
      await sleep(50);
      throw new Error('boom');
    });
    await sleep(5); // the transaction is open now
    const concurrent = Promise.all(
      Array.from({ length: 5 }, (_, i) => sql`insert into probe values (${`kept ${i}`})`.execute(database.db)),
    );
    await expect(failing).rejects.toThrow('boom');
    await concurrent;
    const rows = await sql<{ v: string }>`select v from probe order by v`.execute(database.db);
    expect(rows.rows.map((r) => r.v)).toEqual(['kept 0', 'kept 1', 'kept 2', 'kept 3', 'kept 4']);
  });

  it('commits concurrent transactions whole', async () => {
    await sql`delete from probe`.execute(database.db);
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        database.db.transaction().execute(async (trx) => {
          await sql`insert into probe values (${`a${i}`})`.execute(trx);
          await sleep(2);
          await sql`insert into probe values (${`b${i}`})`.execute(trx);
        }),
      ),
    );
    const n = await sql<{ n: number }>`select count(*)::int as n from probe`.execute(database.db);
    expect(n.rows[0].n).toBe(16);
  });

  it('reads bigint columns as numbers on both databases', async () => {
    const r = await sql<{ v: number }>`select 9007199254740::int8 as v`.execute(database.db);
    expect(r.rows[0].v).toBe(9007199254740);
  });
});
