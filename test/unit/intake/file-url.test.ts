/**
 * file_url downloads against a local HTTPS server on 127.0.0.1 with a self-signed certificate
 * made at test time. Nothing here connects anywhere but loopback: the SSRF cases must be refused
 * before any connection, and the tests check the server saw none.
 */
import { EventEmitter } from 'node:events';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { webcrypto } from 'node:crypto';
import 'reflect-metadata'; // @peculiar/x509 (tsyringe) needs the Reflect metadata polyfill
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  downloadFileUrl,
  filenameFromUrl,
  watchConnectedAddress,
  type HostResolver,
} from '../../../server/src/domain/intake/file-url.ts';
import { judgeAddress } from '../../../server/src/domain/intake/address-policy.ts';
import { expectApiError } from './helpers.ts';

const PDF = Buffer.from('%PDF-1.7\n% a few bytes standing in for a document\n%%EOF\n');

let server: https.Server;
let base: string;
let port: number;
let ca: string;
let connections = 0;
const requests: string[] = [];

async function selfSignedCert(): Promise<{ cert: string; key: string }> {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '0a',
    name: 'CN=Cotejo intake test server',
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 24 * 3600_000),
    signingAlgorithm: alg,
    keys: keys as CryptoKeyPair,
    extensions: [
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: 'localhost' },
        { type: 'dns', value: 'files.example.com' },
        { type: 'ip', value: '127.0.0.1' },
      ]),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', (keys as CryptoKeyPair).privateKey));
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`;
  return { cert: cert.toString('pem'), key };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  const { cert, key } = await selfSignedCert();
  ca = cert;
  server = https.createServer({ cert, key }, async (req, res) => {
    requests.push(req.url ?? '');
    res.on('error', () => undefined);
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    switch (path) {
      case '/redirect':
        res.writeHead(302, { location: `${base}/docs/passport.pdf` }).end();
        return;
      case '/missing':
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      case '/error':
        res.writeHead(500).end();
        return;
      case '/slow-headers':
        await sleep(3000);
        if (!res.destroyed) res.writeHead(200).end(PDF);
        return;
      case '/slow-body': {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        for (let i = 0; i < 30 && !res.destroyed; i++) {
          res.write('x');
          await sleep(100);
        }
        res.end();
        return;
      }
      case '/declared-huge':
        res.writeHead(200, { 'content-length': String(21 * 1024 * 1024), 'content-type': 'application/pdf' });
        res.write(PDF);
        return; // never finishes: the client must give up on the header alone
      case '/chunked-huge': {
        // No Content-Length: the size is only known while streaming. Bounded: 4 MiB at most.
        res.writeHead(200, { 'content-type': 'application/pdf' });
        const chunk = Buffer.alloc(64 * 1024, 0x41);
        for (let sent = 0; sent < 4 * 1024 * 1024 && !res.destroyed; sent += chunk.length) {
          if (!res.write(chunk)) await new Promise((r) => res.once('drain', r).once('close', r));
        }
        res.end();
        return;
      }
      case '/empty':
        res.writeHead(200, { 'content-length': '0' }).end();
        return;
      case '/truncated':
        res.writeHead(200, { 'content-length': '1000' });
        res.write(PDF);
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      default:
        res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF);
    }
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `https://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  connections = 0;
  requests.length = 0;
});

const opts = (extra: Record<string, unknown> = {}) => ({ allowPrivate: true, ca, ...extra });

