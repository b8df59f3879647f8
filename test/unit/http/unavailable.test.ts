/**
 * #31: which thrown errors mean "a dependency is away for now" and become 503 `service_unavailable` with Retry-After
 * (never a 500), with real errors: a PostgreSQL client refused, a closed PGlite, a disk-full write, a store refusing.
 */
import fs from 'node:fs';
import net from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../../server/src/db/unavailable.ts';
import { toErrorResponse } from '../../../server/src/http/errors.ts';
import { BlobStoreUnavailable, unavailableDependency } from '../../../server/src/storage/unavailable.ts';

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('dependency outages as errors', () => {
  it('PostgreSQL refusing connections is the database away: 503 service_unavailable with Retry-After', async () => {
    const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${await closedPort()}/test`, connectionTimeoutMillis: 2_000 });
    const err = await pool.query('select 1').catch((e: unknown) => e);
    await pool.end();
    expect(unavailableDependency(err)).toBe('database');
    const res = toErrorResponse(err, 'req_1');
    expect(res.status).toBe(503);
    expect(res.headers['Retry-After']).toBe('5');
    expect(res.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable', request_id: 'req_1' });
    expect(res.body.error.message).toMatch(/base de datos/);
  });

  it('a server that accepts and then closes the connection (a restart) is the database away', async () => {
    const server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${(server.address() as net.AddressInfo).port}/test` });
    const err = await client.connect().catch((e: unknown) => e);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it('a closed PGlite is the database away; a SQL error or a constraint is not', async () => {
    const db = await PGlite.create();
    await db.exec('create table t (id int primary key); insert into t values (1)');
    const duplicate = await db.query('insert into t values (1)').catch((e: unknown) => e);
    const syntax = await db.query('selec 1').catch((e: unknown) => e);
    await db.close();
    const closed = await db.query('select 1').catch((e: unknown) => e);
    expect(isDatabaseUnavailable(closed)).toBe(true);
    expect(isDatabaseUnavailable(duplicate)).toBe(false);
    expect(isDatabaseUnavailable(syntax)).toBe(false);
    expect(toErrorResponse(syntax, 'req_2').status).toBe(500);
    expect(toErrorResponse(new Error('a bug'), 'req_3').body.error.code).toBe('internal_error');
  });

  it('a full disk (ENOSPC) is the database away under PGlite; a store failure wrapping it is the blob store', async () => {
    // /dev/full answers every write with the real ENOSPC a full disk gives.
    const err = await fs.promises.writeFile('/dev/full', new Uint8Array(1)).then(() => null, (e: unknown) => e);
    expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    expect(unavailableDependency(err)).toBe('database');
    expect(unavailableDependency(new BlobStoreUnavailable('local put of "k" failed', { cause: err }))).toBe('blob_store');
    expect(toErrorResponse(new BlobStoreUnavailable('S3 put failed'), 'req_4').body.error.message).toMatch(/almacenamiento/);
  });
});
