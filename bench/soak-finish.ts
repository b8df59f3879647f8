// Finishes a PGlite soak (bench/soak.ts --db pglite) that was stopped before its end (a deadline): the bench process
// killed with SIGKILL leaves its server's data directory behind. This stops that server (its pid), starts the server
// again on the same data directory with a receiver of its own on the old receiver's port (so the deliveries still
// pending succeed: a new certificate, trusted through NODE_EXTRA_CA_CERTS), waits until no job and no delivery is
// pending ("after the run"), then does what the bench does at its end: stop, wait a minute, start with the shortest
// COTEJO_RETENTION_* periods and wait until two snapshots 20 s apart agree ("after the retention sweeps").
// Prints both snapshots as JSON and as the columns of the bench's tables; removes the data directory at the end.
//
// Usage: node bench/soak-finish.ts --data-dir /tmp/cotejo-soak-XXXX --server-pid PID --receiver-port PORT [--out FILE]
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { selfSignedCert } from '../test/unit/webhooks/receiver.ts';
import { arg, freePort, ROOT, sleep, startCotejo, stop, tempDir, type Cotejo } from './lib/harness.ts';

const dataDir = arg('--data-dir')!;
const serverPid = Number(arg('--server-pid'));
const receiverPort = Number(arg('--receiver-port'));
const out = arg('--out');
if (!dataDir || !serverPid || !receiverPort) throw new Error('--data-dir, --server-pid and --receiver-port are required');
const log = (m: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${m}\n`);

interface Stats {
  dbBytes: number;
  tables: Record<string, { rows: number; bytes: number }>;
  pending: { jobs: number; deliveries: number };
}
const statsPort = await freePort();
const stats = async (): Promise<Stats & { diskBytes: number }> => {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(`http://127.0.0.1:${statsPort}/stats`);
      if (res.ok) {
        const s = (await res.json()) as Stats;
        return { ...s, diskBytes: Number(execFileSync('du', ['-sb', join(dataDir, 'pgdata')]).toString().split(/\s/)[0]) };
      }
    } catch {
      /* not up yet */
    }
    if (attempt > 60) throw new Error('no stats');
    await sleep(1000);
  }
};

// The old server: a graceful stop (it finishes what it is doing), then its data directory is ours.
log(`stopping server ${serverPid}`);
try {
  process.kill(-serverPid, 'SIGTERM');
} catch {
  process.kill(serverPid, 'SIGTERM');
}
for (let i = 0; i < 60; i++) {
  try {
    process.kill(serverPid, 0);
    await sleep(1000);
  } catch {
    break;
  }
}

const { cert, key } = await selfSignedCert();
const caFile = join(tempDir('cotejo-soak-finish-ca-'), 'ca.pem');
writeFileSync(caFile, cert);
let received = 0;
const receiver = https.createServer({ cert, key }, (req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.writeHead(200).end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));

const store = { dataDir, databaseUrl: '' };
const nodeArgs = ['--import', join(import.meta.dirname, 'lib/pglite-stats.ts')];
const env = (extra: Record<string, string> = {}) => ({ COTEJO_ALLOW_PRIVATE_URLS: 'true', NODE_EXTRA_CA_CERTS: caFile, SOAK_STATS_PORT: String(statsPort), ...extra });
let cotejo: Cotejo | null = null;
const snaps: Array<{ label: string } & Stats & { diskBytes: number }> = [];
try {
  cotejo = await startCotejo(ROOT, store, { env: env(), nodeArgs });
  const started = Date.now();
  for (;;) {
    const s = await stats();
    if (s.pending.jobs === 0 && s.pending.deliveries === 0) break;
    log(`waiting: ${s.pending.jobs} jobs, ${s.pending.deliveries} deliveries pending; ${received} webhooks received`);
    await sleep(10_000);
  }
  log(`drained in ${((Date.now() - started) / 1000).toFixed(0)} s; ${received} webhooks received`);
  snaps.push({ label: 'after the run', ...(await stats()) });
  await stop(cotejo.child);
  await sleep(62_000);
  cotejo = await startCotejo(ROOT, store, {
    env: env({ COTEJO_RETENTION_JOBS: '1m', COTEJO_RETENTION_EVENTS: '1m', COTEJO_RETENTION_EXPORTS: '1m', COTEJO_RETENTION_USAGE_DETAIL: '1m' }),
    nodeArgs,
  });
  let prev = '';
  for (let i = 0; i < 30; i++) {
    await sleep(20_000);
    const s = await stats();
    const sig = Object.entries(s.tables)
      .map(([t, v]) => `${t}=${v.rows}`)
      .join(',');
    if (sig === prev) {
      snaps.push({ label: 'after the retention sweeps', ...s });
      break;
    }
    prev = sig;
  }
  const kb = (b: number) => `${Math.round(b / 1024)}`;
  const tables = Object.keys(snaps[0].tables).sort();
  const md = [
    `| pg_database_size | ${snaps.map((s) => kb(s.dbBytes)).join(' | ')} |`,
    `| data directory on disk (du) | ${snaps.map((s) => kb(s.diskBytes)).join(' | ')} |`,
    '',
    ...tables.map((t) => `| ${t} rows | ${snaps.map((s) => s.tables[t]?.rows ?? 0).join(' | ')} |`),
    '',
    ...tables.map((t) => `| ${t} KiB | ${snaps.map((s) => kb(s.tables[t]?.bytes ?? 0)).join(' | ')} |`),
  ].join('\n');
  process.stdout.write(`\n${md}\n`);
  if (out) writeFileSync(out, JSON.stringify({ received, snaps }, null, 2));
} finally {
  if (cotejo) await stop(cotejo.child);
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
}
