// Makes server/pglite-template/ (pgdata.tar.gz and manifest.json): the data directory every new embedded database
// starts from (server/src/db/pglite-template.ts says why). Run it after adding a migration or upgrading PGlite; a test
// (test/unit/pglite-template.test.ts) fails while the template is stale.
//
//   npm run pglite-template        (node scripts/pglite-template.ts)
//
// Steps: initdb in memory (PGlite's own); drop template0 and template1 (Cotejo works in the `postgres` database and
// never creates databases; they were two thirds of the archive and of the time to load it); apply every migration;
// CHECKPOINT; dump the data directory as a gzipped tar. No rows are written: the signing secret and the default
// account are made at first start, per installation.
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { migrateToLatest, PGLITE_START_PARAMS } from '../server/src/db/database.ts';
import { migrationProvider } from '../server/src/db/migrations/index.ts';
import { PGliteDialect } from '../server/src/db/pglite-dialect.ts';
import { pgliteVersion, TEMPLATE_ARCHIVE, TEMPLATE_DIR, TEMPLATE_MANIFEST, type TemplateManifest } from '../server/src/db/pglite-template.ts';
import type { DB } from '../server/src/db/schema.ts';

const pglite = await PGlite.create({ startParams: PGLITE_START_PARAMS });
for (const name of ['template0', 'template1']) {
  await pglite.exec(`UPDATE pg_database SET datistemplate = false WHERE datname = '${name}'`);
  await pglite.exec(`DROP DATABASE ${name}`);
}
const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
await migrateToLatest(db);
await pglite.exec('CHECKPOINT');
const archive = Buffer.from(await (await pglite.dumpDataDir('gzip')).arrayBuffer());
await db.destroy();

const manifest: TemplateManifest = { pglite: pgliteVersion(), migrations: Object.keys(await migrationProvider.getMigrations()).sort() };
fs.mkdirSync(TEMPLATE_DIR, { recursive: true });
fs.writeFileSync(TEMPLATE_ARCHIVE, archive);
fs.writeFileSync(TEMPLATE_MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), TEMPLATE_ARCHIVE)} (${(archive.length / 1e6).toFixed(1)} MB) for PGlite ${manifest.pglite}, ${manifest.migrations.length} migrations`);
