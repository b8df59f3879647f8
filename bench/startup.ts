// Start-up: time from spawn to the first 200 of `GET /v1/document-types?limit=1` (polled every 20 ms) for a
// fresh data dir (first start: migrations, default account), the same data dir started again, and the Prism mock
// of the same contract for reference; then the idle memory of the process.
// Usage: node bench/startup.ts [--server DIR] [--label TEXT] [--db pglite|postgres] [--rounds N]
//   --server: another checkout to measure (e.g. a `git worktree` of an older commit, with node_modules linked);
//   default this one. --db: embedded PGlite (default), or PostgreSQL: "fresh" is then a new database made with
//   createdb (127.0.0.1, user postgres; BENCH_PG_HOST / BENCH_PG_USER) and "existing" the same database started
//   again; every database is dropped at the end. --rounds (default 3): each round starts fresh, existing and Prism
//   (Prism first in even rounds). Appends rows to bench/results/startup.md.
//
// The port is chosen beforehand (PORT=<free port>) so that polling can begin at spawn. Memory: one authenticated
// request (`GET /v1/balance` with the default account's test key) right after the first 200, then VmRSS and VmHWM
// from /proc 5 s after the first 200 (idle). The time from SIGTERM to exit is shown too.
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import { appendResults, arg, dbOption, dropStore, fmt, freePort, freshStore, machine, mb, median, procKb, sleep, spawnPrism, spawnTracked, stop, target, utcMinute, type Store } from './lib/harness.ts';

const { server: SERVER, label: LABEL } = target();
const DB = dbOption();
const ROUNDS = Number(arg('--rounds')) || 3;
const IDLE_AFTER_MS = 5_000;
const OUT = join(import.meta.dirname, 'results/startup.md');

/** Status of one GET, or 0 when it could not connect. */
function status(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((ok) => {
    const req = http.get(url, { headers, agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => ok(res.statusCode ?? 0));
      res.on('error', () => ok(0));
    });
    req.on('error', () => ok(0));
    req.on('timeout', () => req.destroy());
  });
}

type Measure = { case: string; bannerMs: number; first200Ms: number; idleRssKb: number; hwmKb: number; stopMs: number; key?: string };

