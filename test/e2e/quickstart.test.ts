import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuickstart } from '../../examples/quickstart.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { selfSignedCert } from '../unit/webhooks/receiver.ts';

describe('docs/quickstart.md', () => {
  let app: TestApp;
  let cert: { cert: string; key: string };
  beforeAll(async () => {
    cert = await selfSignedCert();
    // What NODE_EXTRA_CA_CERTS does for the server process in the quickstart.
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), cert.cert]);
    app = await startTestApp('pglite', { worker: true, config: { allowPrivateUrls: true } });
  });
  afterAll(() => app?.close());

  it('goes from a test key to a valid DNI verdict and a verified analysis.completed webhook', async () => {
    const lines: string[] = [];
    const result = await runQuickstart({ apiKey: app.account.keys.test, baseURL: app.baseUrl, ...cert, log: (l) => lines.push(l) });
    expect(result.verdict).toBe('valid');
    expect(result.event.type).toBe('analysis.completed');
    expect((result.event.data as { id: string }).id).toBe(result.analysisId);
    expect(lines.join('\n')).toContain('verified webhook analysis.completed');
  }, 60_000);
});
