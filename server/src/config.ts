import { statSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { ACCOUNT_NAME_MAX, accountName, DEFAULT_ACCOUNT_NAME } from './domain/account-name.ts';
import { parseMailbox, type Mailbox } from './mail/address.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  baseUrl: string;
  /** True when COTEJO_BASE_URL set `baseUrl`; false when it is the default, http://localhost:PORT. */
  baseUrlConfigured: boolean;
  /** COTEJO_ACCOUNT_NAME: the name of the account the first start makes on an empty database. */
  firstAccountName: string;
  allowPrivateUrls: boolean;
  logLevel: LogLevel;
  /** Secret used to sign file and export URLs; generated and stored in the database when not given. */
  signingSecret: string | undefined;
  /** Directory of PEM/DER root certificates trusted for PDF signatures. */
  trustDir: string;
  /** COTEJO_TRUSTED_LISTS_DIR: lotl.xml, lotl-signers/*.pem and <territory>.xml (docs/pdf-signatures.md, "Trusted lists"). */
  trustedListsDir: string | undefined;
  /** COTEJO_TRUSTED_LISTS_URL: where the EU List of Trusted Lists is fetched from. */
  trustedListsUrl: string;
  /** COTEJO_TRUSTED_LISTS_TERRITORIES: the national lists fetched and used (`EL` for Greece); null: all. */
  trustedListsTerritories: ReadonlySet<string> | null;
  /** COTEJO_TRUSTED_LISTS_REFRESH: how often the lists are fetched again, in ms; null: never (`off`). */
  trustedListsRefreshMs: number | null;
  /**
   * COTEJO_REVOCATION_CHECK (docs/pdf-signatures.md, "Revocation"): `online` (default: evidence embedded in the PDF,
   * then OCSP/CRL over the network), `embedded` (no network: air-gapped sites) or `off` (not checked).
   */
  revocationCheck: 'online' | 'embedded' | 'off';
  /** Local readers of live mode (docs/live-mode.md); none left means live keys get 503 live_mode_unavailable. */
  liveReaders: ReadonlySet<LocalReaderName>;
  /** tesseract languages of page OCR. */
  ocrLanguages: OcrLanguage[];
  /**
   * COTEJO_OCR_ENGINE (docs/live-mode.md, "Page OCR engines"): `auto` (default: PP-OCR on upright photos, tesseract
   * on landscape ones and on scanned PDF pages), `paddle` (PP-OCRv4 through ONNX Runtime everywhere) or `tesseract`.
   */
  ocrEngine: OcrEngineSetting;
  /** Live readings run at once in this process; more wait their turn (memory and CPU are bounded by it). */
  readingConcurrency: number;
  /** Requests per second one client address may make to the public routes (the catalogue, /openapi.json...). */
  publicRateLimitPerSecond: number;
  /**
   * Where request rate limits are counted (COTEJO_RATE_LIMIT_STORE): `database` (shared by every process on one
   * PostgreSQL) or `memory` (this process); null: the database on PostgreSQL, memory on the embedded PGlite.
   */
  rateLimitStore: 'memory' | 'database' | null;
  /**
   * Express's `trust proxy` (COTEJO_TRUST_PROXY): whose X-Forwarded-For is believed for the client's address (per-address
   * rate limits, the consent IP of the hosted page). false: nobody's (the connection's address is the client's).
   */
  trustProxy: TrustProxy;
  /**
   * Bearer token that GET /metrics requires (COTEJO_METRICS_TOKEN); null: /metrics answers loopback clients only
   * (docs/deployment.md ("Metrics")). Never logged or echoed.
   */
  metricsToken: string | null;
  /** Mistral (live mode's EU AI provider), when MISTRAL_API_KEY is set; null: live mode runs on the local readers alone. */
  mistral: MistralConfig | null;
  /** Where emails go (docs/emails.md): an SMTP server (COTEJO_SMTP_URL), or null for the local outbox under the data dir. */
  smtp: SmtpConfig | null;
  /** The From of every email (COTEJO_MAIL_FROM). */
  mailFrom: Mailbox;
  /** Originals and exports in an S3-compatible bucket (COTEJO_S3_BUCKET), or null for the data dir (docs/deployment.md). */
  s3: S3Config | null;
  /** Run the background worker (jobs, deliveries, emails, sweeps) in this process; false: HTTP only. */
  worker: boolean;
  /** COTEJO_RETENTION_*: what the durable retention sweep deletes, and when (docs/deployment.md, "Retention"). */
  retention: RetentionConfig;
}