describe('downloadFileUrl: a local HTTPS server (allowPrivate)', () => {
  it('downloads a file: bytes, filename from the URL, content type, peer address', async () => {
    const got = await downloadFileUrl(`${base}/docs/passport.pdf?sig=abc`, opts());
    expect(Buffer.from(got.bytes).equals(PDF)).toBe(true);
    expect(got.filename).toBe('passport.pdf');
    expect(got.contentType).toBe('application/pdf');
    expect(got.remoteAddress).toBe('127.0.0.1');
    expect(requests).toEqual(['/docs/passport.pdf?sig=abc']);
  });

  it('works by host name too (the injected resolver answers loopback)', async () => {
    const lookup = vi.fn<HostResolver>(async () => [{ address: '127.0.0.1', family: 4 }]);
    const got = await downloadFileUrl(`https://files.example.com:${port}/a.pdf`, opts({ lookup }));
    expect(got.filename).toBe('a.pdf');
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(lookup).toHaveBeenCalledWith('files.example.com');
  });

  it('the default resolver (dns.lookup) goes through the same guarded lookup', async () => {
    const got = await downloadFileUrl(`https://localhost:${port}/b.pdf`, opts());
    expect(got.filename).toBe('b.pdf');
    expect(['127.0.0.1', '::ffff:127.0.0.1']).toContain(got.remoteAddress);
  });

  it('filename: percent-decoded last segment, `download` when there is none', async () => {
    expect((await downloadFileUrl(`${base}/docs/Factura%20marzo%20a%C3%B1o.pdf`, opts())).filename).toBe('Factura marzo año.pdf');
    expect((await downloadFileUrl(`${base}/`, opts())).filename).toBe('download');
    expect((await downloadFileUrl(`${base}/docs/`, opts())).filename).toBe('download');
  });

  it('a redirect is not followed => 422 file_url_unreachable', async () => {
    const err = await expectApiError(() => downloadFileUrl(`${base}/redirect`, opts()), 422, 'file_url_unreachable', 'file_url');
    expect(err.message).toContain('302');
    expect(requests).toEqual(['/redirect']);
  });

  it('404 and 500 => 422 file_url_unreachable', async () => {
    const err = await expectApiError(() => downloadFileUrl(`${base}/missing`, opts()), 422, 'file_url_unreachable', 'file_url');
    expect(err.message).toContain('404');
    await expectApiError(() => downloadFileUrl(`${base}/error`, opts()), 422, 'file_url_unreachable', 'file_url');
  });

  it('slow headers beyond timeoutMs => 422, on time', async () => {
    const t0 = Date.now();
    await expectApiError(() => downloadFileUrl(`${base}/slow-headers`, opts({ timeoutMs: 300 })), 422, 'file_url_unreachable', 'file_url');
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('a body that trickles past timeoutMs => 422 (the deadline covers the download too)', async () => {
    const t0 = Date.now();
    await expectApiError(() => downloadFileUrl(`${base}/slow-body`, opts({ timeoutMs: 400 })), 422, 'file_url_unreachable');
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('a Content-Length over 20 MiB => 413 file_too_large at once (default maxBytes)', async () => {
    await expectApiError(() => downloadFileUrl(`${base}/declared-huge`, opts()), 413, 'file_too_large', 'file_url');
  });

  it('a chunked body that grows past maxBytes => 413, aborted while streaming', async () => {
    await expectApiError(() => downloadFileUrl(`${base}/chunked-huge`, opts({ maxBytes: 256 * 1024 })), 413, 'file_too_large', 'file_url');
  });

  it('an empty 200 gives zero bytes (the caller then says empty_file)', async () => {
    expect((await downloadFileUrl(`${base}/empty`, opts())).bytes.length).toBe(0);
  });

  it('a connection cut before Content-Length is reached => 422', async () => {
    await expectApiError(() => downloadFileUrl(`${base}/truncated`, opts()), 422, 'file_url_unreachable');
  });

  it('an untrusted certificate => 422 (no `ca`)', async () => {
    const err = await expectApiError(() => downloadFileUrl(`${base}/a.pdf`, { allowPrivate: true }), 422, 'file_url_unreachable');
    expect(err.message).toContain('TLS');
  });

  it('a certificate for another name => 422', async () => {
    const lookup: HostResolver = async () => [{ address: '127.0.0.1', family: 4 }];
    await expectApiError(() => downloadFileUrl(`https://other.example.net:${port}/a.pdf`, opts({ lookup })), 422, 'file_url_unreachable');
  });

  it('connection refused and DNS failure => 422', async () => {
    const probe = https.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    await expectApiError(() => downloadFileUrl(`https://127.0.0.1:${closedPort}/a.pdf`, opts()), 422, 'file_url_unreachable');
    const nxdomain: HostResolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expectApiError(() => downloadFileUrl('https://no-such-host.invalid/a.pdf', opts({ lookup: nxdomain })), 422, 'file_url_unreachable');
    await expectApiError(() => downloadFileUrl('https://empty-answer.invalid/a.pdf', opts({ lookup: async () => [] })), 422, 'file_url_unreachable');
  });
});

describe('downloadFileUrl: SSRF (allowPrivate false)', () => {
  const strict = { allowPrivate: false, timeoutMs: 2000 };

  it.each([
    ['loopback IPv4', () => `https://127.0.0.1:${port}/a.pdf`],
    ['loopback, other forms', () => `https://127.1:${port}/a.pdf`],
    ['loopback, hex', () => `https://0x7f000001:${port}/a.pdf`],
    ['localhost', () => `https://localhost:${port}/a.pdf`],
    ['a localhost subdomain', () => `https://files.localhost:${port}/a.pdf`],
    ['IPv6 loopback', () => `https://[::1]:${port}/`],
    ['IPv4-mapped IPv6 loopback', () => `https://[::ffff:127.0.0.1]:${port}/`],
    ['NAT64 IPv6 of loopback', () => 'https://[64:ff9b::7f00:1]/'],
    ['IPv4-compatible IPv6 of loopback', () => `https://[::127.0.0.1]:${port}/`],
    ['IPv4-compatible IPv6 of the metadata address', () => 'https://[::169.254.169.254]/latest/meta-data/'],
    ['cloud metadata', () => 'https://169.254.169.254/latest/meta-data/'],
    ['AWS IPv6 metadata', () => 'https://[fd00:ec2::254]/latest/meta-data/'],
    ['RFC 1918', () => 'https://10.0.0.1/a.pdf'],
    ['RFC 1918 (172.16/12)', () => 'https://172.20.1.1/a.pdf'],
    ['RFC 1918 (192.168/16)', () => 'https://192.168.1.10/a.pdf'],
    ['CGNAT', () => 'https://100.64.0.1/a.pdf'],
    ['unspecified', () => 'https://0.0.0.0/a.pdf'],
    ['0.0.0.0/8', () => 'https://0.1.2.3/a.pdf'],
    ['broadcast', () => 'https://255.255.255.255/a.pdf'],
    ['multicast', () => 'https://224.0.0.1/a.pdf'],
    ['IPv6 link-local', () => 'https://[fe80::1]/a.pdf'],
    ['IPv6 unique-local', () => 'https://[fc00::1]/a.pdf'],
    ['plain http', () => `http://127.0.0.1:${port}/a.pdf`],
    ['http to a public name', () => 'http://example.com/a.pdf'],
    ['ftp', () => 'ftp://example.com/a.pdf'],
    ['file', () => 'file:///etc/passwd'],
    ['userinfo', () => 'https://user:secret@example.com/a.pdf'],
    ['not a URL', () => 'not a url'],
    ['empty', () => ''],
  ])('%s => 400 invalid_file_url, no connection', async (_what, url) => {
    await expectApiError(() => downloadFileUrl(url(), strict), 400, 'invalid_file_url', 'file_url');
    expect(connections).toBe(0);
  });

  it('refusals are rejected promises, never synchronous throws', async () => {
    const pending = downloadFileUrl('ftp://example.com/a.pdf', strict);
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).rejects.toMatchObject({ status: 400, code: 'invalid_file_url' });
  });

  it('a public-looking name that resolves to loopback (DNS rebinding) => 400, never connected', async () => {
    const lookup = vi.fn<HostResolver>(async () => [{ address: '127.0.0.1', family: 4 }]);
    await expectApiError(
      () => downloadFileUrl(`https://files.example.com:${port}/a.pdf`, { ...strict, ca, lookup }),
      400,
      'invalid_file_url',
      'file_url',
    );
    // One resolution, and it is the one the connection would have used: no check-then-use gap.
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(connections).toBe(0);
  });

  it('a resolver that answers differently each time cannot slip loopback past the check', async () => {
    // A rebinding resolver: first answer "public" (TEST-NET, never connected to: refused below
    // as reserved), later answers loopback. Whatever the order, no call leads to a connection.
    let calls = 0;
    const answers = ['127.0.0.1', '203.0.113.7', '::1', '10.0.0.5'];
    const lookup: HostResolver = async () => {
      const address = answers[calls++ % answers.length];
      return [{ address, family: address.includes(':') ? 6 : 4 }];
    };
    for (let i = 0; i < answers.length; i++) {
      await expectApiError(() => downloadFileUrl(`https://rebind.example.com:${port}/a.pdf`, { ...strict, ca, lookup }), 400, 'invalid_file_url');
    }
    expect(calls).toBe(answers.length);
    expect(connections).toBe(0);
  });

  it('a name whose answers mix loopback with other internal addresses => 400', async () => {
    const lookup: HostResolver = async () => [
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ];
    await expectApiError(() => downloadFileUrl(`https://mixed.example.com:${port}/a.pdf`, { ...strict, ca, lookup }), 400, 'invalid_file_url');
    expect(connections).toBe(0);
  });
});

describe('watchConnectedAddress: the check on the connected socket', () => {
  function fakeSocket(remoteAddress: string, connecting: boolean) {
    const s = new EventEmitter() as EventEmitter & { remoteAddress: string; connecting: boolean; destroy: () => void };
    s.remoteAddress = remoteAddress;
    s.connecting = connecting;
    s.destroy = vi.fn();
    return s;
  }
  const policy = (address: string): boolean => judgeAddress(address).allowed;

  it('destroys the socket on connect when the peer is internal', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.1.1.1', '169.254.169.254', '']) {
      const s = fakeSocket(address, true);
      watchConnectedAddress(s as unknown as Socket, policy);
      expect(s.destroy).not.toHaveBeenCalled();
      s.emit('connect');
      expect(s.destroy, address).toHaveBeenCalledOnce();
    }
  });

  it('keeps a public peer, and checks at once a socket that is already connected', () => {
    const ok = fakeSocket('93.184.215.14', true);
    watchConnectedAddress(ok as unknown as Socket, policy);
    ok.emit('connect');
    expect(ok.destroy).not.toHaveBeenCalled();
    const already = fakeSocket('127.0.0.1', false);
    watchConnectedAddress(already as unknown as Socket, policy);
    expect(already.destroy).toHaveBeenCalledOnce();
  });
});

describe('filenameFromUrl', () => {
  it.each([
    ['https://x.test/a/b/scan.jpg', 'scan.jpg'],
    ['https://x.test/a/b/scan.jpg?x=1#frag', 'scan.jpg'],
    ['https://x.test/D%C3%A9claration%20IRPF.pdf', 'Déclaration IRPF.pdf'],
    ['https://x.test/', 'download'],
    ['https://x.test', 'download'],
    ['https://x.test/dir/', 'download'],
    ['https://x.test/..%2F..%2Fetc%2Fpasswd', '.._.._etc_passwd'],
    ['https://x.test/a%5Cb', 'a_b'],
    ['https://x.test/bad%E0%A4%A', 'bad%E0%A4%A'],
    ['https://x.test/%2E%2E', 'download'],
  ])('%s => %s', (url, name) => {
    expect(filenameFromUrl(new URL(url))).toBe(name);
  });
});