/** Spawns (via `spawn`), polls for the first 200, warms up, waits, reads memory, stops. */
async function measure(name: string, spawnIt: (port: number) => ChildProcess, key?: string): Promise<Measure> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawnIt(port);
  let out = '';
  let bannerMs = NaN;
  child.stdout?.on('data', (d) => {
    out += String(d);
    if (Number.isNaN(bannerMs) && /\(port \d+,/.test(out)) bannerMs = performance.now() - t0;
  });
  child.stderr?.on('data', (d) => (out += String(d)));
  try {
    let first200Ms = NaN;
    while (performance.now() - t0 < 180_000) {
      if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}):\n${out}`);
      const tick = performance.now();
      if ((await status(`${base}/v1/document-types?limit=1`)) === 200) {
        first200Ms = performance.now() - t0;
        break;
      }
      await sleep(Math.max(0, 20 - (performance.now() - tick)));
    }
    if (Number.isNaN(first200Ms)) throw new Error(`${name}: no 200 within 180 s:\n${out}`);
    const at200 = performance.now();
    // The banner (with a first start's key) may reach the pipe just after the first 200: wait for it a little.
    let foundKey = key ?? /\b(ck_test_[0-9A-Za-z]+)/.exec(out)?.[1];
    for (let waited = 0; !foundKey && waited < 5_000; waited += 20) {
      await sleep(20);
      foundKey = /\b(ck_test_[0-9A-Za-z]+)/.exec(out)?.[1];
    }
    const balance = await status(`${base}/v1/balance`, { Authorization: `Bearer ${foundKey ?? 'ck_test_none'}` });
    if (balance !== 200) throw new Error(`${name}: GET /v1/balance answered ${balance}`);
    await sleep(Math.max(0, IDLE_AFTER_MS - (performance.now() - at200)));
    const idleRssKb = procKb(child.pid!, 'VmRSS');
    const hwmKb = procKb(child.pid!, 'VmHWM');
    const s0 = performance.now();
    await stop(child);
    const stopMs = performance.now() - s0;
    return { case: name, bannerMs, first200Ms, idleRssKb, hwmKb, stopMs, key: foundKey };
  } finally {
    await stop(child);
  }
}

const cotejo = (store: Store) => (port: number) =>
  spawnTracked(process.execPath, ['server/src/main.ts'], {
    cwd: SERVER,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'silent', COTEJO_DATA_DIR: store.dataDir, DATABASE_URL: store.databaseUrl },
  });

const freshName = DB === 'pglite' ? 'Cotejo, fresh data dir' : 'Cotejo, fresh database';
const existingName = DB === 'pglite' ? 'Cotejo, existing data dir' : 'Cotejo, existing database';
const results: { round: number; m: Measure }[] = [];
const say = (round: number, m: Measure) =>
  process.stdout.write(
    `round ${round} ${m.case}: banner ${fmt(m.bannerMs)} ms, first 200 ${fmt(m.first200Ms)} ms, idle RSS ${mb(m.idleRssKb)}, VmHWM ${mb(m.hwmKb)}, stop ${fmt(m.stopMs)} ms\n`,
  );
for (let round = 1; round <= ROUNDS; round++) {
  const prismFirst = round % 2 === 0;
  if (prismFirst) {
    const m = await measure('Prism mock', (port) => spawnPrism(SERVER, port), 'ck_test_prism');
    results.push({ round, m });
    say(round, m);
  }
  const store = freshStore(DB, 'cotejo-bench-startup-');
  const fresh = await measure(freshName, cotejo(store));
  results.push({ round, m: fresh });
  say(round, fresh);
  const existing = await measure(existingName, cotejo(store), fresh.key);
  results.push({ round, m: existing });
  say(round, existing);
  dropStore(store);
  if (!prismFirst) {
    const m = await measure('Prism mock', (port) => spawnPrism(SERVER, port), 'ck_test_prism');
    results.push({ round, m });
    say(round, m);
  }
}

const when = utcMinute();
const mach = machine(DB === 'pglite' ? 'embedded PGlite' : 'PostgreSQL (local, fresh database per round)');
const sec = (msv: number) => (Number.isFinite(msv) ? (msv / 1000).toFixed(2) : '-');
const out = results.map(
  ({ round, m }) => `| ${when} | ${LABEL} | ${DB} | ${round} | ${m.case} | ${sec(m.bannerMs)} | ${sec(m.first200Ms)} | ${mb(m.idleRssKb)} | ${mb(m.hwmKb)} | ${sec(m.stopMs)} | ${mach} |`,
);
for (const name of [freshName, existingName, 'Prism mock']) {
  const ms = results.filter((r) => r.m.case === name).map((r) => r.m);
  const med = (f: (m: Measure) => number) => median(ms.map(f));
  out.push(
    `| ${when} | ${LABEL} | ${DB} | median of ${ROUNDS} | **${name}** | ${sec(med((m) => m.bannerMs))} | **${sec(med((m) => m.first200Ms))}** | **${mb(med((m) => m.idleRssKb))}** | ${mb(med((m) => m.hwmKb))} | ${sec(med((m) => m.stopMs))} | |`,
  );
}
appendResults(
  OUT,
  [
    '# Start-up: spawn to the first 200, and idle memory',
    '',
    'Generated by `node bench/startup.ts` (rows appended per run). A real server process (`node server/src/main.ts`,',
    'PORT=<a free port chosen beforehand>, LOG_LEVEL=silent) is spawned and `GET /v1/document-types?limit=1` is polled',
    'every 20 ms from the spawn until it answers 200. "Fresh" is a new data dir (or a new PostgreSQL database):',
    'migrations, the default account; "existing" is the same data dir (database) started again right after. The',
    'Prism mock of the same contract (`prism mock generated/openapi.json`, one process, `-v error`) is the reference.',
    'Banner: spawn to the line that names the port (Prism prints none here). After the first 200, one authenticated',
    '`GET /v1/balance`; 5 s after the first 200 the resident set (`VmRSS`) and its high-water mark (`VmHWM`) are read',
    'from /proc. Stop: SIGTERM to exit. Times in seconds; the rounds alternate the order (Prism first in even ones).',
    'Machine ends with the share of the CPUs busy in the second before the run started (others\' work: the machine is shared).',
    '',
    '| Measured (UTC) | Code | DB | Round | Case | Spawn to banner (s) | Spawn to first 200 (s) | Idle RSS | VmHWM | Stop (s) | Machine |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ],
  out,
);
process.stdout.write(`${out.join('\n')}\n`);