/** Each null: kept for ever (`off`). */
export interface RetentionConfig {
  /** COTEJO_RETENTION_JOBS: finished jobs (done, or failed for good) are deleted this long after they ended. */
  finishedJobsMs: number | null;
  /** COTEJO_RETENTION_EVENTS: events (the outbox) this long after they were written, once no delivery of them waits. */
  eventsMs: number | null;
  /** COTEJO_RETENTION_DELIVERIES: final webhook deliveries (and their attempts) kept per endpoint, newest first. */
  deliveriesPerEndpoint: number | null;
  /** COTEJO_RETENTION_EXPORTS: exports (file and row) this long after their URLs expired; orphan export files too. */
  expiredExportsMs: number | null;
  /** COTEJO_RETENTION_EMAILS: emails of the shared outbox this long after they were sent or failed for good (never queued ones). */
  emailsMs: number | null;
  /** COTEJO_RETENTION_USAGE_DETAIL: per-analysis usage rows are folded into per-day rows this long after they were written. */
  usageDetailMs: number | null;
}

export const RETENTION_DEFAULTS: RetentionConfig = {
  finishedJobsMs: 7 * 24 * 3_600_000,
  eventsMs: 30 * 24 * 3_600_000,
  deliveriesPerEndpoint: 100,
  expiredExportsMs: 24 * 3_600_000,
  emailsMs: 30 * 24 * 3_600_000,
  usageDetailMs: 2 * 24 * 3_600_000,
};

/** COTEJO_S3_*: an S3-compatible object store. The secret key is kept for the client only: never in a message or a log. */
export interface S3Config {
  bucket: string;
  /** A non-AWS store's URL (MinIO, Scaleway, OVHcloud...); undefined: AWS S3 itself. */
  endpoint: string | undefined;
  region: string;
  /** Put before every key: '' or a path ending in '/' (one bucket shared by several deployments). */
  prefix: string;
  /** `http://host/bucket/key` instead of `http://bucket.host/key` (MinIO, s3rver, most self-hosted stores). */
  forcePathStyle: boolean;
  /** Explicit keys (COTEJO_S3_ACCESS_KEY_ID / _SECRET_ACCESS_KEY), or null for the SDK's default chain (AWS_ACCESS_KEY_ID...). */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
  /** Per attempt: the longest an S3 call may stay silent. */
  timeoutMs: number;
  /** Tries of one call, the first included (the SDK backs off between them). */
  maxAttempts: number;
}

export const S3_DEFAULTS = { region: 'us-east-1', timeoutMs: 10_000, maxAttempts: 3 } as const;

/** `false`, `true` (every hop), a number of hops, or the addresses and CIDR ranges of the proxies (Express's names too). */
export type TrustProxy = boolean | number | string[];

/** The names Express (proxy-addr) accepts for address ranges in `trust proxy`. */
const TRUST_PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** COTEJO_TRUST_PROXY: `false` (default), `true`, a hop count from 1 to 32, or a comma-separated list of addresses/CIDRs. */
function parseTrustProxy(raw: string | undefined, problems: string[]): TrustProxy {
  const text = raw?.trim() ?? '';
  if (text === '' || text.toLowerCase() === 'false') return false;
  if (text.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops >= 1 && hops <= 32) return hops;
    problems.push(`COTEJO_TRUST_PROXY as a number of proxies must be from 1 to 32 (got "${text}"; use false for none)`);
    return false;
  }
  const entries = text.split(',').map((x) => x.trim()).filter(Boolean);
  const bad = entries.filter((entry) => {
    if (TRUST_PROXY_NAMES.includes(entry.toLowerCase())) return false;
    const [addr, prefix, ...rest] = entry.split('/');
    const family = isIP(addr);
    if (family === 0 || rest.length > 0) return true;
    if (prefix === undefined) return false;
    return !/^\d{1,3}$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128);
  });
  if (bad.length > 0 || entries.length === 0) {
    problems.push(
      `COTEJO_TRUST_PROXY must be false, true, a number of proxies (1 to 32), or a comma-separated list of proxy addresses and CIDR ranges (e.g. 10.0.0.0/8,loopback)${bad.length > 0 ? `; not understood: ${bad.map((b) => `"${b.slice(0, 60)}"`).join(', ')}` : ''}`,
    );
    return false;
  }
  return entries.map((e) => (TRUST_PROXY_NAMES.includes(e.toLowerCase()) ? e.toLowerCase() : e));
}

