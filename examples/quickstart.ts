/**
 * Quickstart: from a test key to a verified webhook, with the SDK (docs/quickstart.md walks through it).
 *
 *   node examples/make-cert.mjs                                  # a certificate for the local receiver
 *   COTEJO_ALLOW_PRIVATE_URLS=true NODE_EXTRA_CA_CERTS=examples/.certs/receiver.pem npm start
 *   COTEJO_API_KEY=ck_test_... npm run quickstart                # or: node examples/quickstart.mjs
 *
 * This file is TypeScript for Node 24 (the project's, in node_modules/.bin): `npm run quickstart` and the .mjs
 * launchers use it whatever `node` is first on your PATH; `node examples/quickstart.ts` with an older Node fails
 * with "Unknown file extension .ts".
 *
 * It deletes the webhook endpoint it creates when it ends, also after a failure or Ctrl-C: an endpoint left behind
 * would point at a receiver that no longer exists, and every later analysis would log failed deliveries for days.
 * The analysis it makes stays in your account (test mode, free): `GET /v1/analyses/{id}`.
 *
 * COTEJO_BASE_URL: where Cotejo listens (default http://localhost:8080). COTEJO_QUICKSTART_CERT_DIR: where the
 * certificate is (default examples/.certs).
 */
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { APIConnectionError, APITimeoutError, AuthenticationError, Cotejo, CotejoError, type WebhookEvent } from '../sdk/src/index.ts';

export const CERT_DIR = process.env.COTEJO_QUICKSTART_CERT_DIR
  ? path.resolve(process.env.COTEJO_QUICKSTART_CERT_DIR)
  : path.join(import.meta.dirname, '.certs');
export const DEFAULT_BASE_URL = 'http://localhost:8080';
const WEBHOOK_PATH = '/webhooks/cotejo';

/** A failure whose message says what to do: printed as one line, without a stack. */
export class QuickstartError extends Error {}

export interface QuickstartResult {
  analysisId: string;
  verdict: string | undefined;
  event: WebhookEvent;
}

export interface QuickstartOptions {
  apiKey: string;
  baseURL: string;
  cert: string;
  key: string;
  /** Progress lines. Default: stdout. */
  log?: (line: string) => void;
  /** Warnings (a clean-up that failed). Default: stderr. */
  warn?: (line: string) => void;
  /** Stops the quickstart (Ctrl-C): it still deletes what it created. */
  signal?: AbortSignal;
  /** How long to wait for the webhook. Default 30 s. */
  webhookTimeoutMs?: number;
}

/** A path as the user would type it: relative to the current directory when under it. */
function shown(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

/** The receiver's certificate and key made by `node examples/make-cert.mjs`, or a QuickstartError saying to make them. */
export function readReceiverCert(dir = CERT_DIR, now = new Date()): { cert: string; key: string } {
  const certFile = path.join(dir, 'receiver.pem');
  const keyFile = path.join(dir, 'receiver-key.pem');
  if (!fs.existsSync(certFile) || !fs.existsSync(keyFile)) {
    throw new QuickstartError(
      `No certificate for the local webhook receiver (${shown(fs.existsSync(certFile) ? keyFile : certFile)} is missing): ` +
        'run `node examples/make-cert.mjs` first, then start Cotejo with NODE_EXTRA_CA_CERTS pointing at it (docs/quickstart.md, steps 2 and 3).',
    );
  }
  const cert = fs.readFileSync(certFile, 'utf8');
  const key = fs.readFileSync(keyFile, 'utf8');
  let validTo: Date;
  try {
    validTo = new Date(new X509Certificate(cert).validTo);
  } catch {
    throw new QuickstartError(`${shown(certFile)} is not a PEM certificate: run \`node examples/make-cert.mjs\` again and restart Cotejo (docs/quickstart.md, steps 2 and 3).`);
  }
  if (validTo.getTime() <= now.getTime()) {
    throw new QuickstartError(
      `The receiver's certificate ${shown(certFile)} expired on ${validTo.toISOString()} (it lasts 24 hours): ` +
        'run `node examples/make-cert.mjs` again, then restart Cotejo so that it trusts the new one (docs/quickstart.md, steps 2 and 3).',
    );
  }
  return { cert, key };
}

/** Any picture will do in test mode: the file name (`dni_valid.jpg`) chooses the simulated reading. */
async function aPhoto(): Promise<Buffer> {
  return sharp({ create: { width: 640, height: 400, channels: 3, background: '#dfe6ee' } }).jpeg().toBuffer();
}

/** Resolves with `promise`, or rejects after `ms` with `onTimeout()`, or when `signal` aborts; clears its timer. */
function within<T>(promise: Promise<T>, ms: number, onTimeout: () => Error, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => done(() => reject(onTimeout())), ms);
    const onAbort = () => done(() => reject(signal?.reason));
    const done = (settle: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      settle();
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    promise.then((v) => done(() => resolve(v)), (e: unknown) => done(() => reject(e)));
  });
}

