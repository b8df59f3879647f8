import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, migrateToLatest } from '../../server/src/db/database.ts';
import { migrationProvider } from '../../server/src/db/migrations/index.ts';
import { pgliteTemplate, pgliteVersion, readTemplateManifest } from '../../server/src/db/pglite-template.ts';
import { sql } from 'kysely';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('the embedded database template (server/pglite-template)', () => {
  it('is current: made by the installed PGlite with every migration (else: npm run pglite-template)', async () => {
    const manifest = readTemplateManifest();
    expect(manifest, 'server/pglite-template/manifest.json is missing: run npm run pglite-template').toBeDefined();
    expect(manifest!.pglite, 'the template was made by another PGlite version: run npm run pglite-template').toBe(pgliteVersion());
    expect(manifest!.migrations, 'a migration is missing from the template: run npm run pglite-template').toEqual(Object.keys(await migrationProvider.getMigrations()).sort());
    expect(pgliteTemplate()).not.toBeNull();
  });

  it('a new data directory starts from it: the schema is there, no rows, and the migrator has nothing to do', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-template-'));
    dirs.push(dir);
    const database = await openDatabase({ dataDir: dir });
    try {
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db);
      expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(await migrationProvider.getMigrations()).sort());
      for (const table of ['accounts', 'api_keys', 'analyses', 'jobs', 'events', 'server_settings'] as const) {
        const n = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(database.db);
        expect(n.rows[0].n, table).toBe(0);
      }
      await migrateToLatest(database.db);
      // The template's own databases: only `postgres` (template0 and template1 were dropped when it was made).
      const dbs = await sql<{ datname: string }>`select datname from pg_database`.execute(database.db);
      expect(dbs.rows.map((r) => r.datname)).toEqual(['postgres']);
      const buffers = await sql<{ setting: string }>`select setting from pg_settings where name = 'shared_buffers'`.execute(database.db);
      expect(Number(buffers.rows[0].setting) * 8).toBe(32 * 1024);
    } finally {
      await database.close();
    }
    // And it opens again as an existing directory (not loaded twice).
    const again = await openDatabase({ dataDir: dir });
    await again.close();
  });
});
