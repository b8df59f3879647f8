// Batch throughput and webhook delivery throughput/latency, against the real app over HTTP on 127.0.0.1.
// Usage: node bench/batch-and-webhooks.ts [--db pglite|postgres] [--runs N] [--events N]
//   postgres: DATABASE_URL=postgres://postgres@127.0.0.1:5432/test (a schema of its own, dropped at the end)
// Writes (or replaces) this database's section of bench/results/batch-and-webhooks.md.
//
// The worker is the production one (`startWorker(services)`, default 250 ms poll, 10 deliveries per
// claim, a fresh TLS connection per delivery). The receiver's self-signed certificate is added to Node's
// default CA set with tls.setDefaultCACertificates, the in-process equivalent of NODE_EXTRA_CA_CERTS, so
// the sender runs with production options (no `ca` override); `allowPrivateUrls` lets it reach 127.0.0.1.
import { execSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { totalmem } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { emitEvent } from "../server/src/domain/events.ts";
import { startWorker, type Worker } from "../server/src/jobs/worker.ts";
import {
  startTestApp,
  type DbKind,
  type TestApp,
} from "../test/support/app.ts";
import { fixtures } from "../test/support/files.ts";
import {
  startBenchReceiver,
  type BenchReceiver,
  type Received,
} from "./lib/webhook-receiver.ts";

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const KIND = (arg("--db") ?? "pglite") as DbKind;
if (KIND !== "pglite" && KIND !== "postgres")
  throw new Error("--db pglite|postgres");
if (KIND === "postgres")
  process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/test";
const RUNS = Number(arg("--runs")) || 3;
const EVENTS = Number(arg("--events")) || 1000;
/** Concurrent emitters (the PostgreSQL pool has 5 connections; PGlite runs one statement at a time anyway). */
const EMITTERS = Number(arg("--emitters")) || 5;
const BATCH_SIZE = 100;
const BATCH_TIMEOUT_MS = 120_000;
const EVENTS_TIMEOUT_MS = 150_000;
const OUT = join(import.meta.dirname, "results/batch-and-webhooks.md");

const NAMES = [
  "dni_valid.jpg",
  "passport.jpg",
  "blurry.jpg",
  "es_dni_failed.jpg",
  "es_passport.jpg",
  "dni_glare.jpg",
  "driving_license.jpg",
  "invoice.jpg",
  "dni_cropped.jpg",
  "passport_low_quality.jpg",
];

const pct = (sorted: number[], p: number): number =>
  sorted[
    Math.min(
      sorted.length - 1,
      Math.max(0, Math.ceil((p / 100) * sorted.length) - 1),
    )
  ];
const median = (xs: number[]): number =>
  pct(
    [...xs].sort((a, b) => a - b),
    50,
  );
const f1 = (x: number): string => x.toFixed(1);
const f0 = (x: number): string => x.toFixed(0);

/** Resolves with the first received request matching `pred` (already received or to come), or rejects after `ms`. */
function waitFor(
  rx: BenchReceiver,
  pred: (r: Received) => boolean,
  ms: number,
): Promise<Received> {
  const seen = rx.received.find(pred);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      rx.onReceive = null;
      reject(new Error(`timed out after ${ms} ms`));
    }, ms);
    rx.onReceive = (r) => {
      if (!pred(r)) return;
      clearTimeout(timer);
      rx.onReceive = null;
      resolve(r);
    };
  });
}

async function createEndpoint(
  app: TestApp,
  rx: BenchReceiver,
  path: string,
  events: string[],
): Promise<string> {
  const res = await app.request("POST", "/v1/webhook-endpoints", {
    json: { url: rx.url(path), events },
  });
  if (res.status !== 201)
    throw new Error(`endpoint: HTTP ${res.status} ${res.text}`);
  rx.secrets.set(path, res.body.secret);
  return res.body.id;
}

interface BatchRun {
  postMs: number;
  totalMs: number;
  processingMs: number;
  exportsMs: number;
  deliveryMs: number;
  counts: Record<string, number>;
  verified: boolean;
}

