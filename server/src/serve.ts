import http from 'node:http';
import { buildApp } from './app.ts';
import { systemClock } from './clock.ts';
import { loadConfig, type Config } from './config.ts';
import { describeMail } from './mail/index.ts';
import { countAccounts } from './db/accounts.ts';
import { answerClientErrors } from './http/client-errors.ts';
import { createAccount } from './domain/accounts.ts';
import { DEFAULT_ACCOUNT_NAME } from './domain/account-name.ts';
import { recordBaseUrl } from './domain/base-url.ts';
import { releaseLeasesOfDeadProcesses } from './jobs/recovery.ts';
import { startWorker } from './jobs/worker.ts';
import { createLogger } from './logger.ts';
import { openServices } from './services.ts';
import { describeStartupError } from './startup-errors.ts';

/** How long a stop waits for the work in progress before it exits anyway (exit code 1). */
const SHUTDOWN_GRACE_MS = 25_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  // Plain lines for a person watching the first start (the JSON logs are for machines).
  const say = (message: string) => process.stdout.write(`${message}\n`);
  const services = await openServices(config, systemClock, logger, { onProgress: say });
  const server = http.createServer();
  const active = new Set<http.ServerResponse>();
  let stopping = false;
  try {
    // The embedded database is this process's alone: a lease in it belongs to a process that died (kill -9, power loss).
    if (services.database.kind === 'pglite') {
      const freed = await releaseLeasesOfDeadProcesses(services.db, services.clock.now());
      if (freed.jobs + freed.deliveries + freed.idempotencyKeys > 0) logger.info(freed, 'took up the work of a process that stopped without finishing it');
    }
    server.on('request', buildApp(services));
    // Requests being answered: counted in the line a person sees when stopping the server (Ctrl-C during live
    // readings), and told to close their connection once answered then (a kept-alive connection would hold the stop
    // until the grace period ends and the process exits with 1).
    server.on('request', (_req, res) => {
      active.add(res);
      if (stopping && !res.headersSent) res.setHeader('Connection', 'close');
      res.once('close', () => active.delete(res));
    });
    server.keepAliveTimeout = 65_000;
    server.requestTimeout = 120_000;
    answerClientErrors(server, services.logger);
    // Listen before anything is created for the newcomer: a port in use ends the start before a key exists that
    // could not be shown.
    await listen(server, config.port, config.host);
  } catch (err) {
    server.close();
    await services.database.close();
    throw err;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // PORT=0 picks a free port: the default base URL (signed URLs, the banner) names the one chosen.
  if (config.port === 0 && !config.baseUrlConfigured) config.baseUrl = `http://localhost:${port}`;
  // The CLI builds its links (members invite) from this, not from its own environment.
  await recordBaseUrl(services.db, config.baseUrl);

  // First start on an empty database: make a default account so a newcomer can call the API at once.
  let firstKey: string | undefined;
  let firstLiveKey: string | undefined;
  let firstAccount: string | undefined;
  if ((await countAccounts(services.db)) === 0) {
    // The instance's operator owns this account: its monthly free tier is usable at once (docs/decisions.md).
    // Named by COTEJO_ACCOUNT_NAME (else "Default account"): the name people see on the hosted page and in emails.
    const created = await createAccount(services.db, services.clock, { name: config.firstAccountName, emailVerified: true });
    firstKey = created.keys.test;
    firstAccount = created.account;
    firstLiveKey = created.keys.live;
  }
  // With COTEJO_WORKER=false this process serves HTTP only; the processes that run a worker do the background work.
  const worker = config.worker ? startWorker(services) : null;
  // EU trusted lists: the processes that run the worker take the refresh when due (one per interval across the
  // database); every process picks up what another stored (docs/pdf-signatures.md, "Trusted lists").
  const trustedLists = services.trustedLists?.start({ fetch: config.worker }) ?? null;

  // Signals are handled before the banner is out: whoever waits for the banner may stop the server at once.
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    services.stopping = true; // GET /readyz answers 503 from now on
    logger.info({ signal }, 'shutting down');
    // Requests in progress (a synchronous live reading takes seconds) and readings that go on after a 202.
    for (const res of active) if (!res.headersSent) res.setHeader('Connection', 'close');
    const busy = active.size + services.inflight.size;
    say(
      busy > 0
        ? `\nStopping: finishing the ${busy === 1 ? 'request' : `${busy} requests`} in progress first (live readings included; at most ${SHUTDOWN_GRACE_MS / 1000} s).`
        : '\nStopping.',
    );
    const force = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(async () => {
      // Synchronous analyses that answered 202 finish their reading first (the force timer bounds the wait).
      await Promise.allSettled([...services.inflight]);
      await worker?.stop();
      await trustedLists?.stop();
      await services.blobs.destroy?.();
      await services.database.close();
      logger.info('stopped');
      say('Stopped.');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  const db = services.database.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)';
  // One write, so whoever reads the output sees the whole banner at once.
  let banner = `\nCotejo is running at ${config.baseUrl} (port ${port}, ${db}).\nOpenAPI document: ${config.baseUrl}/openapi.json\nLive mode: ${describeLive(config)}\nEmails: ${describeMail(config)}.\n${services.trustedLists ? `PDF signatures: ${services.trustedLists.describe(services.trustStore.roots.length)}\n` : ''}`;
  if (firstKey) {
    banner +=
      `\nAn account named "${config.firstAccountName}" was created (${firstAccount}); people see its name on verification pages and\n` +
      (config.firstAccountName === DEFAULT_ACCOUNT_NAME
        ? `in emails. Rename it: npm run -s cotejo -- accounts update --account ${firstAccount} --name "Your company"\n(or name it at the first start: COTEJO_ACCOUNT_NAME="Your company" npm start).\n`
        : 'in emails.\n') +
      `Its test key (shown once, store it now):\n\n  ${firstKey}\n\n` +
      `and its live key (reads real documents; 50 free credits a month):\n\n  ${firstLiveKey}\n\n` +
      `Try:  curl -H "Authorization: Bearer ${firstKey}" ${config.baseUrl}/v1/webhook-endpoints\n` +
      'More accounts and keys: npm run -s cotejo -- accounts create --json\n' +
      'Lost a key? Stop the server, then: npm run -s cotejo -- accounts list, and keys create --account acct_...\n';
  }
  process.stdout.write(`${banner}\n`);
  // After the banner: a person reads the banner first (the log lines are for machines).
  logger.info({ port, database: services.database.kind }, 'listening');
  if (firstAccount) logger.info({ account: firstAccount }, 'created the first account');
}

/** What live keys read with, in one line of the banner. */
function describeLive(config: Config): string {
  const local = config.liveReaders.size > 0 ? `local readers (${[...config.liveReaders].join(', ')})` : null;
  const m = config.mistral;
  const mistral = m ? `Mistral at ${m.baseUrl ?? 'https://api.eu.mistral.ai'} (${m.chatModel}, OCR ${m.ocrModel})` : null;
  if (local && mistral) return `${local}, then ${mistral}.`;
  if (mistral) return `${mistral} alone.`;
  if (local) return `${local}; set MISTRAL_API_KEY to add Mistral (docs/live-mode.md).`;
  return 'off (COTEJO_LIVE_READERS=none and no MISTRAL_API_KEY): live keys get 503 live_mode_unavailable.';
}

/** Resolves once the server listens; rejects with the listen error (EADDRINUSE...) instead of crashing. */
function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

main().catch((err) => {
  // A setting the operator can fix (port in use, data directory, database unreachable): one line, no stack.
  let config;
  try {
    config = loadConfig();
  } catch {
    config = undefined;
  }
  const line = describeStartupError(err, config);
  process.stderr.write(line ? `Cotejo could not start: ${line}\n` : `Cotejo failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
