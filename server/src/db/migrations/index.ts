import type { Migration, MigrationProvider } from 'kysely/migration';
import * as m0001 from './0001_spine.ts';
import * as m0002 from './0002_analyses.ts';

/** Every migration, in order. Names are stable: never rename one that has shipped. */
const MIGRATIONS: Record<string, Migration> = {
  '0001_spine': m0001,
  '0002_analyses': m0002,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return MIGRATIONS;
  },
};
