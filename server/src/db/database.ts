import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { migrationProvider } from './migrations/index.ts';
import { PGliteDialect, type PGliteDriver } from './pglite-dialect.ts';
import { pgliteTemplate } from './pglite-template.ts';
import type { DB } from './schema.ts';

export type DatabaseKind = 'pglite' | 'postgres';

export interface Database {
  readonly kind: DatabaseKind;
  readonly db: Kysely<DB>;
  /** PostgreSQL schema the database works in, when not the default. */
  readonly schema: string | undefined;
  /** The PGlite driver (for clients that must share its lock), when embedded. */
  readonly pglite: PGliteDriver | undefined;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL connection string; when absent the embedded PGlite is used. */
  databaseUrl?: string | undefined;
  /** PGlite: directory for the data files; omitted means in memory (tests). */
  dataDir?: string | undefined;
  /** PostgreSQL: schema to work in (created if missing); tests use one per app. */
  schema?: string | undefined;
  /** Max pool size for PostgreSQL. */
  poolSize?: number;
  /** Told what a slow step is doing (creating the embedded database), for the start-up output. */
  onProgress?: (message: string) => void;
}

const INT8_OID = 20;

/**
 * PGlite's start parameters with its shared memory sized for one embedded backend: shared buffers of 32 MB instead of
 * initdb's 128 MB (an embedded database of this size works from the page cache as well; the buffers were a third of
 * the idle process's memory), and 5 connections instead of 100 (PGlite runs one backend; every allowed connection
 * reserves shared memory). Set at every start, so data directories made before apply them too.
 */
export const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB', '-c', 'max_connections=5'];

/** Opens PGlite on `dataDir` (or in memory); a new database starts from the template when there is one. */
async function createPGlite(dataDir: string | undefined, onProgress?: (message: string) => void): Promise<PGlite> {
  const fresh = dataDir === undefined || !fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  if (fresh && dataDir !== undefined) onProgress?.(`Creating the embedded database in ${path.dirname(dataDir)} (first start)...`);
  const template = fresh ? pgliteTemplate() : null;
  return PGlite.create({
    ...(dataDir !== undefined ? { dataDir } : {}),
    ...(template ? { loadDataDir: template } : {}),
    startParams: PGLITE_START_PARAMS,
  });
}

export class DataDirLockedError extends Error {
  readonly pid: number;
  readonly dataDir: string;
  constructor(pid: number, dataDir: string) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid} (a running Cotejo server?). ` +
        'Stop it first, or use PostgreSQL through DATABASE_URL, which many processes can share.',
    );
    this.name = 'DataDirLockedError';
    this.pid = pid;
    this.dataDir = dataDir;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** PGlite allows one process per data directory: a pid lock file makes a second opener fail clearly. */
function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, 'cotejo.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      return () => {
        try {
          if (fs.readFileSync(lockPath, 'utf8') === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(fs.readFileSync(lockPath, 'utf8'));
      if (Number.isInteger(pid) && pid !== process.pid && processAlive(pid)) throw new DataDirLockedError(pid, dataDir);
      fs.unlinkSync(lockPath); // stale lock from a process that died
    }
  }
  throw new Error(`Could not lock ${dataDir}`);
}

const PG_CONNECT_TIMEOUT_MS = 5_000;

export async function openDatabase(opts: OpenOptions = {}): Promise<Database> {
  if (opts.databaseUrl) {
    if (opts.schema) {
      const admin = new pg.Client({ connectionString: opts.databaseUrl });
      await admin.connect();
      try {
        await admin.query(`create schema if not exists "${opts.schema.replace(/"/g, '""')}"`);
      } finally {
        await admin.end();
      }
    }
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      // #31: a database that does not answer is a 503 within bounds: a new connection, or a free one from the pool,
      // within 5 s. No time limit per statement (a migration on a large table may take minutes): a statement on a
      // connection that stalls waits for it, and TCP keep-alive finds a connection that died silently.
      connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      ...(opts.schema ? { options: `-c search_path="${opts.schema}"` } : {}),
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
      },
    });
    // An idle connection the server closed (a restart, a network cut) is an 'error' event on the pool; without a
    // listener it would end the process. The pool drops that connection and opens another when one is needed.
    pool.on('error', () => undefined);
    // The same for a connection in use (between the statements of a transaction): its next statement fails instead
    // (a 503), and the pool drops it on release (it is no longer queryable).
    pool.on('connect', (client) => client.on('error', () => undefined));
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { kind: 'postgres', db, schema: opts.schema, pglite: undefined, close: () => db.destroy() };
  }

  let unlock: (() => void) | undefined;
  let pglite: PGlite;
  if (opts.dataDir) {
    unlock = lockDataDir(opts.dataDir);
    try {
      pglite = await createPGlite(path.join(opts.dataDir, 'pgdata'), opts.onProgress);
    } catch (err) {
      unlock();
      throw err;
    }
  } else {
    pglite = await createPGlite(undefined);
  }
  const dialect = new PGliteDialect(pglite);
  const db = new Kysely<DB>({ dialect });
  return {
    kind: 'pglite',
    db,
    schema: undefined,
    pglite: dialect.driver,
    close: async () => {
      await db.destroy();
      unlock?.();
    },
  };
}

/**
 * How many migrations are not recorded as applied (one SELECT; all of them when the migration table does not exist
 * yet). Any other failure (the database cannot be reached, a permission) is thrown as it is, to be reported as such.
 */
async function pendingMigrations(db: Kysely<DB>, schema: string): Promise<number> {
  const all = Object.keys(await migrationProvider.getMigrations());
  try {
    const applied = await sql<{ name: string }>`select name from ${sql.id(schema, 'kysely_migration')}`.execute(db);
    const names = new Set(applied.rows.map((r) => r.name));
    return all.filter((name) => !names.has(name)).length;
  } catch (err) {
    if ((err as { code?: unknown }).code === '42P01') return all.length; // undefined_table: a new database
    throw err;
  }
}

/**
 * Brings the schema to the latest migration; safe to run from several processes at once. A database already at the
 * latest is recognised with one SELECT: Kysely's migrator takes its lock with DDL at every start, which cost 0.2 s and
 * 60 MB of the embedded database's memory for nothing.
 */
export async function migrateToLatest(db: Kysely<DB>, schema?: string, onProgress?: (message: string) => void): Promise<void> {
  const pending = await pendingMigrations(db, schema ?? 'public');
  if (pending === 0) return;
  onProgress?.(`Applying ${pending} database migration${pending === 1 ? '' : 's'}...`);
  // Kysely looks for its migration tables in every schema unless told which one.
  const migrator = new Migrator({ db, provider: migrationProvider, migrationTableSchema: schema ?? 'public' });
  let { error, results } = await migrator.migrateToLatest();
  // Kysely's check for its own tables lists the tables of every schema: a schema (3F000), table (42P01) or column
  // (42703, from pg_get_serial_sequence) that another process drops meanwhile, as test suites do on a shared
  // PostgreSQL, fails that listing, not the migration: try again (a few times at most). A migration that really fails
  // rolls back in its transaction and fails again the same way.
  const RACES = new Set(['3F000', '42P01', '42703']);
  for (let attempt = 0; attempt < 3 && error && RACES.has(String((error as { code?: unknown }).code)); attempt++) {
    ({ error, results } = await migrator.migrateToLatest());
  }
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`, { cause: error });
  }
}

/** Drops a PostgreSQL schema (tests). */
export async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`drop schema if exists "${schema.replace(/"/g, '""')}" cascade`);
  } finally {
    await admin.end();
  }
}

export { sql };