/**
 * COTEJO_METRICS_TOKEN: what a Prometheus server sends as `Authorization: Bearer <token>` to scrape /metrics from
 * anywhere. At least 16 characters, no spaces (it travels in a header); problems never quote it.
 */
function loadMetricsToken(raw: string | undefined, problems: string[]): string | null {
  if (raw === undefined || raw === '') return null;
  if (raw.length < 16) problems.push(`COTEJO_METRICS_TOKEN must be at least 16 characters (got ${raw.length}; e.g. openssl rand -hex 32)`);
  else if (!/^[\x21-\x7e]+$/.test(raw)) problems.push('COTEJO_METRICS_TOKEN may hold printable ASCII characters only, without spaces');
  return raw;
}

/** COTEJO_SMTP_URL, parsed. The password is kept for the transport only: never in a message, an error or a log. */
export interface SmtpConfig {
  /** `smtps://`: TLS from the first byte (port 465 by default). `smtp://`: STARTTLS when the server offers it (587). */
  secure: boolean;
  host: string;
  port: number;
  user: string | null;
  password: string | null;
  /** `?require_tls=true` on an smtp:// URL: refuse to send (and to log in) unless the server upgrades to TLS. */
  requireTls: boolean;
  /** The URL without its password, for logs and errors: `smtp://user@host:587`. */
  display: string;
}

export const DEFAULT_MAIL_FROM: Mailbox = { name: 'Cotejo', address: 'no-reply@localhost' };

export interface MistralConfig {
  apiKey: string;
  /** A compatible endpoint instead of Mistral's EU server (`https://api.eu.mistral.ai`). */
  baseUrl: string | undefined;
  /** OCR model (`ocr+llm` mode). A dated pin: `-latest` names move under a running service. */
  ocrModel: string;
  /** Vision model with structured output (`vlm` mode, and the LLM step of `ocr+llm`). */
  chatModel: string;
  /** Time allowed for one HTTP call to Mistral. */
  timeoutMs: number;
  /** Total time the calls of one step may spend retrying 429s, 5xx and lost connections before the job's own retry. */
  retryMs: number;
  /** Calls to Mistral at once from this process; more wait their turn. */
  concurrency: number;
}

/** Current models (docs of 2026-08): OCR 4.0 is the generally available OCR pin, Small 4 reads images with JSON Schema output. */
export const MISTRAL_DEFAULTS = { ocrModel: 'mistral-ocr-4-0', chatModel: 'mistral-small-2603', timeoutMs: 25_000, retryMs: 20_000, concurrency: 4 } as const;