async function benchBatch(
  app: TestApp,
  rx: BenchReceiver,
): Promise<BatchRun[]> {
  await createEndpoint(app, rx, "/batch", ["batch.completed"]);
  const jpeg = fixtures.jpeg();
  const runs: BatchRun[] = [];
  for (let run = 0; run < RUNS; run++) {
    const fd = new FormData();
    for (let i = 0; i < BATCH_SIZE; i++)
      fd.append(
        "files[]",
        new Blob([jpeg as Uint8Array<ArrayBuffer>], { type: "image/jpeg" }),
        NAMES[i % NAMES.length],
      );
    fd.append("options", JSON.stringify({ metadata: { bench: `run-${run}` } }));
    const t0 = Date.now();
    const res = await fetch(`${app.baseUrl}/v1/batches`, {
      method: "POST",
      headers: { Authorization: `Bearer ${app.account.keys.test}` },
      body: fd,
    });
    const body = (await res.json()) as any;
    const accepted = Date.now();
    if (res.status !== 202)
      throw new Error(`batch: HTTP ${res.status} ${JSON.stringify(body)}`);
    const hook = await waitFor(
      rx,
      (r) => r.path === "/batch" && r.body?.data?.id === body.id,
      BATCH_TIMEOUT_MS,
    );
    const completedAt = Date.parse(hook.body.data.completed_at);
    const eventAt = Date.parse(hook.body.created_at);
    const r: BatchRun = {
      postMs: accepted - t0,
      totalMs: hook.receivedAt - accepted,
      processingMs: completedAt - accepted,
      exportsMs: eventAt - completedAt,
      deliveryMs: hook.receivedAt - eventAt,
      counts: hook.body.data.counts,
      verified: hook.verified,
    };
    runs.push(r);
    console.error(
      `[${KIND}] batch run ${run + 1}: POST ${r.postMs} ms, 202 -> batch.completed received ${r.totalMs} ms (completed_at ${r.processingMs} ms, exports+event ${r.exportsMs} ms, event -> receipt ${r.deliveryMs} ms), verified=${r.verified}, counts=${JSON.stringify(r.counts)}`,
    );
  }
  return runs;
}

interface EventsRun {
  emitMs: number;
  totalMs: number;
  received: number;
  unique: number;
  verified: number;
  latencies: number[];
  connections: number;
}

/**
 * 1,000 events through `emitEvent`, the events module's one writer (domain/events.ts), which the pipeline, batches, reviews, dossiers and links use (outbox row plus fan-out in
 * one transaction), with a small payload; emitted back to back while the production worker delivers.
 * Latency: the event's `created_at` (the clock when it was written) to the receiver's arrival stamp.
 */
async function benchEvents(
  app: TestApp,
  rx: BenchReceiver,
): Promise<EventsRun> {
  await createEndpoint(app, rx, "/all", ["*"]);
  const before = rx.received.length;
  const conns0 = rx.connections();
  const scope = { account_id: app.account.account, livemode: false };
  const ids = new Set<string>();
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  rx.onReceive = (r) => {
    if (r.path !== "/all") return;
    ids.add(r.webhookId);
    if (ids.size >= EVENTS) done();
  };
  const t0 = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: EMITTERS }, async () => {
      for (let i; (i = next++) < EVENTS;)
        await emitEvent(app.services, scope, "analysis.completed", {
          id: `bench_${i}`,
          object: "bench",
          seq: i,
        });
    }),
  );
  const emitMs = Date.now() - t0;
  console.error(`[${KIND}] emitted ${EVENTS} events in ${emitMs} ms`);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    all,
    new Promise(
      (_, reject) =>
        (timer = setTimeout(
          () =>
            reject(
              new Error(
                `only ${ids.size}/${EVENTS} deliveries after ${EVENTS_TIMEOUT_MS} ms`,
              ),
            ),
          EVENTS_TIMEOUT_MS,
        )),
    ),
  ]);
  clearTimeout(timer);
  rx.onReceive = null;
  const got = rx.received.slice(before).filter((r) => r.path === "/all");
  const last = Math.max(...got.map((r) => r.receivedAt));
  return {
    emitMs,
    totalMs: last - t0,
    received: got.length,
    unique: ids.size,
    verified: got.filter((r) => r.verified).length,
    latencies: got
      .map((r) => r.receivedAt - Date.parse(r.body.created_at))
      .sort((a, b) => a - b),
    connections: rx.connections() - conns0,
  };
}

function machine(): string {
  const cpu =
    /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ??
    "unknown";
  const nproc = execSync("nproc").toString().trim();
  let db = "PGlite (in-memory, in process)";
  if (KIND === "postgres") {
    let version = "";
    try {
      version = execSync(
        `psql "${process.env.DATABASE_URL}" -Atc "show server_version"`,
        { stdio: ["ignore", "pipe", "ignore"] },
      )
        .toString()
        .trim();
    } catch {
      /* psql missing: version unknown */
    }
    db = `PostgreSQL ${version} on 127.0.0.1 (pool of 5)`;
  }
  return `${nproc} CPUs (nproc), ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM; Node ${process.version}; ${db}`;
}

