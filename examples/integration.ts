/**
 * The integration scenario, with the TypeScript SDK; examples/integration.py is the same with the Python SDK, line
 * for line, and prints the same lines (test/sdk-python/python.test.ts runs both against one server and compares them).
 *
 *   node examples/make-cert.mjs                                  # a certificate for the local receiver
 *   COTEJO_ALLOW_PRIVATE_URLS=true NODE_EXTRA_CA_CERTS=examples/.certs/receiver.pem npm start
 *   COTEJO_API_KEY=ck_test_... node examples/integration.ts      # Node 24 (npm's node_modules/.bin)
 *
 * 1. analyze with expect: a DNI, synchronously, with its verdict;
 * 2. async + webhook verify: a queued analysis, finished when its signed `analysis.completed` arrives and verifies;
 * 3. batch: three documents in one batch, polled until completed, and its verified `batch.completed`;
 * 4. paginate: every analysis of this run by its metadata, two per page;
 * 5. review: a blurry DNI goes to human review, listed as pending, then approved.
 * The webhook endpoint it creates is deleted however it ends. COTEJO_BASE_URL (default http://localhost:8080) and
 * COTEJO_QUICKSTART_CERT_DIR (default examples/.certs) as for the quickstart (docs/quickstart.md).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Cotejo, type WebhookEvent } from '../sdk/src/index.ts';

const CERT_DIR = process.env.COTEJO_QUICKSTART_CERT_DIR ? path.resolve(process.env.COTEJO_QUICKSTART_CERT_DIR) : path.join(import.meta.dirname, '.certs');
/** Any picture will do in test mode (the file name chooses the simulated reading): a 16x16 grey JPEG. */
const PHOTO = Buffer.from(
  '/9j/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2' +
    'NjY2NjY2P/wAARCAAQABADASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAb/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFAEBAAAAAAAAAAAAAAAAAAAAAv/EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/ALMAhf/Z',
  'base64',
);

/** Events by object id, as the receiver verifies them; `waitFor` resolves when one arrives (or has arrived). */
class Inbox {
  readonly #events = new Map<string, WebhookEvent>();
  readonly #waiting = new Map<string, (e: WebhookEvent) => void>();

  add(event: WebhookEvent): void {
    const key = `${event.type}:${(event.data as { id: string }).id}`;
    this.#events.set(key, event);
    this.#waiting.get(key)?.(event);
  }

  waitFor(type: string, id: string, ms = 30_000): Promise<WebhookEvent> {
    const key = `${type}:${id}`;
    const seen = this.#events.get(key);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} webhook for ${id} within ${ms / 1000} s`)), ms);
      this.#waiting.set(key, (e) => {
        clearTimeout(timer);
        resolve(e);
      });
    });
  }
}

export async function main(log: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<void> {
  const cotejo = new Cotejo({ baseURL: process.env.COTEJO_BASE_URL || 'http://localhost:8080' }); // COTEJO_API_KEY
  const inbox = new Inbox();
  let secret = '';

  // The receiver: HTTPS (Cotejo delivers only there), verifying the RAW body before anything else.
  const receiver = https.createServer(
    { cert: fs.readFileSync(path.join(CERT_DIR, 'receiver.pem')), key: fs.readFileSync(path.join(CERT_DIR, 'receiver-key.pem')) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        cotejo.webhooks.verify(secret, req.headers, Buffer.concat(chunks)).then(
          (event) => {
            res.writeHead(204).end();
            inbox.add(event);
          },
          () => res.writeHead(400).end(),
        );
      });
    },
  );
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/cotejo`;
  const endpoint = await cotejo.webhookEndpoints.create({ url, events: ['analysis.completed', 'batch.completed'] });
  secret = endpoint.secret;
  log(`webhook endpoint ${endpoint.id} -> ${url}`);
  const run = { run: randomUUID() }; // this run's analyses, for the pagination step

  try {
    // 1. Analyze with expect.
    const dni = await cotejo.analyses.create({ file: PHOTO, filename: 'dni_valid.jpg', expect: 'es_dni', checks: { min_age_years: 18 }, metadata: run });
    log(`analyze: ${dni.id} ${dni.status}, ${dni.document?.type}, verdict ${dni.verdict?.status}`);

    // 2. Async, finished by its verified webhook.
    const queued = await cotejo.analyses.create({ file: PHOTO, filename: 'passport.jpg', expect: ['passport', 'es_dni'], async: true, metadata: run });
    log(`async: ${queued.id} ${queued.status}`);
    const completed = await inbox.waitFor('analysis.completed', queued.id);
    const analysis = completed.data as { id: string; status: string; verdict: { status: string } | null };
    log(`async: verified webhook ${completed.type} for ${analysis.id}: ${analysis.status}, verdict ${analysis.verdict?.status}`);

    // 3. Batch.
    const names = ['dni_valid.jpg', 'dni_expired.jpg', 'dni_valid_2.jpg'];
    const created = await cotejo.batches.create({ files: names.map((filename) => ({ file: PHOTO, filename })), options: { expect: 'es_dni', metadata: run } });
    const batch = await cotejo.batches.poll(created.id, { pollIntervalMs: 200, maxWaitMs: 60_000 });
    const verdicts = [];
    for (const id of batch.analyses) verdicts.push((await cotejo.analyses.retrieve(id)).verdict?.status);
    log(`batch: ${batch.id} ${batch.status}, ${batch.total} documents: ${verdicts.join(', ')}`);
    const done = await inbox.waitFor('batch.completed', batch.id);
    log(`batch: verified webhook ${done.type} for ${(done.data as { id: string }).id}`);

    // 4. Paginate: every analysis of this run, two per page.
    const first = await cotejo.analyses.list({ metadata: run, limit: 2 });
    let seen = 0;
    for await (const _ of cotejo.analyses.list({ metadata: run, limit: 2 })) seen++;
    log(`paginate: ${first.data.length} on the first page, more: ${first.has_more}; ${seen} in all`);

    // 5. Review.
    const blurry = await cotejo.analyses.create({ file: PHOTO, filename: 'blurry.jpg', expect: 'es_dni', metadata: run });
    const pending = [];
    for await (const a of cotejo.reviews.list({ metadata: run })) pending.push(a.id);
    log(`review: ${blurry.id} verdict ${blurry.verdict?.status}, review ${blurry.review?.status}, pending in the queue: ${pending.includes(blurry.id)}`);
    const approved = await cotejo.analyses.review(blurry.id, { decision: 'approve', reason: 'Legible al ampliar' });
    log(`review: ${approved.id} ${approved.review?.status}, final status ${approved.verdict?.final_status}`);
  } finally {
    await cotejo.webhookEndpoints.del(endpoint.id);
    log(`deleted webhook endpoint ${endpoint.id}`);
    receiver.closeAllConnections();
    await new Promise<void>((r) => receiver.close(() => r()));
  }
}

if (import.meta.main) await main();
