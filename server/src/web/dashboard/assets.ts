import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The dashboard's own stylesheet, read once (it ships in the repository next to this file). No script: none needed yet. */
const DIR = path.join(import.meta.dirname, 'assets');

export const DASHBOARD_ASSETS: Record<string, { type: string; body: Buffer }> = {
  'dashboard.css': { type: 'text/css; charset=utf-8', body: fs.readFileSync(path.join(DIR, 'dashboard.css')) },
};

/** Changes with the assets' content: pages link `?v=<this>`, so a long cache never serves a stale file. */
export const DASHBOARD_ASSET_VERSION = crypto.createHash('sha256').update(DASHBOARD_ASSETS['dashboard.css'].body).digest('hex').slice(0, 12);