export async function runQuickstart(opts: QuickstartOptions): Promise<QuickstartResult> {
  const log = opts.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const warn = opts.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const { signal } = opts;
  const cotejo = new Cotejo({ apiKey: opts.apiKey, baseURL: opts.baseURL });

  // 1. A webhook receiver (HTTPS, as Cotejo requires). It must read the RAW body to verify it.
  let secret = '';
  let resolveEvent!: (e: WebhookEvent) => void;
  let rejectEvent!: (e: unknown) => void;
  const received = new Promise<WebhookEvent>((res, rej) => ((resolveEvent = res), (rejectEvent = rej)));
  received.catch(() => undefined); // a bad delivery before we wait (or after a failure) is not an unhandled rejection
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
  const url = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}${WEBHOOK_PATH}`;

  let endpointId: string | undefined;
  let endpointMayExist = false;
  try {
    // 2. Subscribe it; the secret is shown only in this response. Not abortable (Ctrl-C waits for it): an interrupted
    //    create could leave an endpoint whose id we never learn.
    signal?.throwIfAborted();
    const endpoint = await cotejo.webhookEndpoints
      .create({ url, events: ['analysis.completed'], description: 'Quickstart' })
      .catch((err: unknown) => {
        // A time-out or a 5xx may come after the server made it (the clean-up then looks for it by URL); a refused
        // connection or a 4xx may not.
        const notMade = (err instanceof APIConnectionError && !(err instanceof APITimeoutError)) || (err instanceof CotejoError && (err.status ?? 500) < 500);
        endpointMayExist = !notMade;
        throw err;
      });
    endpointMayExist = true;
    endpointId = endpoint.id;
    secret = endpoint.secret;
    log(`webhook endpoint ${endpoint.id} -> ${url}`);
    signal?.throwIfAborted();

    // 3. Analyse a document in test mode, expecting a Spanish DNI.
    const analysis = await cotejo.analyses.create(
      { file: await aPhoto(), filename: 'dni_valid.jpg', expect: 'es_dni', checks: { min_age_years: 18 } },
      { signal },
    );
    log(`analysis ${analysis.id}: ${analysis.status}, verdict ${analysis.verdict?.status}`);
    for (const r of analysis.verdict?.reasons ?? []) log(`  ${r.severity.padEnd(7)} ${r.code}: ${r.message}`);

    // 4. Wait for the signed analysis.completed event, verified above.
    const waitMs = opts.webhookTimeoutMs ?? 30_000;
    const event = await within(
      received,
      waitMs,
      () =>
        new QuickstartError(
          `No webhook within ${waitMs / 1000} s. Was Cotejo started (after making the certificate) with COTEJO_ALLOW_PRIVATE_URLS=true ` +
            `and NODE_EXTRA_CA_CERTS=${shown(path.join(CERT_DIR, 'receiver.pem'))} (docs/quickstart.md, step 3)? Its log says why the delivery failed.`,
        ),
      signal,
    );
    log(`verified webhook ${event.type} for ${(event.data as { id: string }).id}`);
    return { analysisId: analysis.id, verdict: analysis.verdict?.status, event };
  } finally {
    // Clean up whatever happened: the endpoint would otherwise outlive the receiver.
    if (endpointMayExist) await deleteEndpoint(cotejo, endpointId, url, log, warn);
    receiver.closeAllConnections();
    await new Promise<void>((r) => receiver.close(() => r()));
  }
}

/** Deletes the quickstart's endpoint: by id, or (when its creation was interrupted) by its URL. Never throws. */
async function deleteEndpoint(cotejo: Cotejo, id: string | undefined, url: string, log: (l: string) => void, warn: (l: string) => void): Promise<void> {
  const options = { maxRetries: 1, timeout: 10_000 };
  try {
    const ids = id ? [id] : (await cotejo.webhookEndpoints.list(options)).data.filter((e) => e.url === url).map((e) => e.id);
    for (const each of ids) {
      await cotejo.webhookEndpoints.del(each, options);
      log(`deleted webhook endpoint ${each}`);
    }
  } catch (err) {
    if (!id) return; // its creation failed, most likely for the same reason: there is probably nothing to delete
    warn(
      `Could not delete webhook endpoint ${id} (${err instanceof Error ? err.message : String(err)}). Delete it yourself: ` +
        `curl -X DELETE -H "Authorization: Bearer $COTEJO_API_KEY" ${cotejo.baseURL}/v1/webhook-endpoints/${id}`,
    );
  }
}

/** What the command line prints for an error: what went wrong and what to do, without a stack unless it is a bug. */
export function explain(err: unknown, baseURL: string): string {
  if (err instanceof QuickstartError) return err.message;
  if (err instanceof APIConnectionError) {
    return `${err.message}\nIs Cotejo running at ${baseURL}? Start it as in docs/quickstart.md (step 3), or set COTEJO_BASE_URL to where it listens.`;
  }
  if (err instanceof AuthenticationError) {
    return `${err.message}\nUse the test key (ck_test_...) Cotejo printed on its first start, or make one with \`npm run -s cotejo -- accounts create --json\` (server stopped).`;
  }
  if (err instanceof CotejoError) return err.message;
  return err instanceof Error ? (err.stack ?? err.message) : String(err); // not a step skipped: a bug, keep the stack
}

