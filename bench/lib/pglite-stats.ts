// Loaded into a bench's Cotejo server with `node --import ./bench/lib/pglite-stats.ts server/src/main.ts` (bench
// only, never in production): the embedded database belongs to the server process alone, so a bench cannot open it
// beside the server to count rows. This captures the server's PGlite driver when Kysely initialises it and answers
// `GET /stats` on 127.0.0.1:$SOAK_STATS_PORT with the row count and total size of every table, the database size and
// the work still pending, read under the driver's own lock (never inside one of the server's transactions).
import http from 'node:http';
import { PGliteDriver } from '../../server/src/db/pglite-dialect.ts';

const port = Number(process.env.SOAK_STATS_PORT);
let driver: PGliteDriver | undefined;

const init = PGliteDriver.prototype.init;
PGliteDriver.prototype.init = async function (this: PGliteDriver) {
  driver = this;
  return init.call(this);
};

async function stats(): Promise<unknown> {
  if (!driver) throw new Error('the database is not open yet');
  return driver.exclusive(async (pg) => {
    const names = await pg.query<{ t: string; bytes: string | number }>(
      `select c.relname as t, pg_total_relation_size(c.oid) as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where c.relkind = 'r' and n.nspname = 'public' order by c.relname`,
    );
    const tables: Record<string, { rows: number; bytes: number }> = {};
    for (const { t, bytes } of names.rows) {
      const r = await pg.query<{ n: string | number }>(`select count(*) as n from "${t.replace(/"/g, '""')}"`);
      tables[t] = { rows: Number(r.rows[0]!.n), bytes: Number(bytes) };
    }
    const size = await pg.query<{ b: string | number }>('select pg_database_size(current_database()) as b');
    const jobs = await pg.query<{ n: string | number }>(`select count(*) as n from jobs where status in ('pending', 'running')`);
    const deliveries = await pg.query<{ n: string | number }>(`select count(*) as n from webhook_deliveries where status = 'pending'`);
    return { dbBytes: Number(size.rows[0]!.b), tables, pending: { jobs: Number(jobs.rows[0]!.n), deliveries: Number(deliveries.rows[0]!.n) } };
  });
}

if (port > 0) {
  const server = http.createServer((req, res) => {
    if (req.url !== '/stats') {
      res.writeHead(404).end();
      return;
    }
    stats().then(
      (s) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(s)),
      (err: unknown) => res.writeHead(503, { 'Content-Type': 'text/plain' }).end(String(err)),
    );
  });
  server.listen(port, '127.0.0.1');
  // The server's own shutdown ends the process; this listener must not keep it alive.
  server.unref();
}