export const LOCAL_READERS = ['mrz', 'pdf417', 'text', 'ocr'] as const;
export type LocalReaderName = (typeof LOCAL_READERS)[number];
export const OCR_LANGUAGES = ['eng', 'spa', 'fra', 'por'] as const;
export type OcrLanguage = (typeof OCR_LANGUAGES)[number];
export const OCR_ENGINES = ['auto', 'paddle', 'tesseract'] as const;
export type OcrEngineSetting = (typeof OCR_ENGINES)[number];

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
  const baseUrlConfigured = env.COTEJO_BASE_URL !== undefined && env.COTEJO_BASE_URL !== '';
  if (baseUrlConfigured) {
    try {
      const u = new URL(env.COTEJO_BASE_URL!);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
      baseUrl = u.toString().replace(/\/+$/, '');
    } catch {
      problems.push(`COTEJO_BASE_URL must be an http(s) URL (got "${env.COTEJO_BASE_URL}")`);
    }
  }

  let firstAccountName = DEFAULT_ACCOUNT_NAME;
  if (env.COTEJO_ACCOUNT_NAME !== undefined && env.COTEJO_ACCOUNT_NAME.trim() !== '') {
    const name = accountName(env.COTEJO_ACCOUNT_NAME);
    if (name === null) problems.push(`COTEJO_ACCOUNT_NAME must be at most ${ACCOUNT_NAME_MAX} characters, without control characters`);
    else firstAccountName = name;
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

  let trustedListsDir: string | undefined;
  if (env.COTEJO_TRUSTED_LISTS_DIR !== undefined && env.COTEJO_TRUSTED_LISTS_DIR !== '') {
    trustedListsDir = path.resolve(env.COTEJO_TRUSTED_LISTS_DIR);
    let isDir = false;
    try {
      isDir = statSync(trustedListsDir).isDirectory();
    } catch {
      isDir = false;
    }
    if (!isDir) problems.push(`COTEJO_TRUSTED_LISTS_DIR must be an existing directory (got "${env.COTEJO_TRUSTED_LISTS_DIR.slice(0, 200)}")`);
  }

  const trustedListsUrl = loadTrustedListsUrl(env.COTEJO_TRUSTED_LISTS_URL, problems);
  const trustedListsTerritories = loadTerritories(env.COTEJO_TRUSTED_LISTS_TERRITORIES, problems);
  const trustedListsRefreshMs = loadRefreshInterval(env.COTEJO_TRUSTED_LISTS_REFRESH, problems);

  let revocationCheck: Config['revocationCheck'] = 'online';
  const revocation = env.COTEJO_REVOCATION_CHECK?.trim().toLowerCase() ?? '';
  if (revocation === 'online' || revocation === 'embedded' || revocation === 'off') revocationCheck = revocation;
  else if (revocation !== '') problems.push(`COTEJO_REVOCATION_CHECK must be online, embedded or off (got "${(env.COTEJO_REVOCATION_CHECK ?? '').slice(0, 60)}")`);

  const liveReaders = new Set(parseList('COTEJO_LIVE_READERS', env.COTEJO_LIVE_READERS, LOCAL_READERS, problems));
  const ocrLanguages = parseList('COTEJO_OCR_LANGUAGES', env.COTEJO_OCR_LANGUAGES, OCR_LANGUAGES, problems);
  if (liveReaders.has('ocr') && ocrLanguages.length === 0) problems.push('COTEJO_OCR_LANGUAGES cannot be "none" while COTEJO_LIVE_READERS includes ocr');
  let ocrEngine: OcrEngineSetting = 'auto';
  const engine = env.COTEJO_OCR_ENGINE?.trim().toLowerCase() ?? '';
  if ((OCR_ENGINES as readonly string[]).includes(engine)) ocrEngine = engine as OcrEngineSetting;
  else if (engine !== '') problems.push(`COTEJO_OCR_ENGINE must be auto, paddle or tesseract (got "${(env.COTEJO_OCR_ENGINE ?? '').slice(0, 60)}")`);
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

  let rateLimitStore: Config['rateLimitStore'] = null;
  const store = env.COTEJO_RATE_LIMIT_STORE?.trim().toLowerCase() ?? '';
  if (store === 'memory' || store === 'database') rateLimitStore = store;
  else if (store !== '') problems.push(`COTEJO_RATE_LIMIT_STORE must be memory or database (got "${env.COTEJO_RATE_LIMIT_STORE}")`);
  const trustProxy = parseTrustProxy(env.COTEJO_TRUST_PROXY, problems);
  const metricsToken = loadMetricsToken(env.COTEJO_METRICS_TOKEN, problems);

  const mistral = loadMistral(env, problems);
  const smtp = loadSmtp(env.COTEJO_SMTP_URL, problems);
  const s3 = loadS3(env, problems);
  // Required whenever the SMTP URL is given, even a wrong one: every problem is reported at the first start.
  const mailFrom = loadMailFrom(env.COTEJO_MAIL_FROM, (env.COTEJO_SMTP_URL?.trim() ?? '') !== '', problems);

  // A process may serve HTTP only and leave the background work to others (docs/deployment.md).
  const worker = env.COTEJO_WORKER === undefined || env.COTEJO_WORKER === '' ? true : parseBool('COTEJO_WORKER', env.COTEJO_WORKER, problems);

  const retention = loadRetention(env, problems);

  if (problems.length > 0) throw new ConfigError(problems);
  return { port, host, dataDir, databaseUrl, baseUrl, baseUrlConfigured, firstAccountName, allowPrivateUrls, logLevel, signingSecret, trustDir, trustedListsDir, trustedListsUrl, trustedListsTerritories, trustedListsRefreshMs, revocationCheck, liveReaders, ocrLanguages, ocrEngine, readingConcurrency, publicRateLimitPerSecond, rateLimitStore, trustProxy, metricsToken, mistral, smtp, mailFrom, s3, worker, retention };
}

