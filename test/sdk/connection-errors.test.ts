// Connection errors of @cotejo/sdk over the real network (no injected fetch): a refused port, a name that does not
// resolve, an untrusted TLS certificate and a server that never answers. Each error must name the request it tried
// (method and full URL) and the underlying cause, and keep the class hierarchy (APITimeoutError extends
// APIConnectionError extends CotejoError).
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIConnectionError, APITimeoutError, Cotejo, CotejoError } from '../../sdk/src/index.ts';
import { freePort } from '../../scripts/free-port.ts';
import { selfSignedCert } from '../unit/webhooks/receiver.ts';

/** A client whose back-off between retries is not waited (the attempts are real). */
class NoWaitCotejo extends Cotejo {
  protected override sleep(): Promise<void> {
    return Promise.resolve();
  }
}

describe('connection errors name the request and the cause', () => {
  it('a refused port: method, full URL, ECONNREFUSED, and the retries', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const c = new NoWaitCotejo({ apiKey: 'ck_test_x', baseURL: base });
    const err = await c.analyses.list({ limit: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(err).toBeInstanceOf(CotejoError);
    expect(err).not.toBeInstanceOf(APITimeoutError);
    const e = err as APIConnectionError;
    expect(e.message).toBe(
      `Connection error: GET ${base}/v1/analyses?limit=2 failed: connect ECONNREFUSED 127.0.0.1:${port} (retried 2 times). ` +
        'Check the base URL (baseURL or COTEJO_BASE_URL) and that the server is reachable.',
    );
    expect(e.method).toBe('GET');
    expect(e.url).toBe(`${base}/v1/analyses?limit=2`);
    expect(e.status).toBeUndefined();
    expect(e.cause).toBeInstanceOf(TypeError); // Node's fetch: "fetch failed", with the socket error as its cause
  });

  it('a POST without retries names POST and no retry count', async () => {
    const port = await freePort();
    const c = new Cotejo({ apiKey: 'ck_test_x', baseURL: `http://127.0.0.1:${port}/`, maxRetries: 0 });
    const err = (await c.webhookEndpoints.create({ url: 'https://hooks.example/x', events: ['*'] }).catch((e: unknown) => e)) as APIConnectionError;
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(err.message).toMatch(new RegExp(`^Connection error: POST http://127\\.0\\.0\\.1:${port}/v1/webhook-endpoints failed: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\. `));
    expect(err.message).not.toContain('retried');
  });

  it('localhost: the address it tried', async () => {
    const port = await freePort();
    const c = new Cotejo({ apiKey: 'ck_test_x', baseURL: `http://localhost:${port}`, maxRetries: 0 });
    const err = (await c.balance.retrieve().catch((e: unknown) => e)) as APIConnectionError;
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(err.message).toContain(`GET http://localhost:${port}/v1/balance failed: `);
    expect(err.message).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
    expect(err.message).not.toMatch(/failed: [(.]/); // never an empty cause
  });

  it('a name with several addresses (AggregateError, empty message): the cause of each, once', async () => {
    // The shape of Node's fetch when every address of a name (e.g. ::1 and 127.0.0.1) refuses: no machine here
    // resolves a name to two addresses, so this one error is built by hand and thrown by an injected fetch.
    const refused = (address: string) => Object.assign(new Error(`connect ECONNREFUSED ${address}:8080`), { code: 'ECONNREFUSED' });
    const aggregate = Object.assign(new AggregateError([refused('::1'), refused('127.0.0.1'), refused('127.0.0.1')], ''), { code: 'ECONNREFUSED' });
    const fetch = () => Promise.reject(new TypeError('fetch failed', { cause: aggregate }));
    const c = new Cotejo({ apiKey: 'ck_test_x', baseURL: 'http://localhost:8080', maxRetries: 0, fetch });
    const err = (await c.balance.retrieve().catch((e: unknown) => e)) as APIConnectionError;
    expect(err.message).toMatch(
      /^Connection error: GET http:\/\/localhost:8080\/v1\/balance failed: connect ECONNREFUSED ::1:8080; connect ECONNREFUSED 127\.0\.0\.1:8080\. /,
    );
  });

  it('a name that does not resolve (.invalid is reserved) names the host', async () => {
    const c = new Cotejo({ apiKey: 'ck_test_x', baseURL: 'https://api.cotejo.invalid', maxRetries: 0, timeout: 10_000 });
    const err = (await c.balance.retrieve().catch((e: unknown) => e)) as APIConnectionError;
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(err.url).toBe('https://api.cotejo.invalid/v1/balance');
    // ENOTFOUND normally; EAI_AGAIN where DNS itself is unreachable; a time-out if the resolver hangs.
    expect(err.message).toMatch(/^(Connection error: GET https:\/\/api\.cotejo\.invalid\/v1\/balance failed: getaddrinfo (ENOTFOUND|EAI_AGAIN) api\.cotejo\.invalid\. |Request timed out after 10000 ms: GET https:\/\/api\.cotejo\.invalid\/v1\/balance\.)/);
  }, 15_000);

  describe('servers that accept the connection', () => {
    let tlsServer: https.Server;
    let silent: net.Server;
    const sockets = new Set<net.Socket>();
    beforeAll(async () => {
      tlsServer = https.createServer(await selfSignedCert(), (_req, res) => res.end('{}'));
      silent = net.createServer((s) => {
        sockets.add(s); // accepts and never answers
        s.on('close', () => sockets.delete(s));
      });
      await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    });
    afterAll(async () => {
      for (const s of sockets) s.destroy();
      tlsServer.closeAllConnections();
      await new Promise<void>((r) => tlsServer.close(() => r()));
      await new Promise<void>((r) => silent.close(() => r()));
    });

    it('an untrusted TLS certificate: the URL and the certificate error', async () => {
      const base = `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`;
      const c = new Cotejo({ apiKey: 'ck_test_x', baseURL: base, maxRetries: 0 });
      const err = (await c.balance.retrieve().catch((e: unknown) => e)) as APIConnectionError;
      expect(err).toBeInstanceOf(APIConnectionError);
      expect(err.message).toContain(`Connection error: GET ${base}/v1/balance failed: self-signed certificate`);
      expect(err.message).toContain('(DEPTH_ZERO_SELF_SIGNED_CERT)');
    });

    it('no answer within `timeout`: APITimeoutError with the URL and the retries', async () => {
      const base = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const c = new NoWaitCotejo({ apiKey: 'ck_test_x', baseURL: base, maxRetries: 1, timeout: 150 });
      const err = (await c.analyses.retrieve('an_1').catch((e: unknown) => e)) as APITimeoutError;
      expect(err).toBeInstanceOf(APITimeoutError);
      expect(err).toBeInstanceOf(APIConnectionError);
      expect(err.message).toBe(`Request timed out after 150 ms: GET ${base}/v1/analyses/an_1 (retried 1 time).`);
      expect(err.method).toBe('GET');
      expect(err.url).toBe(`${base}/v1/analyses/an_1`);
    });

    it('an abort by the caller stays the caller’s abort, not a connection error', async () => {
      const base = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const c = new Cotejo({ apiKey: 'ck_test_x', baseURL: base });
      const ac = new AbortController();
      const p = c.balance.retrieve({ signal: ac.signal }).catch((e: unknown) => e);
      setTimeout(() => ac.abort(), 50);
      const err = await p;
      expect(err).not.toBeInstanceOf(CotejoError);
      expect((err as Error).name).toBe('AbortError');
    });
  });
});
