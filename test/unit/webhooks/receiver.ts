/**
 * A local HTTPS webhook receiver on 127.0.0.1 with a self-signed certificate made at test time. It
 * records every request (headers and raw body) and every TCP connection, and answers per path:
 * - `/ok...`: 200;
 * - `/fail...`: 500;
 * - `/script...`: the next answer of `script` (`200`, `500`, `302`, `slow`: 200 after `slowMs`), then 200.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { webcrypto } from 'node:crypto';
import 'reflect-metadata'; // @peculiar/x509 (tsyringe) needs the Reflect metadata polyfill
import * as x509 from '@peculiar/x509';

export interface ReceivedRequest {
  path: string;
  method: string;
  headers: Record<string, string>;
  /** The body exactly as received. */
  body: string;
}

export type Answer = '200' | '500' | '302' | 'slow';

export interface Receiver {
  url: (path: string) => string;
  port: number;
  /** PEM of the self-signed certificate (the CA to trust). */
  ca: string;
  requests: ReceivedRequest[];
  connections: () => number;
  script: Answer[];
  slowMs: number;
  /** Requests to one path. */
  to: (path: string) => ReceivedRequest[];
  reset: () => void;
  close: () => Promise<void>;
}

export async function selfSignedCert(): Promise<{ cert: string; key: string }> {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '0b',
    name: 'CN=Cotejo webhook test receiver',
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 24 * 3600_000),
    signingAlgorithm: alg,
    keys,
    extensions: [
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: 'localhost' },
        { type: 'dns', value: 'hooks.example.com' },
        { type: 'ip', value: '127.0.0.1' },
      ]),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`;
  return { cert: cert.toString('pem'), key };
}

export async function startReceiver(): Promise<Receiver> {
  const { cert, key } = await selfSignedCert();
  let connections = 0;
  const requests: ReceivedRequest[] = [];
  const r: Partial<Receiver> = { script: [], slowMs: 1000 };
  const server = https.createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
      requests.push({ path, method: req.method ?? '', headers, body: Buffer.concat(chunks).toString('utf8') });
      res.on('error', () => undefined);
      let answer: Answer = '200';
      if (path.startsWith('/fail')) answer = '500';
      else if (path.startsWith('/script')) answer = r.script!.shift() ?? '200';
      if (answer === '200') res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      else if (answer === '500') res.writeHead(500).end('boom');
      else if (answer === '302') res.writeHead(302, { location: `https://127.0.0.1:${port}/ok` }).end();
      else setTimeout(() => !res.destroyed && res.writeHead(200).end('late'), r.slowMs!).unref();
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(r, {
    url: (path: string) => `https://127.0.0.1:${port}${path}`,
    port,
    ca: cert,
    requests,
    connections: () => connections,
    to: (path: string) => requests.filter((q) => q.path === path),
    reset: () => {
      requests.length = 0;
      connections = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  }) as Receiver;
}