export const DEFAULT_TRUSTED_LISTS_URL = 'https://ec.europa.eu/tools/lotl/eu-lotl.xml';
export const DEFAULT_TRUSTED_LISTS_REFRESH_MS = 24 * 3_600_000;
const MIN_TRUSTED_LISTS_REFRESH_MS = 5 * 60_000;
const MAX_TRUSTED_LISTS_REFRESH_MS = 30 * 24 * 3_600_000;

/**
 * How old trusted-list data may be before `signature.trust_anchor` shows its date (`listedLabel`): the refresh
 * interval, or 24 h when refresh is off.
 */
export function trustedListsStaleAfterMs(config: Pick<Config, 'trustedListsRefreshMs'>): number {
  return config.trustedListsRefreshMs ?? DEFAULT_TRUSTED_LISTS_REFRESH_MS;
}

/** COTEJO_TRUSTED_LISTS_URL: an http(s) URL without user or password; default the Commission's LOTL. */
function loadTrustedListsUrl(raw: string | undefined, problems: string[]): string {
  const text = raw?.trim() ?? '';
  if (text === '') return DEFAULT_TRUSTED_LISTS_URL;
  let u: URL | null = null;
  try {
    u = new URL(text);
  } catch {
    u = null;
  }
  if (u && (u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.password === '') return u.toString();
  // A URL with a user or password is not repeated: it may hold a secret.
  const got = u && (u.username !== '' || u.password !== '') ? 'a URL with a user or password' : `"${text.slice(0, 200)}"`;
  problems.push(`COTEJO_TRUSTED_LISTS_URL must be an http(s) URL without user or password (got ${got})`);
  return DEFAULT_TRUSTED_LISTS_URL;
}

/** COTEJO_TRUSTED_LISTS_TERRITORIES: comma-separated two-letter scheme territories (GR is taken as EL); empty or `all`: all. */
function loadTerritories(raw: string | undefined, problems: string[]): ReadonlySet<string> | null {
  const text = raw?.trim() ?? '';
  if (text === '' || text.toLowerCase() === 'all') return null;
  const entries = text.split(',').map((e) => e.trim().toUpperCase()).filter((e) => e !== '');
  const bad = entries.filter((e) => !/^[A-Z]{2}$/.test(e) || e === 'EU');
  if (bad.length > 0 || entries.length === 0) {
    problems.push(
      `COTEJO_TRUSTED_LISTS_TERRITORIES must be all or a comma-separated list of two-letter territories such as ES,PT,FR (the LOTL is always read)${bad.length > 0 ? `; not understood: ${bad.map((b) => `"${b.slice(0, 20)}"`).join(', ')}` : ''}`,
    );
    return null;
  }
  return new Set(entries.map((e) => (e === 'GR' ? 'EL' : e)));
}

/** COTEJO_RETENTION_JOBS / _EVENTS / _EXPORTS / _EMAILS / _USAGE_DETAIL: `off` or a period (30m, 12h, 7d; 1 minute to 3650 days); _DELIVERIES: `off` or 1 to 100000. */
function loadRetention(env: Record<string, string | undefined>, problems: string[]): RetentionConfig {
  const period = (name: string, fallback: number | null): number | null => {
    const raw = env[name];
    const text = raw?.trim().toLowerCase() ?? '';
    if (text === '') return fallback;
    if (text === 'off') return null;
    const m = /^(\d{1,7})\s*(m|min|h|d)$/.exec(text);
    const ms = m ? Number(m[1]) * (m[2] === 'd' ? 24 * 3_600_000 : m[2] === 'h' ? 3_600_000 : 60_000) : NaN;
    if (!(ms >= 60_000 && ms <= 3650 * 24 * 3_600_000)) {
      problems.push(`${name} must be off or a period from 1m to 3650d such as 12h, 7d or 30d (got "${(raw ?? '').slice(0, 40)}")`);
      return fallback;
    }
    return ms;
  };
  let deliveriesPerEndpoint = RETENTION_DEFAULTS.deliveriesPerEndpoint;
  const rawDeliveries = env.COTEJO_RETENTION_DELIVERIES?.trim().toLowerCase() ?? '';
  if (rawDeliveries === 'off') deliveriesPerEndpoint = null;
  else if (rawDeliveries !== '') {
    const n = Number(rawDeliveries);
    if (Number.isInteger(n) && n >= 1 && n <= 100_000) deliveriesPerEndpoint = n;
    else problems.push(`COTEJO_RETENTION_DELIVERIES must be off or a number of deliveries kept per endpoint from 1 to 100000 (got "${(env.COTEJO_RETENTION_DELIVERIES ?? '').slice(0, 40)}")`);
  }
  return {
    finishedJobsMs: period('COTEJO_RETENTION_JOBS', RETENTION_DEFAULTS.finishedJobsMs),
    eventsMs: period('COTEJO_RETENTION_EVENTS', RETENTION_DEFAULTS.eventsMs),
    deliveriesPerEndpoint,
    expiredExportsMs: period('COTEJO_RETENTION_EXPORTS', RETENTION_DEFAULTS.expiredExportsMs),
    emailsMs: period('COTEJO_RETENTION_EMAILS', RETENTION_DEFAULTS.emailsMs),
    usageDetailMs: period('COTEJO_RETENTION_USAGE_DETAIL', RETENTION_DEFAULTS.usageDetailMs),
  };
}

/** COTEJO_TRUSTED_LISTS_REFRESH: `off`, or an interval such as 24h, 6h, 30m or 7d (5 minutes to 30 days); default 24h. */
function loadRefreshInterval(raw: string | undefined, problems: string[]): number | null {
  const text = raw?.trim().toLowerCase() ?? '';
  if (text === '') return DEFAULT_TRUSTED_LISTS_REFRESH_MS;
  if (text === 'off') return null;
  const m = /^(\d{1,6})\s*(m|min|h|d)$/.exec(text);
  const ms = m ? Number(m[1]) * (m[2] === 'd' ? 24 * 3_600_000 : m[2] === 'h' ? 3_600_000 : 60_000) : NaN;
  if (!(ms >= MIN_TRUSTED_LISTS_REFRESH_MS && ms <= MAX_TRUSTED_LISTS_REFRESH_MS)) {
    problems.push(`COTEJO_TRUSTED_LISTS_REFRESH must be off or an interval from 5m to 30d such as 24h, 6h or 30m (got "${(raw ?? '').slice(0, 40)}")`);
    return DEFAULT_TRUSTED_LISTS_REFRESH_MS;
  }
  return ms;
}

/**
 * COTEJO_SMTP_URL: `smtp://user:password@host:587` or `smtps://user:password@host:465` (user and password
 * percent-encoded). No message here ever repeats the URL: it holds the password.
 */
function loadSmtp(raw: string | undefined, problems: string[]): SmtpConfig | null {
  const text = raw?.trim() ?? '';
  if (text === '') return null;
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    problems.push('COTEJO_SMTP_URL is not a valid URL (expected smtp://user:password@host:587 or smtps://user:password@host:465; percent-encode special characters of the user and password)');
    return null;
  }
  const before = problems.length;
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') problems.push(`COTEJO_SMTP_URL must be an smtp:// or smtps:// URL (got protocol "${u.protocol}")`);
  const secure = u.protocol === 'smtps:';
  // Names are shown (they help find the mistake); the password never is.
  if (u.hostname === '') problems.push('COTEJO_SMTP_URL must name a host');
  if (u.port === '0') problems.push('COTEJO_SMTP_URL must name a port from 1 to 65535');
  if (u.pathname !== '' && u.pathname !== '/') problems.push('COTEJO_SMTP_URL must not have a path');
  if (u.hash !== '') problems.push('COTEJO_SMTP_URL must not have a #fragment');
  let user: string | null = null;
  let password: string | null = null;
  try {
    user = u.username === '' ? null : decodeURIComponent(u.username);
    password = u.password === '' ? null : decodeURIComponent(u.password);
  } catch {
    problems.push('COTEJO_SMTP_URL has a badly percent-encoded user or password');
  }
  if (password !== null && user === null) problems.push('COTEJO_SMTP_URL has a password but no user');
  if (user !== null && password === null) problems.push(`COTEJO_SMTP_URL names the user "${user}" but no password`);
  let requireTls = false;
  for (const [name, value] of u.searchParams) {
    if (name === 'require_tls' && (value === 'true' || value === 'false')) requireTls = value === 'true';
    else if (name === 'require_tls') problems.push(`COTEJO_SMTP_URL: require_tls must be true or false (got "${value}")`);
    else problems.push(`COTEJO_SMTP_URL: unknown parameter "${name}" (the only one is require_tls=true|false)`);
  }
  if (problems.length > before) return null;
  const port = u.port === '' ? (secure ? 465 : 587) : Number(u.port);
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  const display = `${u.protocol}//${user !== null ? `${encodeURIComponent(user)}@` : ''}${u.hostname}:${port}`;
  return { secure, host, port, user, password, requireTls, display };
}

