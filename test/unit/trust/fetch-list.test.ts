// Downloads of trusted lists (domain/trust/trusted-list-refresh.ts fetchList): the file_url guard (public addresses
// only unless allowed, no user or password, http(s) only), redirects (each hop guarded, at most 5), size cap,
// HTTP errors. Offline: a node:http server on 127.0.0.1.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchList, ListFetchError } from '../../../server/src/domain/trust/trusted-list-refresh.ts';

let server: http.Server;
let base: string;
let hits = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits++;
    const url = req.url ?? '/';
    if (url === '/list.xml') return void res.end('<list/>');
    if (url === '/moved') return void res.writeHead(302, { location: '/list.xml' }).end();
    if (url.startsWith('/loop')) return void res.writeHead(301, { location: `/loop${Number(url.slice(5) || 0) + 1}` }).end();
    if (url === '/to-ftp') return void res.writeHead(302, { location: 'ftp://127.0.0.1/list.xml' }).end();
    if (url === '/to-public-name') return void res.writeHead(302, { location: `http://lists.example:${(server.address() as AddressInfo).port}/list.xml` }).end();
    if (url === '/big-declared') return void res.writeHead(200, { 'content-length': '2048' }).end('x'.repeat(2048));
    if (url === '/big-streamed') {
      res.writeHead(200); // chunked: no Content-Length
      for (let i = 0; i < 4; i++) res.write('y'.repeat(512));
      return void res.end();
    }
    res.writeHead(500).end('no');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const allowed = { allowPrivate: true, timeoutMs: 10_000 };

describe('fetchList', () => {
  it('gets a list, following a redirect; the final URL is returned', async () => {
    const got = await fetchList(`${base}/moved`, allowed);
    expect(Buffer.from(got.bytes).toString()).toBe('<list/>');
    expect(got.url).toBe(`${base}/list.xml`);
  });

  it('refuses loopback and private addresses unless allowed: literal IPs, localhost, and names that resolve to one', async () => {
    const before = hits;
    await expect(fetchList(`${base}/list.xml`, { allowPrivate: false })).rejects.toThrow('127.0.0.1 is not a public address');
    await expect(fetchList('http://localhost/list.xml', { allowPrivate: false })).rejects.toThrow('localhost is not a public address');
    const lookup = async () => [{ address: '127.0.0.1', family: 4 }];
    const port = (server.address() as AddressInfo).port;
    await expect(fetchList(`http://lists.example:${port}/list.xml`, { allowPrivate: false, lookup })).rejects.toThrow(/lists\.example resolves to 127\.0\.0\.1 \(loopback\), which is not a public address/);
    expect(hits).toBe(before); // nothing reached the server
    // A redirect's target goes through the same guarded lookup (here allowed, to reach the test server by name).
    await expect(fetchList(`${base}/to-public-name`, { allowPrivate: true, lookup })).resolves.toMatchObject({ url: `http://lists.example:${port}/list.xml` });
  });

  it('http(s) only, no user or password, also after a redirect', async () => {
    await expect(fetchList('ftp://127.0.0.1/list.xml', allowed)).rejects.toThrow('only http and https URLs are fetched (got ftp:)');
    await expect(fetchList(`http://u:p@127.0.0.1:1/list.xml`, allowed)).rejects.toThrow('a URL with a user or password is not fetched');
    await expect(fetchList(`${base}/to-ftp`, allowed)).rejects.toThrow('only http and https URLs are fetched (got ftp:)');
    await expect(fetchList(`${base}/loop`, allowed)).rejects.toThrow('more than 5 redirects');
  });

  it('refuses a list over the size cap, declared or streamed, and an HTTP error', async () => {
    await expect(fetchList(`${base}/big-declared`, { ...allowed, maxBytes: 1024 })).rejects.toThrow('larger than 1024 bytes');
    await expect(fetchList(`${base}/big-streamed`, { ...allowed, maxBytes: 1024 })).rejects.toThrow('larger than 1024 bytes');
    expect((await fetchList(`${base}/big-streamed`, { ...allowed, maxBytes: 4096 })).bytes).toHaveLength(2048);
    await expect(fetchList(`${base}/nope`, allowed)).rejects.toThrow(ListFetchError);
    await expect(fetchList(`${base}/nope`, allowed)).rejects.toThrow('HTTP 500');
  });

  it('stops at once when its signal is aborted', async () => {
    const stop = new AbortController();
    stop.abort();
    await expect(fetchList(`${base}/list.xml`, { ...allowed, signal: stop.signal })).rejects.toThrow('stopped');
  });
});
