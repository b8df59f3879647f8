// A dependency that is away for a while (issue #31): the blob store or the database. Requests that need it answer
// 503 `service_unavailable` with Retry-After (http/errors.ts); work that can wait is accepted and retried until it is
// back (jobs/unavailable.ts). What one is down is said by /readyz (http/health.ts) and by the log line.
import { isDatabaseUnavailable } from '../db/unavailable.ts';

/** Seconds a client is told to wait (Retry-After) when a dependency is away: about one readiness probe period. */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

/** The blob store cannot be reached (network error, time-out, 5xx): a passing failure, unlike a 403 or a missing bucket. */
export class BlobStoreUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BlobStoreUnavailable';
  }
}

export type Dependency = 'database' | 'blob_store';

/** Which dependency `err` says is away, or null when it is another kind of error. */
export function unavailableDependency(err: unknown): Dependency | null {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof BlobStoreUnavailable) return 'blob_store';
  }
  return isDatabaseUnavailable(err) ? 'database' : null;
}
