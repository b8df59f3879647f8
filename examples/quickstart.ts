/**
 * Quickstart: from a test key to a verified webhook, with the SDK (docs/quickstart.md walks through it).
 *
 *   node examples/make-cert.ts                                   # a certificate for the local receiver
 *   COTEJO_ALLOW_PRIVATE_URLS=true NODE_EXTRA_CA_CERTS=examples/.certs/receiver.pem npm start
 *   COTEJO_API_KEY=ck_test_... node examples/quickstart.ts       # with node_modules/.bin first on PATH
 */
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { Cotejo, type WebhookEvent } from '../sdk/src/index.ts';

export const CERT_DIR = path.join(import.meta.dirname, '.certs');

export interface QuickstartResult {
  analysisId: string;
  verdict: string | undefined;
  event: WebhookEvent;
}

/** Any picture will do in test mode: the file name (`dni_valid.jpg`) chooses the simulated reading. */
async function aPhoto(): Promise<Buffer> {
  return sharp({ create: { width: 640, height: 400, channels: 3, background: '#dfe6ee' } }).jpeg().toBuffer();
}

export async function runQuickstart(opts: { apiKey: string; baseURL: string; cert: string; key: string; log?: (line: string) => void }): Promise<QuickstartResult> {
  const log = opts.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const cotejo = new Cotejo({ apiKey: opts.apiKey, baseURL: opts.baseURL });

  // 1. A webhook receiver (HTTPS, as Cotejo requires). It must read the RAW body to verify it.
  let secret = '';
  let resolveEvent!: (e: WebhookEvent) => void;
  let rejectEvent!: (e: unknown) => void;
  const received = new Promise<WebhookEvent>((res, rej) => ((resolveEvent = res), (rejectEvent = rej)));
  const receiver = https.createServer({ cert: opts.cert, key: opts.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const event = await cotejo.webhooks.verify(secret, req.headers, Buffer.concat(chunks));
        res.writeHead(204).end(); // answer 2xx quickly; work afterwards
        if (event.type === 'analysis.completed') resolveEvent(event);
      } catch (err) {
        res.writeHead(400).end(); // a bad signature is refused
        rejectEvent(err);
      }
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/cotejo`;

  try {
    // 2. Subscribe it; the secret is shown only in this response.
    const endpoint = await cotejo.webhookEndpoints.create({ url, events: ['analysis.completed'], description: 'Quickstart' });
    secret = endpoint.secret;
    log(`webhook endpoint ${endpoint.id} -> ${url}`);

    // 3. Analyse a document in test mode, expecting a Spanish DNI.
    const analysis = await cotejo.analyses.create({ file: await aPhoto(), filename: 'dni_valid.jpg', expect: 'es_dni', checks: { min_age_years: 18 } });
    log(`analysis ${analysis.id}: ${analysis.status}, verdict ${analysis.verdict?.status}`);
    for (const r of analysis.verdict?.reasons ?? []) log(`  ${r.severity.padEnd(7)} ${r.code}: ${r.message}`);

    // 4. Wait for the signed analysis.completed event, verified above.
    const event = await Promise.race([
      received,
      new Promise<never>((_, rej) => setTimeout(() => rej(new Error('no webhook within 30 s: is the server running its worker?')), 30_000)),
    ]);
    log(`verified webhook ${event.type} for ${(event.data as { id: string }).id}`);
    return { analysisId: analysis.id, verdict: analysis.verdict?.status, event };
  } finally {
    await new Promise<void>((r) => receiver.close(() => r()));
  }
}

if (import.meta.main) {
  const cert = fs.readFileSync(path.join(CERT_DIR, 'receiver.pem'), 'utf8');
  const key = fs.readFileSync(path.join(CERT_DIR, 'receiver-key.pem'), 'utf8');
  const apiKey = process.env.COTEJO_API_KEY ?? '';
  runQuickstart({ apiKey, baseURL: process.env.COTEJO_BASE_URL ?? 'http://localhost:8080', cert, key }).then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
