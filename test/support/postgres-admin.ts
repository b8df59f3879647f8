// One statement on a PostgreSQL server through a connection of its own (create or drop a test's scratch database).
import pg from 'pg';

export async function adminQuery(connectionString: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}
