// Metrics in the Prometheus text format: GET /metrics, outside /v1 and outside the contract like /healthz and /readyz
// (http/health.ts). Every metric of ours is named cotejo_*; prom-client's process metrics keep their usual names
// (process_*, nodejs_*) so that ready-made dashboards work. docs/deployment.md ("Metrics") lists them all.
//
// Access: with COTEJO_METRICS_TOKEN set, a scrape must send `Authorization: Bearer <token>` (from any address);
// without it, /metrics answers only connections from loopback that carry no forwarding header (a reverse proxy on the
// same machine usually adds one, and would otherwise make every client look local). The socket's own address is
// what counts, never X-Forwarded-For (COTEJO_TRUST_PROXY does not apply here).
//
// Labels hold no account, key, id or raw path: an operationId, a route template, a status code, a queue name, a
// provider name. Each Services object has its own registry (tests run several apps in one process).
//
// prom-client's main module costs 40 to 80 ms and 15 to 20 MB at start-up (its Pushgateway, cluster aggregator,
// OpenTelemetry API and default metrics); the four classes used on the hot path cost 3 to 8 ms and 3 MB. So those
// four are required directly from their files, and the default process metrics load at the first scrape.
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import type { Express, Request, Response } from 'express';
import { sql, type Kysely } from 'kysely';
import type * as Prom from 'prom-client';
import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { DB } from './db/schema.ts';
import { ANALYSIS_QUEUE, FOLLOW_UP_QUEUE, LINK_EMAIL_QUEUE } from './jobs/queues.ts';

/** What the metrics read of the process's Services (context.ts, which holds a Metrics: named here, not imported). */
interface Services {
  db: Kysely<DB>;
  clock: Clock;
  logger: Logger;
  config: Pick<Config, 'metricsToken'>;
  metrics?: Metrics;
}

const require = createRequire(import.meta.url);
const Registry = require('prom-client/lib/registry') as typeof Prom.Registry;
const Counter = require('prom-client/lib/counter') as typeof Prom.Counter;
const Gauge = require('prom-client/lib/gauge') as typeof Prom.Gauge;
const Histogram = require('prom-client/lib/histogram') as typeof Prom.Histogram;

/** The queues of the `jobs` table that are reported (named, so that the query uses jobs_claim_idx). */
const JOB_QUEUES = [ANALYSIS_QUEUE, LINK_EMAIL_QUEUE, FOLLOW_UP_QUEUE] as const;
/** Webhook deliveries are a queue of their own table; reported under this name. */
const DELIVERY_QUEUE = 'webhook_delivery';
const QUEUES = [...JOB_QUEUES, DELIVERY_QUEUE];
const QUEUE_STATES = ['due', 'scheduled', 'running'] as const;

/**
 * Seconds. From the catalogue's sub-millisecond answers to the synchronous analysis, which waits up to 30 s
 * (the specification's) before answering 202.
 */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];

/** A scrape's queue query that takes longer than this is abandoned: the process metrics are still served. */
const QUEUE_QUERY_TIMEOUT_MS = 2_000;

/** What a webhook attempt came to: deliverClaimed's outcome, with `refused` for an attempt not sent (target not allowed). */
export type DeliveryMetricOutcome = 'succeeded' | 'retry' | 'failed' | 'refused' | 'stopped' | 'lease_lost';

/** How a provider's reading ended: completed, failed (the analysis fails), or error (thrown: the job is retried). */
export type ReadingMetricOutcome = 'completed' | 'failed' | 'error';

export class Metrics {
  readonly registry: Prom.Registry;
  private readonly requests: Prom.Counter<'operation' | 'method' | 'code'>;
  private readonly durations: Prom.Histogram<'operation'>;
  private readonly deliveries: Prom.Counter<'outcome' | 'target'>;
  private readonly readings: Prom.Counter<'mode' | 'outcome'>;
  private readonly providerReadings: Prom.Counter<'mode' | 'provider' | 'outcome'>;
  private readonly queueJobs: Prom.Gauge<'queue' | 'state'>;
  private readonly queueAge: Prom.Gauge<'queue'>;
  private defaultMetrics = false;

