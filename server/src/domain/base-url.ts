// The public base URL the server serves (COTEJO_BASE_URL, or http://localhost:<the port it listens on>), recorded in
// the database at every start so that the operator's CLI builds links (`members invite`) that reach the server
// that will open them, whatever the CLI's own environment says (docs/decisions.md, "Base URL of the CLI").
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { getSetting, putSetting } from '../db/settings.ts';

const SETTING = 'public_base_url';

/** Called by the server once it listens (the port is known then). Several processes on one database: the last start's. */
export async function recordBaseUrl(db: Kysely<DB>, baseUrl: string): Promise<void> {
  await putSetting(db, SETTING, baseUrl);
}

export interface ServedBaseUrl {
  url: string;
  /** `server`: recorded by the last start; `environment`: COTEJO_BASE_URL here (no start recorded one); `default`: neither. */
  source: 'server' | 'environment' | 'default';
  /** What to tell the operator, when the URL may not be what they expect. */
  note?: string;
}

/** The base URL of links the CLI prints: the server's, as it recorded it; else this environment's. */
export async function servedBaseUrl(db: Kysely<DB>, config: Pick<Config, 'baseUrl' | 'baseUrlConfigured'>): Promise<ServedBaseUrl> {
  const recorded = await getSetting(db, SETTING);
  if (recorded) {
    if (config.baseUrlConfigured && config.baseUrl !== recorded) {
      return { url: recorded, source: 'server', note: `COTEJO_BASE_URL here is ${config.baseUrl}, but the server serves ${recorded} (as it recorded at its last start): the URL uses the server's.` };
    }
    return { url: recorded, source: 'server' };
  }
  if (config.baseUrlConfigured) return { url: config.baseUrl, source: 'environment' };
  return {
    url: config.baseUrl,
    source: 'default',
    note: `No server has started on this database yet: the URL assumes ${config.baseUrl}. Set COTEJO_BASE_URL to the server's public URL if it differs.`,
  };
}