/** COTEJO_MAIL_FROM: `Name <address>` or an address. Required with SMTP: a real server refuses no-reply@localhost. */
function loadMailFrom(raw: string | undefined, smtpSet: boolean, problems: string[]): Mailbox {
  const text = raw?.trim() ?? '';
  if (text === '') {
    if (smtpSet) problems.push('COTEJO_MAIL_FROM must be set when COTEJO_SMTP_URL is (e.g. "Cotejo <no-reply@your-domain.example>", an address your SMTP server may send from)');
    return DEFAULT_MAIL_FROM;
  }
  const box = parseMailbox(text);
  if (!box) {
    problems.push(`COTEJO_MAIL_FROM must be an address or "Name <address>" (got ${JSON.stringify(text.slice(0, 200))})`);
    return DEFAULT_MAIL_FROM;
  }
  return box;
}

/**
 * COTEJO_S3_BUCKET turns the S3 store on; the other COTEJO_S3_* refine it and are a mistake without it. The region
 * defaults to AWS_REGION, then us-east-1 (the S3 protocol's default, which MinIO and s3rver use); an AWS bucket
 * elsewhere is still reached through the SDK's region redirect, but naming its region saves a round trip.
 */
function loadS3(env: NodeJS.ProcessEnv, problems: string[]): S3Config | null {
  const get = (name: string) => env[name]?.trim() ?? '';
  const bucket = get('COTEJO_S3_BUCKET');
  if (bucket === '') {
    const stray = ['COTEJO_S3_ENDPOINT', 'COTEJO_S3_REGION', 'COTEJO_S3_PREFIX', 'COTEJO_S3_FORCE_PATH_STYLE', 'COTEJO_S3_ACCESS_KEY_ID', 'COTEJO_S3_SECRET_ACCESS_KEY', 'COTEJO_S3_TIMEOUT_MS', 'COTEJO_S3_MAX_ATTEMPTS'].filter((n) => get(n) !== '');
    if (stray.length > 0) problems.push(`${stray.join(', ')} ${stray.length === 1 ? 'is' : 'are'} set but COTEJO_S3_BUCKET is not (set it to store files in S3, or unset ${stray.length === 1 ? 'it' : 'them'})`);
    return null;
  }
  const before = problems.length;
  // S3's naming rules (3 to 63 lowercase letters, digits, dots and hyphens): what every compatible store accepts.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) || bucket.includes('..')) {
    problems.push(`COTEJO_S3_BUCKET must be a bucket name of 3 to 63 lowercase letters, digits, dots and hyphens (got ${JSON.stringify(bucket.slice(0, 100))})`);
  }
  let endpoint: string | undefined;
  const rawEndpoint = get('COTEJO_S3_ENDPOINT');
  if (rawEndpoint !== '') {
    try {
      const u = new URL(rawEndpoint);
      if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('protocol');
      // Keys in the URL would be echoed here and there: they go in COTEJO_S3_ACCESS_KEY_ID / _SECRET_ACCESS_KEY.
      if (u.username !== '' || u.password !== '') problems.push('COTEJO_S3_ENDPOINT must not hold credentials (use COTEJO_S3_ACCESS_KEY_ID and COTEJO_S3_SECRET_ACCESS_KEY)');
      else endpoint = u.toString().replace(/\/+$/, '');
    } catch {
      problems.push(`COTEJO_S3_ENDPOINT must be an http(s) URL such as https://s3.fr-par.scw.cloud (got ${rawEndpoint.includes('@') ? 'a value with "@", not shown' : JSON.stringify(rawEndpoint.slice(0, 200))})`);
    }
  }
  const region = get('COTEJO_S3_REGION') || get('AWS_REGION') || S3_DEFAULTS.region;
  if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/.test(region)) problems.push(`COTEJO_S3_REGION must be a region name such as eu-west-3, fr-par or us-east-1 (got ${JSON.stringify(region.slice(0, 100))})`);
  let prefix = get('COTEJO_S3_PREFIX').replace(/^\/+/, '');
  if (prefix !== '') {
    if (!/^[A-Za-z0-9_][A-Za-z0-9_./-]*$/.test(prefix) || prefix.split('/').some((part) => part === '..' || part === '.') || prefix.includes('//')) {
      problems.push(`COTEJO_S3_PREFIX may hold letters, digits, "_", "-", "." and "/" only, such as cotejo/production/ (got ${JSON.stringify(prefix.slice(0, 200))})`);
    }
    if (!prefix.endsWith('/')) prefix += '/';
  }
  const forcePathStyle = parseBool('COTEJO_S3_FORCE_PATH_STYLE', env.COTEJO_S3_FORCE_PATH_STYLE, problems);
  const accessKeyId = get('COTEJO_S3_ACCESS_KEY_ID');
  const secretAccessKey = get('COTEJO_S3_SECRET_ACCESS_KEY');
  // The key id is named in messages (it helps find the mistake); the secret never is.
  if (accessKeyId !== '' && secretAccessKey === '') problems.push(`COTEJO_S3_ACCESS_KEY_ID is set ("${accessKeyId.slice(0, 40)}") but COTEJO_S3_SECRET_ACCESS_KEY is not`);
  if (accessKeyId === '' && secretAccessKey !== '') problems.push('COTEJO_S3_SECRET_ACCESS_KEY is set but COTEJO_S3_ACCESS_KEY_ID is not');
  const timeoutMs = intFrom(env, 'COTEJO_S3_TIMEOUT_MS', S3_DEFAULTS.timeoutMs, 500, 600_000, problems);
  const maxAttempts = intFrom(env, 'COTEJO_S3_MAX_ATTEMPTS', S3_DEFAULTS.maxAttempts, 1, 10, problems);
  if (problems.length > before) return null;
  const credentials = accessKeyId !== '' && secretAccessKey !== '' ? { accessKeyId, secretAccessKey } : null;
  return { bucket, endpoint, region, prefix, forcePathStyle, credentials, timeoutMs, maxAttempts };
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
    return fallback;
  }
  return n;
}