  constructor() {
    const registers = [(this.registry = new Registry())];
    this.requests = new Counter({
      name: 'cotejo_http_requests_total',
      help: 'HTTP requests answered, by operation (operationId, or route template outside /v1), method and status code.',
      labelNames: ['operation', 'method', 'code'],
      registers,
    });
    this.durations = new Histogram({
      name: 'cotejo_http_request_duration_seconds',
      help: 'Time from the request to the end of its response, by operation.',
      labelNames: ['operation'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.deliveries = new Counter({
      name: 'cotejo_webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts by outcome (succeeded, retry, failed, refused, stopped, lease_lost) and target (endpoint, callback).',
      labelNames: ['outcome', 'target'],
      registers,
    });
    this.readings = new Counter({
      name: 'cotejo_readings_total',
      help: 'Document readings by mode (test, live) and outcome (completed, failed, error).',
      labelNames: ['mode', 'outcome'],
      registers,
    });
    this.providerReadings = new Counter({
      name: 'cotejo_provider_readings_total',
      help: 'Readings each provider took part in, by mode, provider name and outcome (a reading by several providers counts once for each).',
      labelNames: ['mode', 'provider', 'outcome'],
      registers,
    });
    this.queueJobs = new Gauge({
      name: 'cotejo_queue_jobs',
      help: 'Unfinished jobs per queue at scrape time: due (waiting for a worker), scheduled (a later attempt), running (leased). The same in every process sharing the database.',
      labelNames: ['queue', 'state'],
      registers,
    });
    this.queueAge = new Gauge({
      name: 'cotejo_queue_oldest_due_age_seconds',
      help: 'How long the oldest due job of each queue has been waiting for a worker (0: none due).',
      labelNames: ['queue'],
      registers,
    });
  }

  /** One answered HTTP request (called once per response, on its 'finish'). */
  request(operation: string, method: string, status: number, seconds: number): void {
    this.requests.inc({ operation, method, code: status });
    this.durations.observe({ operation }, seconds);
  }

  /** One webhook attempt's outcome (webhooks/deliveries.ts). */
  deliveryAttempt(outcome: DeliveryMetricOutcome, target: 'endpoint' | 'callback'): void {
    this.deliveries.inc({ outcome, target });
  }

  /** One reading that ended (domain/analysis/pipeline.ts); each distinct provider that took part counts once. */
  reading(livemode: boolean, outcome: ReadingMetricOutcome, providers: ReadonlyArray<{ name: string }>): void {
    const mode = livemode ? 'live' : 'test';
    this.readings.inc({ mode, outcome });
    const seen = new Set<string>();
    for (const p of providers) {
      if (seen.has(p.name)) continue;
      seen.add(p.name);
      this.providerReadings.inc({ mode, provider: p.name, outcome });
    }
  }

  /** The exposition text: queue gauges read now (one query), then every metric of the registry. */
  async render(s: Services): Promise<{ contentType: string; text: string }> {
    if (!this.defaultMetrics) {
      this.defaultMetrics = true;
      // Loaded here, not at start-up: 30 ms and 12 MB that a server nobody scrapes never pays. The event loop lag and
      // GC histograms therefore start at the first scrape.
      const collectDefaultMetrics = require('prom-client/lib/defaultMetrics') as typeof Prom.collectDefaultMetrics;
      collectDefaultMetrics({ register: this.registry });
    }
    await this.readQueues(s);
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  private async readQueues(s: Services): Promise<void> {
    let rows: QueueRow[];
    let timer: NodeJS.Timeout | undefined;
    try {
      rows = await Promise.race([
        queueRows(s),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the queue query took over ${QUEUE_QUERY_TIMEOUT_MS} ms`)), QUEUE_QUERY_TIMEOUT_MS);
        }),
      ]);
    } catch (err) {
      // No queue figures rather than stale ones: the series go absent for this scrape (alert on absent() if needed).
      s.logger.warn({ err }, 'metrics: could not read the queues');
      this.queueJobs.reset();
      this.queueAge.reset();
      return;
    } finally {
      clearTimeout(timer);
    }
    // Every known queue is reported, at 0 when empty: a series that comes and goes breaks rate() and alerts.
    for (const queue of QUEUES) {
      const row = rows.find((r) => r.queue === queue);
      for (const state of QUEUE_STATES) this.queueJobs.set({ queue, state }, row ? Number(row[state]) : 0);
      this.queueAge.set({ queue }, row ? Math.max(0, Number(row.oldest_due_s)) : 0);
    }
  }
}

interface QueueRow {
  queue: string;
  due: number;
  scheduled: number;
  running: number;
  oldest_due_s: number;
}

/**
 * The queues in one query over the rows that are not finished (done and failed jobs stay in `jobs`, and succeeded
 * deliveries in `webhook_deliveries`, so the filters keep to the claim indexes). "Due" is what a worker would claim
 * now: pending and come due, or leased by a process whose lease ran out (it died).
 */
async function queueRows(s: Services): Promise<QueueRow[]> {
  const now = s.clock.now();
  const jobDue = sql`((status = 'pending' and run_at <= ${now}) or (status = 'running' and locked_until < ${now}))`;
  const deliveryDue = sql`(next_attempt_at <= ${now} and (locked_until is null or locked_until < ${now}))`;
  const { rows } = await sql<QueueRow>`
    select queue,
      (count(*) filter (where ${jobDue}))::int as due,
      (count(*) filter (where status = 'pending' and run_at > ${now}))::int as scheduled,
      (count(*) filter (where status = 'running' and locked_until >= ${now}))::int as running,
      coalesce(extract(epoch from (${now}::timestamptz - min(case when status = 'pending' then run_at else locked_until end) filter (where ${jobDue}))), 0)::float8 as oldest_due_s
    from jobs
    where queue in (${sql.join(JOB_QUEUES.map((q) => sql`${q}`))}) and status in ('pending', 'running')
    group by queue
    union all
    select ${DELIVERY_QUEUE} as queue,
      (count(*) filter (where ${deliveryDue}))::int as due,
      (count(*) filter (where next_attempt_at > ${now} and (locked_until is null or locked_until < ${now})))::int as scheduled,
      (count(*) filter (where locked_until >= ${now}))::int as running,
      coalesce(extract(epoch from (${now}::timestamptz - min(next_attempt_at) filter (where ${deliveryDue}))), 0)::float8 as oldest_due_s
    from webhook_deliveries
    where status = 'pending'
  `.execute(s.db);
  return rows;
}

/**
 * The operation label of a request that is not a /v1 operation: the Express route template (`/healthz`,
 * `/l/:token/consent`), else a fixed word. Never the path itself: it may hold a token, and its values are unbounded.
 */
export function routeLabel(req: Request, sent: string): string {
  const route = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof route === 'string') {
    // The hosted page's router is mounted at /l (web/routes.ts) and the dashboard's at /dashboard (web/dashboard/); at
    // 'finish', Express no longer says where a router was mounted.
    if (sent.startsWith('/l/')) return `/l${route}`;
    if (sent === '/dashboard' || sent.startsWith('/dashboard/')) return `/dashboard${route === '/' ? '' : route}`;
    return route;
  }
  if (sent === '/v1' || sent.startsWith('/v1/')) return req.method === 'OPTIONS' ? 'v1_preflight' : 'v1_unmatched';
  return 'unmatched';
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;
const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

/** Null when the request may read the metrics; else the refusal. */
function refusal(req: Request, token: string | null): { status: number; headers: Record<string, string>; text: string } | null {
  if (token !== null) {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
    // Compared as digests: equal lengths for timingSafeEqual, and no early exit on the first differing character.
    const digest = (v: string) => crypto.createHash('sha256').update(v).digest();
    if (match && crypto.timingSafeEqual(digest(match[1]), digest(token))) return null;
    return {
      status: 401,
      headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
      text: 'Unauthorized: /metrics requires Authorization: Bearer <COTEJO_METRICS_TOKEN>.\n',
    };
  }
  const local = LOOPBACK.test(req.socket.remoteAddress ?? '') && !FORWARDING_HEADERS.some((h) => req.headers[h] !== undefined);
  if (local) return null;
  return { status: 403, headers: {}, text: 'Forbidden: /metrics answers loopback clients only; set COTEJO_METRICS_TOKEN to scrape it from elsewhere.\n' };
}

export function mountMetrics(app: Express, services: Services): void {
  app.get('/metrics', async (req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-store');
    const refused = refusal(req, services.config.metricsToken);
    const metrics = services.metrics;
    if (refused || !metrics) {
      const answer = refused ?? { status: 404, headers: {}, text: 'Not found: this process keeps no metrics.\n' };
      res.status(answer.status);
      for (const [k, v] of Object.entries(answer.headers)) res.setHeader(k, v);
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.end(answer.text);
      return;
    }
    const { contentType, text } = await metrics.render(services);
    res.setHeader('Content-Type', contentType);
    res.end(text);
  });
}
