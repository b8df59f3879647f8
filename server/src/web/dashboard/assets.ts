import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Precompressed } from '../../http/compression.ts';

/** The dashboard's own stylesheet, read once (it ships in the repository next to this file). No script: none needed yet. */
const DIR = path.join(import.meta.dirname, 'assets');

const css = fs.readFileSync(path.join(DIR, 'dashboard.css'));
/** `compressed`: sent in br or gzip, each made once (http/compression.ts). */
export const DASHBOARD_ASSETS: Record<string, { type: string; body: Buffer; compressed: Precompressed }> = {
  'dashboard.css': { type: 'text/css; charset=utf-8', body: css, compressed: new Precompressed(css) },
};

/** Changes with the assets' content: pages link `?v=<this>`, so a long cache never serves a stale file. */
export const DASHBOARD_ASSET_VERSION = crypto.createHash('sha256').update(DASHBOARD_ASSETS['dashboard.css'].body).digest('hex').slice(0, 12);
