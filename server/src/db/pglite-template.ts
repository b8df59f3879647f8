/**
 * The embedded database's starting point: a PGlite data directory made once by `npm run pglite-template`
 * (scripts/pglite-template.ts): initdb, the unused template0 and template1 databases dropped, every migration applied,
 * no rows. A fresh data directory (and every in-memory test database) starts from it instead of running initdb and
 * the migrations, which take 5 to 7 s on this kind of machine; loading it takes under 1 s. Migrations newer than the
 * template still run at start, and a template made by another PGlite version is not used (initdb runs as before).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

export const TEMPLATE_DIR = path.resolve(import.meta.dirname, '../../pglite-template');
export const TEMPLATE_ARCHIVE = path.join(TEMPLATE_DIR, 'pgdata.tar.gz');
export const TEMPLATE_MANIFEST = path.join(TEMPLATE_DIR, 'manifest.json');

export interface TemplateManifest {
  /** The @electric-sql/pglite version that made it. */
  pglite: string;
  /** The migrations it holds, in order. */
  migrations: string[];
}

/** The installed PGlite's version. */
export function pgliteVersion(): string {
  const require = createRequire(import.meta.url);
  const main = require.resolve('@electric-sql/pglite');
  // dist/index.cjs -> the package root
  const pkg = JSON.parse(fs.readFileSync(path.join(path.dirname(main), '..', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

export function readTemplateManifest(): TemplateManifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(TEMPLATE_MANIFEST, 'utf8')) as TemplateManifest;
  } catch {
    return undefined;
  }
}

let cached: Blob | null | undefined;

/** The template as a Blob for PGlite's `loadDataDir`, or null when there is none made by the installed PGlite. */
export function pgliteTemplate(): Blob | null {
  if (cached !== undefined) return cached;
  const manifest = readTemplateManifest();
  cached = manifest?.pglite === pgliteVersion() && fs.existsSync(TEMPLATE_ARCHIVE) ? new Blob([fs.readFileSync(TEMPLATE_ARCHIVE)]) : null;
  return cached;
}