function loadMistral(env: NodeJS.ProcessEnv, problems: string[]): MistralConfig | null {
  const apiKey = env.MISTRAL_API_KEY?.trim() ?? '';
  let baseUrl: string | undefined;
  const rawUrl = env.COTEJO_MISTRAL_BASE_URL?.trim() ?? '';
  if (rawUrl !== '') {
    try {
      const u = new URL(rawUrl);
      if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('protocol');
      baseUrl = u.toString().replace(/\/+$/, '');
    } catch {
      problems.push(`COTEJO_MISTRAL_BASE_URL must be an http(s) URL (got "${rawUrl}")`);
    }
  }
  const model = (name: string, fallback: string): string => {
    const v = env[name]?.trim() ?? '';
    if (v === '') return fallback;
    if (!/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/.test(v)) problems.push(`${name} must be a model name such as ${fallback} (got "${v}")`);
    return v;
  };
  const cfg: MistralConfig = {
    apiKey,
    baseUrl,
    ocrModel: model('COTEJO_MISTRAL_OCR_MODEL', MISTRAL_DEFAULTS.ocrModel),
    chatModel: model('COTEJO_MISTRAL_CHAT_MODEL', MISTRAL_DEFAULTS.chatModel),
    timeoutMs: intFrom(env, 'COTEJO_MISTRAL_TIMEOUT_MS', MISTRAL_DEFAULTS.timeoutMs, 1_000, 600_000, problems),
    retryMs: intFrom(env, 'COTEJO_MISTRAL_RETRY_MS', MISTRAL_DEFAULTS.retryMs, 0, 600_000, problems),
    concurrency: intFrom(env, 'COTEJO_MISTRAL_CONCURRENCY', MISTRAL_DEFAULTS.concurrency, 1, 256, problems),
  };
  if (apiKey === '') {
    // Settings without a key are a mistake worth saying, not a silent local-only start.
    if (baseUrl) problems.push('COTEJO_MISTRAL_BASE_URL is set but MISTRAL_API_KEY is not');
    return null;
  }
  return cfg;
}
