import http from 'node:http';
import { buildApp } from './app.ts';
import { systemClock } from './clock.ts';
import { ConfigError, loadConfig } from './config.ts';
import { countAccounts } from './db/accounts.ts';
import { DataDirLockedError } from './db/database.ts';
import { answerClientErrors } from './http/client-errors.ts';
import { createAccount } from './domain/accounts.ts';
import { releaseLeasesOfDeadProcesses } from './jobs/recovery.ts';
import { startWorker } from './jobs/worker.ts';
import { createLogger } from './logger.ts';
import { openServices } from './services.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  let services;
  try {
    services = await openServices(config, systemClock, logger);
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }

  // The embedded database is this process's alone: a lease in it belongs to a process that died (kill -9, power loss).
  if (services.database.kind === 'pglite') {
    const freed = await releaseLeasesOfDeadProcesses(services.db, services.clock.now());
    if (freed.jobs + freed.deliveries + freed.idempotencyKeys > 0) logger.info(freed, 'took up the work of a process that stopped without finishing it');
  }

  // First start on an empty database: make a default account so a newcomer can call the API at once.
  let firstKey: string | undefined;
  let firstLiveKey: string | undefined;
  if ((await countAccounts(services.db)) === 0) {
    // The instance's operator owns this account: its monthly free tier is usable at once (docs/decisions.md).
    const created = await createAccount(services.db, services.clock, { name: 'Default account', emailVerified: true });
    firstKey = created.keys.test;
    firstLiveKey = created.keys.live;
    logger.info({ account: created.account }, 'created the default account');
  }

  const app = buildApp(services);
  const worker = startWorker(services);
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 120_000;
  answerClientErrors(server, services.logger);
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // PORT=0 picks a free port: the default base URL (signed URLs, the banner) names the one chosen.
  if (config.port === 0 && !process.env.COTEJO_BASE_URL) config.baseUrl = `http://localhost:${port}`;
  const db = services.database.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)';
  logger.info({ port, database: services.database.kind }, 'listening');
  // One write, so whoever reads the output sees the whole banner at once.
  let banner = `\nCotejo is running at ${config.baseUrl} (port ${port}, ${db}).\nOpenAPI document: ${config.baseUrl}/openapi.json\n`;
  if (firstKey) {
    banner +=
      `\nA default account was created. Its test key (shown once, store it now):\n\n  ${firstKey}\n\n` +
      `and its live key (reads real documents with the local readers; 50 free credits a month):\n\n  ${firstLiveKey}\n\n` +
      `Try:  curl -H "Authorization: Bearer ${firstKey}" ${config.baseUrl}/v1/webhook-endpoints\n` +
      'More accounts and keys: npm run cotejo -- accounts create --json\n';
  }
  process.stdout.write(`${banner}\n`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 25_000);
    force.unref();
    server.close(async () => {
      // Synchronous analyses that answered 202 finish their reading first (the force timer bounds the wait).
      await Promise.allSettled([...services.inflight]);
      await worker.stop();
      await services.database.close();
      logger.info('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`Cotejo failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
