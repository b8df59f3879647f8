// COTEJO_TRUST_PROXY and COTEJO_RATE_LIMIT_STORE (config.ts), the client address the code before Express reads
// (http/client-address.ts, which must agree with Express's req.ip), and the hosted page's consent IP behind a proxy.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type TrustProxy } from '../../server/src/config.ts';
import type { PageView } from '../../server/src/domain/links/page.ts';
import { clientAddress } from '../../server/src/http/client-address.ts';
import type { Services } from '../../server/src/http/context.ts';
import { mountHosted } from '../../server/src/web/routes.ts';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
};

describe('COTEJO_TRUST_PROXY', () => {
  it('is false by default, and takes true, a hop count or a list of addresses, CIDR ranges and Express names', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ COTEJO_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ COTEJO_TRUST_PROXY: 'TRUE' }).trustProxy).toBe(true);
    expect(loadConfig({ COTEJO_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ COTEJO_TRUST_PROXY: ' 10.0.0.0/8, 192.168.1.7 ,Loopback, fd00::/8 ' }).trustProxy).toEqual(['10.0.0.0/8', '192.168.1.7', 'loopback', 'fd00::/8']);
  });

  it('reports what it does not understand', () => {
    expect(problemsOf({ COTEJO_TRUST_PROXY: '0' })[0]).toMatch(/from 1 to 32/);
    expect(problemsOf({ COTEJO_TRUST_PROXY: '33' })[0]).toMatch(/from 1 to 32/);
    expect(problemsOf({ COTEJO_TRUST_PROXY: 'yes' })[0]).toMatch(/not understood: "yes"/);
    expect(problemsOf({ COTEJO_TRUST_PROXY: '10.0.0.0/33,1.2.3.4/x,::1/129,proxy.example' })[0]).toContain('"10.0.0.0/33", "1.2.3.4/x", "::1/129", "proxy.example"');
    expect(problemsOf({ COTEJO_TRUST_PROXY: ',' })[0]).toMatch(/COTEJO_TRUST_PROXY must be/);
  });
});

describe('COTEJO_RATE_LIMIT_STORE', () => {
  it('is chosen by the database unless set (null), memory or database when set', () => {
    expect(loadConfig({}).rateLimitStore).toBeNull();
    expect(loadConfig({ COTEJO_RATE_LIMIT_STORE: 'memory' }).rateLimitStore).toBe('memory');
    expect(loadConfig({ COTEJO_RATE_LIMIT_STORE: 'Database' }).rateLimitStore).toBe('database');
    expect(problemsOf({ COTEJO_RATE_LIMIT_STORE: 'redis' })).toEqual(['COTEJO_RATE_LIMIT_STORE must be memory or database (got "redis")']);
  });
});

describe('the client address before Express agrees with req.ip', () => {
  const servers: http.Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  it('for every setting and forwarded chain', async () => {
    const settings: TrustProxy[] = [false, true, 1, 2, ['loopback'], ['10.0.0.0/8'], ['127.0.0.1', '203.0.113.0/24']];
    const chains = [undefined, '203.0.113.5', '198.51.100.1, 203.0.113.5', ' 192.0.2.1 ,198.51.100.1,203.0.113.5', 'garbage', ''];
    for (const setting of settings) {
      const app = express();
      app.set('trust proxy', setting);
      const trust = app.get('trust proxy fn');
      app.get('/', (req, res) => void res.json({ express: req.ip, ours: clientAddress(req, trust) }));
      const server = http.createServer(app);
      servers.push(server);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const chain of chains) {
        const got = (await (await fetch(base, { headers: chain === undefined ? {} : { 'X-Forwarded-For': chain } })).json()) as { express: string; ours: string };
        expect(got.ours, `${JSON.stringify(setting)} / ${chain}`).toBe(got.express);
      }
    }
  });
});

describe('the hosted page records the client address behind a trusted proxy as consent IP', () => {
  const TOKEN = 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA';
  const consentIpWith = async (setting: TrustProxy, forwardedFor: string): Promise<string | null> => {
    let recorded: string | null = null;
    const app = express();
    app.set('trust proxy', setting);
    const none = async () => null;
    mountHosted(app, { config: { dataDir: '/nonexistent' }, logger: { debug() {}, info() {}, warn() {}, error() {} } } as unknown as Services, {
      viewByToken: none,
      openByToken: none,
      acceptConsent: async (_s, _token, ip) => {
        recorded = ip;
        return {} as PageView;
      },
      uploadByToken: async () => {
        throw new Error('not in this test');
      },
    });
    const server = http.createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/l/${TOKEN}/consent`, { method: 'POST', redirect: 'manual', headers: { 'X-Forwarded-For': forwardedFor } });
      expect(res.status).toBe(303);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
    return recorded;
  };

  it('the connection address with trust proxy off, the forwarded client with it on, never a non-address', async () => {
    expect(await consentIpWith(false, '203.0.113.9')).toBe('127.0.0.1');
    expect(await consentIpWith(1, '10.1.1.1, 203.0.113.9')).toBe('203.0.113.9');
    expect(await consentIpWith(true, '<script>')).toBe('127.0.0.1');
  });
});
