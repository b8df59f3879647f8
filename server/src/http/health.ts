// Liveness and readiness for process supervisors and load balancers (Kubernetes probes, systemd, a reverse proxy).
// They sit outside /v1 and outside the contract, like /openapi.json and /docs (docs/decisions.md): no key, no rate
// limit, never cached.
//   GET /healthz  200 while the process can answer at all (liveness: restart it when this fails).
//   GET /readyz   200 when it can do work: the database answers, the blob store too when it is remote (S3), and the
//                 process is not shutting down; else 503 with the reason (readiness: send it no traffic meanwhile).
import type { Express, Response } from 'express';
import { sql } from 'kysely';
import type { Services } from './context.ts';

/** A database (or an S3 store) that does not answer within this is as good as down for a probe. */
const READY_TIMEOUT_MS = 2_000;

function answer(res: Response, status: number, body: Record<string, unknown>): void {
  res.status(status);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify(body));
}

export function mountHealth(app: Express, services: Services): void {
  // Probes that arrive together share one database round trip (and one S3 HeadBucket).
  let inflight: Promise<string | null> | null = null;
  const within = async (work: Promise<unknown>, unreachable: string, timedOut: string): Promise<string | null> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(timedOut), READY_TIMEOUT_MS);
      });
      const outcome = work.then(
        () => null,
        (err: unknown) => {
          // The reason alone says what is down; the error says why (refused, 403, no such bucket...).
          services.logger.warn({ err }, unreachable);
          return unreachable;
        },
      );
      return await Promise.race([outcome, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  const checkReady = (): Promise<string | null> => {
    inflight ??= (async () => {
      try {
        // Both at once; the database's problem is named first when both fail.
        const [database, blobs] = await Promise.all([
          within(sql`select 1`.execute(services.db), 'database_unreachable', 'database_timeout'),
          // Only a remote store has ping(): the data dir is this process's own disk.
          services.blobs.ping ? within(services.blobs.ping(), 'blob_store_unreachable', 'blob_store_timeout') : null,
        ]);
        return database ?? blobs;
      } finally {
        inflight = null;
      }
    })();
    return inflight;
  };

  app.get('/healthz', (_req, res) => answer(res, 200, { status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    if (services.stopping) return answer(res, 503, { status: 'unavailable', reason: 'shutting_down' });
    const problem = await checkReady();
    if (problem) {
      services.logger.warn({ reason: problem }, 'not ready');
      return answer(res, 503, { status: 'unavailable', reason: problem });
    }
    // Only the S3 store has ping(); the local one goes unnamed (the answer one-machine setups have always had).
    answer(res, 200, { status: 'ready', database: services.database.kind, ...(services.blobs.ping ? { blob_store: 's3' } : {}) });
  });
}
