// An HTTPS server on 127.0.0.1 with a self-signed certificate, serving what `handler` answers: the far end of a
// `file_url` for API tests (batches, language). Give its `cert` to startTestApp's `fileUrlCa`, with allowPrivateUrls.
import https from 'node:https';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { selfSignedCert } from '../unit/webhooks/receiver.ts';

export interface HttpsFiles {
  /** `https://127.0.0.1:<port>` */
  base: string;
  /** The PEM certificate a client must trust. */
  cert: string;
  close(): Promise<void>;
}

export async function startHttpsFiles(handler: RequestListener): Promise<HttpsFiles> {
  const { cert, key } = await selfSignedCert();
  const server = https.createServer({ cert, key }, handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cert,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
