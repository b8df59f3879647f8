import path from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  baseUrl: string;
  allowPrivateUrls: boolean;
  logLevel: LogLevel;
  /** Secret used to sign file and export URLs; generated and stored in the database when not given. */
  signingSecret: string | undefined;
  /** Directory of PEM/DER root certificates trusted for PDF signatures. */
  trustDir: string;
  /** Local readers of live mode (docs/live-mode.md); none left means live keys get 503 live_mode_unavailable. */
  liveReaders: ReadonlySet<LocalReaderName>;
  /** tesseract languages of page OCR. */
  ocrLanguages: OcrLanguage[];
  /** Live readings run at once in this process; more wait their turn (memory and CPU are bounded by it). */
  readingConcurrency: number;
  /** Requests per second one client address may make to the public routes (the catalogue, /openapi.json...). */
  publicRateLimitPerSecond: number;
}

export const LOCAL_READERS = ['mrz', 'pdf417', 'text', 'ocr'] as const;
export type LocalReaderName = (typeof LOCAL_READERS)[number];
export const OCR_LANGUAGES = ['eng', 'spa', 'fra', 'por'] as const;
export type OcrLanguage = (typeof OCR_LANGUAGES)[number];

/** A comma-separated list of allowed names; `none` is the empty list. */
function parseList<T extends string>(name: string, raw: string | undefined, allowed: readonly T[], problems: string[]): T[] {
  if (raw === undefined || raw.trim() === '') return [...allowed];
  if (raw.trim().toLowerCase() === 'none') return [];
  const out: T[] = [];
  for (const part of raw.split(',').map((x) => x.trim().toLowerCase()).filter(Boolean)) {
    if ((allowed as readonly string[]).includes(part)) {
      if (!out.includes(part as T)) out.push(part as T);
    } else problems.push(`${name} may list ${allowed.join(', ')} or be "none" (got "${part}")`);
  }
  return out;
}

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

function parseBool(name: string, raw: string | undefined, problems: string[]): boolean {
  if (raw === undefined || raw === '') return false;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  problems.push(`${name} must be true or false (got "${raw}")`);
  return false;
}

/** Reads and validates the environment once, at start; every problem is reported together. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  let port = 8080;
  if (env.PORT !== undefined && env.PORT !== '') {
    port = Number(env.PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      problems.push(`PORT must be an integer from 0 to 65535 (got "${env.PORT}")`);
    }
  }

  const host = env.HOST && env.HOST !== '' ? env.HOST : '0.0.0.0';
  const dataDir = path.resolve(env.COTEJO_DATA_DIR && env.COTEJO_DATA_DIR !== '' ? env.COTEJO_DATA_DIR : '.cotejo');

  let databaseUrl: string | undefined;
  if (env.DATABASE_URL !== undefined && env.DATABASE_URL !== '') {
    try {
      const u = new URL(env.DATABASE_URL);
      if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
        problems.push(`DATABASE_URL must be a postgres:// or postgresql:// URL (got protocol "${u.protocol}")`);
      }
      databaseUrl = env.DATABASE_URL;
    } catch {
      problems.push('DATABASE_URL is not a valid URL');
    }
  }

  let baseUrl = `http://localhost:${port}`;
  if (env.COTEJO_BASE_URL !== undefined && env.COTEJO_BASE_URL !== '') {
    try {
      const u = new URL(env.COTEJO_BASE_URL);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
      baseUrl = u.toString().replace(/\/+$/, '');
    } catch {
      problems.push(`COTEJO_BASE_URL must be an http(s) URL (got "${env.COTEJO_BASE_URL}")`);
    }
  }

  const allowPrivateUrls = parseBool('COTEJO_ALLOW_PRIVATE_URLS', env.COTEJO_ALLOW_PRIVATE_URLS, problems);

  let logLevel: LogLevel = 'info';
  if (env.LOG_LEVEL !== undefined && env.LOG_LEVEL !== '') {
    const lv = env.LOG_LEVEL.toLowerCase() as LogLevel;
    if (LOG_LEVELS.includes(lv)) logLevel = lv;
    else problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${env.LOG_LEVEL}")`);
  }

  let signingSecret: string | undefined;
  if (env.COTEJO_SIGNING_SECRET !== undefined && env.COTEJO_SIGNING_SECRET !== '') {
    if (env.COTEJO_SIGNING_SECRET.length < 32) problems.push('COTEJO_SIGNING_SECRET must be at least 32 characters');
    signingSecret = env.COTEJO_SIGNING_SECRET;
  }

  const trustDir = path.resolve(env.COTEJO_TRUST_DIR && env.COTEJO_TRUST_DIR !== '' ? env.COTEJO_TRUST_DIR : path.join(import.meta.dirname, '../trust'));

  const liveReaders = new Set(parseList('COTEJO_LIVE_READERS', env.COTEJO_LIVE_READERS, LOCAL_READERS, problems));
  const ocrLanguages = parseList('COTEJO_OCR_LANGUAGES', env.COTEJO_OCR_LANGUAGES, OCR_LANGUAGES, problems);
  if (liveReaders.has('ocr') && ocrLanguages.length === 0) problems.push('COTEJO_OCR_LANGUAGES cannot be "none" while COTEJO_LIVE_READERS includes ocr');
  let readingConcurrency = 2;
  if (env.COTEJO_READING_CONCURRENCY !== undefined && env.COTEJO_READING_CONCURRENCY !== '') {
    readingConcurrency = Number(env.COTEJO_READING_CONCURRENCY);
    if (!Number.isInteger(readingConcurrency) || readingConcurrency < 1 || readingConcurrency > 64) {
      problems.push(`COTEJO_READING_CONCURRENCY must be an integer from 1 to 64 (got "${env.COTEJO_READING_CONCURRENCY}")`);
    }
  }

  let publicRateLimitPerSecond = 1000;
  if (env.COTEJO_PUBLIC_RATE_LIMIT !== undefined && env.COTEJO_PUBLIC_RATE_LIMIT !== '') {
    publicRateLimitPerSecond = Number(env.COTEJO_PUBLIC_RATE_LIMIT);
    if (!Number.isInteger(publicRateLimitPerSecond) || publicRateLimitPerSecond < 1 || publicRateLimitPerSecond > 1_000_000) {
      problems.push(`COTEJO_PUBLIC_RATE_LIMIT must be an integer from 1 to 1000000 (got "${env.COTEJO_PUBLIC_RATE_LIMIT}")`);
    }
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return { port, host, dataDir, databaseUrl, baseUrl, allowPrivateUrls, logLevel, signingSecret, trustDir, liveReaders, ocrLanguages, readingConcurrency, publicRateLimitPerSecond };
}
