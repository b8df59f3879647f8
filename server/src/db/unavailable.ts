// Which database errors mean "the database cannot be reached right now" (issue #31): a request that meets one answers
// 503 with Retry-After (http/errors.ts), a job that meets one waits and runs again (jobs/unavailable.ts). Everything
// else (a constraint, a syntax error, a bug) stays what it is.

/** Network failures of the connection to PostgreSQL (pg), and a full disk under PGlite's data files. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ENOSPC', 'EDQUOT']);

/**
 * SQLSTATEs: class 08 (connection exception), 57P01-57P03 (the server is shutting down, crashed or starting),
 * 53xxx (insufficient resources: disk full, out of memory, too many connections), 58030 (I/O error).
 */
const SQLSTATE = /^(08...|57P0[123]|53...|58030)$/;

/** What pg and PGlite say when the connection went away or the disk is full (errors without a code of their own). */
const MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated due to connection timeout|Query read timeout|No space left on device|could not (extend|write to) file|PGlite is closed|database system is (shutting down|starting up|in recovery mode)/i;

/** True when `err` (or one of its causes) says the database is unreachable or out of room. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e !== 'object') return false;
    const code = typeof e.code === 'string' ? e.code : '';
    if (NETWORK_CODES.has(code) || SQLSTATE.test(code)) return true;
    if (typeof e.message === 'string' && MESSAGES.test(e.message)) return true;
    // An AggregateError (a connection to every address of localhost refused) carries its reasons in `errors`.
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.some((x) => isDatabaseUnavailable(x))) return true;
  }
  return false;
}