function section(batch: BatchRun[], ev: EventsRun): string {
  const totals = batch.map((r) => r.totalMs).sort((a, b) => a - b);
  const med = median(totals);
  const L = ev.latencies;
  const lines = [
    `## ${KIND === "pglite" ? "PGlite" : "PostgreSQL"}`,
    "",
    `Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC. Machine: ${machine()}.`,
    "",
    `### Batch of ${BATCH_SIZE} test documents (${RUNS} runs)`,
    "",
    `From the 202 of \`POST /v1/batches\` (${BATCH_SIZE} \`files[]\`, the ${(fixtures.jpeg().length / 1024).toFixed(0)} KiB fixture JPEG under ${NAMES.length} test-mode names in rotation) to the \`batch.completed\` webhook arriving, verified, at the local HTTPS receiver.`,
    "",
    "| | min | median | max |",
    "|---|---|---|---|",
    `| 202 -> batch.completed received (ms) | ${f0(totals[0])} | ${f0(med)} | ${f0(totals[totals.length - 1])} |`,
    `| documents per second | ${f1(BATCH_SIZE / (totals[totals.length - 1] / 1000))} | ${f1(BATCH_SIZE / (med / 1000))} | ${f1(BATCH_SIZE / (totals[0] / 1000))} |`,
    "",
    "| run | POST until 202 (ms) | 202 -> completed_at (ms) | completed_at -> event created: exports (ms) | event created -> received (ms) | total (ms) | counts | signature verified |",
    "|---|---|---|---|---|---|---|---|",
    ...batch.map(
      (r, i) =>
        `| ${i + 1} | ${r.postMs} | ${r.processingMs} | ${r.exportsMs} | ${r.deliveryMs} | ${r.totalMs} | ${Object.entries(
          r.counts,
        )
          .filter(([, v]) => v > 0)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")} | ${r.verified ? "yes" : "**no**"} |`,
    ),
    "",
    `### ${EVENTS} webhook deliveries`,
    "",
    `${EVENTS} events emitted back to back with \`emitEvent\` (small payload, ${EMITTERS} concurrent emitters), one endpoint subscribed to \`*\`; the production worker delivers while they are emitted.`,
    "",
    "| | value |",
    "|---|---|",
    `| emitting ${EVENTS} events (ms) | ${ev.emitMs} (${f0(EVENTS / (ev.emitMs / 1000))} events/s) |`,
    `| first emit -> last delivery received (ms) | ${ev.totalMs} |`,
    `| deliveries per second (end to end) | ${f1(ev.unique / (ev.totalMs / 1000))} |`,
    `| received / unique webhook-id / verified (HMAC + standardwebhooks) | ${ev.received} / ${ev.unique} / ${ev.verified} |`,
    `| TLS connections opened | ${ev.connections} |`,
    `| latency event created -> received, p50 / p95 / p99 / max (ms) | ${pct(L, 50)} / ${pct(L, 95)} / ${pct(L, 99)} / ${L[L.length - 1]} |`,
    "",
  ];
  return lines.join("\n");
}

function writeResults(body: string): void {
  const header = [
    "# Batch processing and webhook deliveries",
    "",
    "Generated by `node bench/batch-and-webhooks.ts --db pglite` and `--db postgres` (each run replaces its own section).",
    "The real app (`buildApp` + `openServices`, as `test/support/app.ts` starts it) on 127.0.0.1, a fresh database, the",
    "production worker (`startWorker(services)`: 250 ms idle poll, deliveries claimed 10 at a time and sent concurrently,",
    "a fresh TLS connection each), test-mode keys (simulated readings), and an HTTPS receiver on 127.0.0.1 in the same",
    "process that verifies every signature (recomputed HMAC-SHA256 and `standardwebhooks`).",
    "",
    "<!-- reading -->",
    "<!-- /reading -->",
    "",
  ].join("\n");
  let doc = existsSync(OUT) ? readFileSync(OUT, "utf8") : header;
  const start = `<!-- ${KIND} -->`;
  const end = `<!-- /${KIND} -->`;
  const block = `${start}\n${body}${end}\n`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i >= 0 && j > i)
    doc = doc.slice(0, i) + block + doc.slice(j + end.length + 1);
  else doc = `${doc.trimEnd()}\n\n${block}`;
  writeFileSync(OUT, doc);
}

async function main(): Promise<void> {
  const rx = await startBenchReceiver();
  tls.setDefaultCACertificates([...tls.getCACertificates("default"), rx.ca]);
  let app: TestApp | undefined;
  let worker: Worker | undefined;
  try {
    app = await startTestApp(KIND, { config: { allowPrivateUrls: true } });
    worker = startWorker(app.services);
    const batch = await benchBatch(app, rx);
    const ev = await benchEvents(app, rx);
    console.error(
      `[${KIND}] ${EVENTS} deliveries: ${ev.totalMs} ms, verified ${ev.verified}, p50/p95/p99 ${pct(ev.latencies, 50)}/${pct(ev.latencies, 95)}/${pct(ev.latencies, 99)} ms`,
    );
    writeResults(section(batch, ev));
    console.error(`wrote ${OUT}`);
  } finally {
    await worker?.stop();
    await app?.close();
    await rx.close();
  }
}

// A hard stop, whatever happens (unref'd: it never keeps the process alive).
setTimeout(() => {
  console.error("benchmark exceeded 5 minutes; exiting");
  process.exit(2);
}, 300_000).unref();

await main();
