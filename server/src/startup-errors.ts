// What goes wrong when the server or the CLI starts, said in one line a newcomer can act on (no stack trace): a port
// in use, a data directory that cannot be written, a database that cannot be reached. Anything not recognised here
// keeps its stack: it is a bug to report, not a setting to fix.
import type { Config } from './config.ts';
import { DataDirLockedError } from './db/database.ts';
import { ConfigError } from './config.ts';

interface ErrnoLike {
  code?: unknown;
  syscall?: unknown;
  path?: unknown;
  address?: unknown;
  port?: unknown;
  message?: unknown;
  errors?: unknown;
  cause?: unknown;
}

/** The errno-style code of an error, looking through AggregateError (happy eyeballs) and `cause` chains. */
function codeOf(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== 'object' || depth > 4) return undefined;
  const e = err as ErrnoLike;
  if (typeof e.code === 'string' && e.code !== '') return e.code;
  if (Array.isArray(e.errors)) for (const inner of e.errors) {
    const c = codeOf(inner, depth + 1);
    if (c) return c;
  }
  return codeOf(e.cause, depth + 1);
}

/** host:port/database of a PostgreSQL URL, never its password. */
export function describeDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    const db = u.pathname.replace(/^\//, '');
    return `${u.hostname || 'localhost'}:${u.port || '5432'}${db ? `/${db}` : ''}`;
  } catch {
    return 'the DATABASE_URL given';
  }
}

const FS_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EEXIST: 'a file with that name is in the way',
  EISDIR: 'a directory is where a file should be',
  ENAMETOOLONG: 'the path is too long',
};

const PG_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is PostgreSQL running there?)',
  ENOTFOUND: 'unknown host name',
  EAI_AGAIN: 'the host name could not be resolved',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ECONNRESET: 'the connection was reset',
  '28P01': 'password authentication failed',
  '28000': 'the server refused this user',
  '3D000': 'the database does not exist',
  '42501': 'the user lacks a permission it needs (creating tables)',
  '53300': 'the server has no free connection slots',
  '57P03': 'the server is starting up or shutting down',
};

/**
 * One line that says what failed and what to do, for the errors an operator causes and can fix; undefined for
 * anything else (a bug: the caller prints its stack).
 */
export function describeStartupError(err: unknown, config: Pick<Config, 'port' | 'host' | 'dataDir' | 'databaseUrl'> | undefined): string | undefined {
  if (err instanceof ConfigError || err instanceof DataDirLockedError) return err.message;
  const code = codeOf(err);
  if (!code) return undefined;
  const e = err as ErrnoLike;
  if (e.syscall === 'listen' && config) {
    const where = `${config.host}:${config.port}`;
    if (code === 'EADDRINUSE')
      return `Port ${config.port} is already in use on ${config.host} (another Cotejo, or another program). Stop it, or start on another port: PORT=8081 npm start`;
    if (code === 'EACCES') return `Not allowed to listen on ${where} (ports below 1024 need privileges). Choose another port, e.g. PORT=8080.`;
    if (code === 'EADDRNOTAVAIL') return `HOST=${config.host} is not an address of this machine. Use 0.0.0.0 (every address) or 127.0.0.1.`;
    return `Cannot listen on ${where}: ${code}.`;
  }
  if (config?.databaseUrl && (code in PG_REASONS || /^(08|28|3D|53|57)/.test(code))) {
    const reason = PG_REASONS[code] ?? (typeof e.message === 'string' ? e.message : code);
    return `Cannot use PostgreSQL at ${describeDatabaseUrl(config.databaseUrl)} (DATABASE_URL): ${reason}. Check DATABASE_URL, or unset it to use the embedded database.`;
  }
  if (code in FS_REASONS && config && !config.databaseUrl) {
    const where = typeof e.path === 'string' && e.path !== config.dataDir ? ` (${e.path})` : '';
    return `Cannot use the data directory ${config.dataDir}${where}: ${FS_REASONS[code]}. Set COTEJO_DATA_DIR to a directory this user can write.`;
  }
  if (code in FS_REASONS && typeof e.path === 'string') return `Cannot use ${e.path}: ${FS_REASONS[code]}.`;
  return undefined;
}
