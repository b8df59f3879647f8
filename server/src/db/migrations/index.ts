import type { Migration, MigrationProvider } from 'kysely/migration';
import * as m0001 from './0001_spine.ts';
import * as m0002 from './0002_analyses.ts';
import * as m0004 from './0004_batches.ts';
import * as m0003 from './0003_webhook_deliveries.ts';
import * as m0005 from './0005_charging.ts';
import * as m0006 from './0006_ephemeral_deliveries.ts';
import * as m0007 from './0007_batch_downloads.ts';
import * as m0008 from './0008_event_subjects.ts';
import * as m0009 from './0009_live_limits.ts';
import * as m0010 from './0010_templates.ts';
import * as m0011 from './0011_reviews.ts';
import * as m0012 from './0012_dossiers.ts';
import * as m0013 from './0013_verification_links.ts';
import * as m0014 from './0014_shared_rate_limits.ts';
import * as m0015 from './0015_dashboard.ts';
import * as m0016 from './0016_webhook_attempts.ts';
import * as m0017 from './0017_trusted_lists.ts';
import * as m0018 from './0018_trusted_list_pivots.ts';
import * as m0019 from './0019_mask_fields.ts';
import * as m0020 from './0020_blob_spool.ts';
import * as m0021 from './0021_emails.ts';
import * as m0022 from './0022_usage_rollup.ts';
import * as m0023 from './0023_blob_spool_claim.ts';

/** Every migration, in order. Names are stable: never rename one that has shipped. */
const MIGRATIONS: Record<string, Migration> = {
  '0001_spine': m0001,
  '0002_analyses': m0002,
  '0004_batches': m0004,
  '0003_webhook_deliveries': m0003,
  '0005_charging': m0005,
  '0006_ephemeral_deliveries': m0006,
  '0007_batch_downloads': m0007,
  '0008_event_subjects': m0008,
  '0009_live_limits': m0009,
  '0010_templates': m0010,
  '0011_reviews': m0011,
  '0012_dossiers': m0012,
  '0013_verification_links': m0013,
  '0014_shared_rate_limits': m0014,
  '0015_dashboard': m0015,
  '0016_webhook_attempts': m0016,
  '0017_trusted_lists': m0017,
  '0018_trusted_list_pivots': m0018,
  '0019_mask_fields': m0019,
  '0020_blob_spool': m0020,
  '0021_emails': m0021,
  '0022_usage_rollup': m0022,
  '0023_blob_spool_claim': m0023,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return MIGRATIONS;
  },
};
