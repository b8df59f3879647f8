import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The page's stylesheet and script, read once (they ship in the repository next to this file). */
const DIR = path.join(import.meta.dirname, 'assets');

export const ASSETS: Record<string, { type: string; body: Buffer }> = {
  'page.css': { type: 'text/css; charset=utf-8', body: fs.readFileSync(path.join(DIR, 'page.css')) },
  'page.js': { type: 'text/javascript; charset=utf-8', body: fs.readFileSync(path.join(DIR, 'page.js')) },
};

/** Changes with the assets' content: the pages link `?v=<this>`, so a long cache never serves a stale file. */
export const ASSET_VERSION = crypto
  .createHash('sha256')
  .update(ASSETS['page.css'].body)
  .update(ASSETS['page.js'].body)
  .digest('hex')
  .slice(0, 12);
