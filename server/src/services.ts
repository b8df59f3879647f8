import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import { migrateToLatest, openDatabase, type Database, type OpenOptions } from './db/database.ts';
import type { Services } from './http/context.ts';
import type { Logger } from 'pino';

/** Opens the database the configuration names (PGlite under the data dir, or PostgreSQL) and migrates it. */
export async function openServices(
  config: Config,
  clock: Clock,
  logger: Logger,
  dbOptions: Partial<OpenOptions> = {},
): Promise<Services> {
  const database: Database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : config.dataDir,
    ...dbOptions,
  });
  try {
    await migrateToLatest(database.db, database.schema);
  } catch (err) {
    await database.close();
    throw err;
  }
  return { database, db: database.db, clock, config, logger };
}
