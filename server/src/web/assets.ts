import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Precompressed } from '../http/compression.ts';

/** The page's stylesheet and script, read once (they ship in the repository next to this file). */
const DIR = path.join(import.meta.dirname, 'assets');

const asset = (type: string, file: string) => {
  const body = fs.readFileSync(path.join(DIR, file));
  // Sent in br or gzip, each made once (http/compression.ts).
  return { type, body, compressed: new Precompressed(body) };
};

export const ASSETS: Record<string, { type: string; body: Buffer; compressed: Precompressed }> = {
  'page.css': asset('text/css; charset=utf-8', 'page.css'),
  'page.js': asset('text/javascript; charset=utf-8', 'page.js'),
};

/** Changes with the assets' content: the pages link `?v=<this>`, so a long cache never serves a stale file. */
export const ASSET_VERSION = crypto
  .createHash('sha256')
  .update(ASSETS['page.css'].body)
  .update(ASSETS['page.js'].body)
  .digest('hex')
  .slice(0, 12);