/** The command line: one line on stderr and exit 1 on a failure, 130 after Ctrl-C; never an endpoint left behind. */
async function main(): Promise<number> {
  const baseURL = process.env.COTEJO_BASE_URL || DEFAULT_BASE_URL;
  const interrupted = new AbortController();
  const onSignal = () => {
    process.stderr.write('\nInterrupted: deleting the webhook endpoint... (press Ctrl-C again to quit at once)\n');
    interrupted.abort(new QuickstartError('Interrupted.'));
    process.once('SIGINT', () => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const { cert, key } = readReceiverCert();
    const apiKey = process.env.COTEJO_API_KEY ?? '';
    if (apiKey === '') {
      throw new QuickstartError(
        'COTEJO_API_KEY is not set: run `COTEJO_API_KEY=ck_test_... npm run quickstart` with the test key Cotejo printed on its first start (docs/quickstart.md, step 3).',
      );
    }
    if (!apiKey.startsWith('ck_test_')) {
      throw new QuickstartError('The quickstart runs in test mode and costs nothing: use a test key (ck_test_...), not a live one.');
    }
    await runQuickstart({ apiKey, baseURL, cert, key, signal: interrupted.signal });
    return 0;
  } catch (err) {
    if (interrupted.signal.aborted) return 130;
    process.stderr.write(`${explain(err, baseURL)}\n`);
    return 1;
  }
}

if (import.meta.main) process.exit(await main());
