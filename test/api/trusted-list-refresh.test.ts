// EU trusted lists refreshed from their URLs (#20, part 2), offline: a node:http server on 127.0.0.1 serves a LOTL and
// national lists written and signed here. Through the real database (PGlite, and PostgreSQL when DATABASE_URL is
// set): the anchors change without a restart, what does not verify or goes back is refused and the copy held stays,
// an unreachable or silent server changes nothing, `off` fetches nothing, one process of two fetches per interval and
// the other picks the copy up, and a copy tampered with in the database is refused when read.
import { createHash } from 'node:crypto';
import http from 'node:http';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../server/src/config.ts';
import { TrustedLists } from '../../server/src/domain/trust/trusted-list-refresh.ts';
import type { Services } from '../../server/src/http/context.ts';
import { createLogger } from '../../server/src/logger.ts';
import { openServices } from '../../server/src/services.ts';
import type { TrustStore } from '../../server/src/validators/pdf-signature/index.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';
import { EC, GRANTED, listXml, party, pointer, RSA, service, sign, tsp, type Party } from '../support/trusted-lists.ts';

type Logger = Services['logger'];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Route {
  status?: number;
  body?: string;
  /** Never answer (a server that hangs). */
  hang?: boolean;
}

/** The lists' server: routes set by each test; counts the requests per path. */
class ListServer {
  routes = new Map<string, Route>();
  hits = new Map<string, number>();
  private server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
    const r = this.routes.get(path);
    if (r?.hang) return; // closed by closeAllConnections in stop()
    res.writeHead(r?.status ?? (r ? 200 : 404), { 'content-type': 'application/xml' });
    res.end(r?.body ?? '');
  });
  base = '';
  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  hit(path: string): number {
    return this.hits.get(path) ?? 0;
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A logger whose lines (level and message) a test can read: pino's call shapes, `(msg)` and `(object, msg)`. */
function capturingLogger() {
  const lines: { level: 'debug' | 'info' | 'warn' | 'error'; msg: string }[] = [];
  const at = (level: 'debug' | 'info' | 'warn' | 'error') => (a: unknown, b?: string) => void lines.push({ level, msg: typeof a === 'string' ? a : (b ?? '') });
  const logger = { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') } as unknown as Logger;
  const of = (level: string) => () => lines.filter((l) => l.level === level).map((l) => l.msg);
  return { logger, warnings: of('warn'), infos: of('info'), debugs: of('debug'), lines };
}

let lotlSigner: Party; // RSA, pinned in the seed directory's lotl-signers/
let esSigner: Party; // ECDSA, announced by the LOTL for ES
let esSigner2: Party; // the ES signer a later LOTL announces instead
let stranger: Party;
let caV1: Party;
let caV2: Party;
let lists: ListServer;
let seedDir: string;

const lotlXml = (sequence: number, es = esSigner) =>
  sign(listXml('EU', { sequence, pointers: pointer('EU', lotlSigner, `${lists.base}/lotl.xml`) + pointer('ES', es, `${lists.base}/ES.xml`) + pointer('FR', stranger, `${lists.base}/FR.xml`) }), lotlSigner);
const esXml = (sequence: number, ca: Party, name: string, signer = esSigner) =>
  sign(listXml('ES', { sequence, issued: '2026-02-01T00:00:00Z', tsps: tsp('Example TSP', service(name, ca, GRANTED, '2016-07-01T00:00:00Z')) }), signer);
const esWarning = (warnings: string[]) => warnings.find((w) => w.startsWith('trusted lists: ES '));
const labels = (store: TrustStore) => (store.listed ?? []).map((a) => a.label);

beforeAll(async () => {
  [lotlSigner, esSigner, esSigner2, stranger, caV1, caV2] = await Promise.all([
    party('LOTL signer', RSA),
    party('ES TL signer', EC),
    party('ES TL signer 2', EC),
    party('Stranger', EC),
    party('ES CA 1', EC),
    party('ES CA 2', EC),
  ]);
  lists = new ListServer();
  await lists.start();
  // The operator's seed directory: the pinned LOTL signer only (no lists: everything comes from the refresh).
  seedDir = await mkdtemp(join(tmpdir(), 'cotejo-tl-seed-'));
  await mkdir(join(seedDir, 'lotl-signers'));
  await writeFile(join(seedDir, 'lotl-signers', 'oj.pem'), lotlSigner.pem);
}, 60_000);

afterAll(async () => {
  await lists?.stop();
  if (seedDir) await rm(seedDir, { recursive: true, force: true });
});

describe.each(DATABASES)('trusted-list refresh on %s', (kind) => {
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  const emptyShipped = join(tmpdir(), 'cotejo-no-shipped-seed'); // absent: nothing shipped
  let app: TestApp;
  let config: Config;
  const others: Array<{ close(): Promise<void> }> = [];

  /** Another process's trusted lists on the same database (on PostgreSQL its own services and pool). */
  async function process2(overrides: Partial<Config> = {}, opts: { timeoutMs?: number; shippedDir?: string } = {}) {
    const log = capturingLogger();
    const cfg = { ...config, ...overrides };
    const trustStore: TrustStore = { roots: [], source: 'test', listed: [] };
    let services: Services | null = null;
    let db = app.services.db;
    if (kind === 'postgres') {
      services = await openServices(cfg, clock, createLogger('silent'), { schema: app.services.database.schema, poolSize: 2 });
      db = services.db;
      others.push({ close: () => services!.database.close() });
    }
    const tl = await TrustedLists.open({ db, clock, config: cfg, logger: log.logger, trustStore }, { shippedDir: opts.shippedDir ?? emptyShipped, timeoutMs: opts.timeoutMs });
    return { tl, trustStore, ...log };
  }

  beforeAll(async () => {
    lists.routes.clear();
    lists.hits.clear();
    app = await startTestApp(kind, { clock, config: { trustedListsDir: seedDir, trustedListsUrl: `${lists.base}/lotl.xml`, allowPrivateUrls: true, trustedListsRefreshMs: DAY } });
    config = app.services.config;
  });
  afterAll(async () => {
    for (const o of others.reverse()) await o.close();
    await app?.close();
  });

  let a: Awaited<ReturnType<typeof process2>>;

  it('fetches the LOTL and the lists it points to; the anchors change without a restart, in the database too', async () => {
    lists.routes.set('/lotl.xml', { body: lotlXml(1) });
    lists.routes.set('/ES.xml', { body: esXml(10, caV1, 'ES CA one') });
    lists.routes.set('/FR.xml', { status: 404 });
    a = await process2();
    expect(labels(a.trustStore)).toEqual([]);
    expect(a.tl.refreshes).toBe(true);

    expect(await a.tl.refresh()).toBe('refreshed');
    expect(labels(a.trustStore)).toEqual(['EU trusted list ES: ES CA one']);
    expect(a.trustStore.listed![0].fetchedAt?.toISOString()).toBe(clock.now().toISOString());
    expect([lists.hit('/lotl.xml'), lists.hit('/ES.xml'), lists.hit('/FR.xml')]).toEqual([1, 1, 1]);
    expect(a.warnings()).toEqual([`trusted lists: FR not fetched from ${lists.base}/FR.xml: HTTP 404; the copy held stays`]);
    const rows = await app.services.db.selectFrom('trusted_lists').select(['territory', 'sequence', 'source_url', 'fetched_at']).orderBy('territory').execute();
    expect(rows.map((r) => [r.territory, r.sequence, r.source_url, new Date(r.fetched_at).toISOString()])).toEqual([
      ['ES', 10, `${lists.base}/ES.xml`, clock.now().toISOString()],
      ['EU', 1, `${lists.base}/lotl.xml`, clock.now().toISOString()],
    ]);

    // The app's own services pick the copy up on their sweep (no restart): its trust store now has the anchor.
    expect(labels(app.services.trustStore)).toEqual([]);
    expect(await app.services.trustedLists!.pickUp()).toBe(true);
    expect(labels(app.services.trustStore)).toEqual(['EU trusted list ES: ES CA one']);
    expect(await app.services.trustedLists!.pickUp()).toBe(false);
  });

  it('not due yet: a second refresh within the interval fetches nothing', async () => {
    clock.advance(HOUR);
    expect(await a.tl.refresh()).toBe('not_due');
    expect(lists.hit('/lotl.xml')).toBe(1);
  });

  it('two processes on one database: one fetches per interval, the other picks the copy up', async () => {
    const b = await process2();
    // B starts from the database: the copy A fetched, verified again.
    expect(labels(b.trustStore)).toEqual(['EU trusted list ES: ES CA one']);
    lists.routes.set('/ES.xml', { body: esXml(11, caV2, 'ES CA two') });
    clock.advance(DAY);
    const [outA, outB] = await Promise.all([a.tl.refresh(), b.tl.refresh()]);
    expect([outA, outB].sort()).toEqual(['not_due', 'refreshed']);
    expect(lists.hit('/lotl.xml')).toBe(2);
    expect(lists.hit('/ES.xml')).toBe(2);
    // Whichever fetched has the new list; the other takes it from the database (verifying it again).
    const [fetcher, other] = outA === 'refreshed' ? [a, b] : [b, a];
    expect(labels(fetcher.trustStore)).toEqual(['EU trusted list ES: ES CA two']);
    expect(labels(other.trustStore)).toEqual(['EU trusted list ES: ES CA one']);
    expect(await other.tl.pickUp()).toBe(true);
    expect(labels(a.trustStore)).toEqual(['EU trusted list ES: ES CA two']);
    expect(labels(b.trustStore)).toEqual(['EU trusted list ES: ES CA two']);
  });

  it('the periodic sweep picks up what another process stored', async () => {
    const b = await process2();
    const loop = b.tl.start({ fetch: false, sweepMs: 50 });
    try {
      lists.routes.set('/ES.xml', { body: esXml(12, caV1, 'ES CA three') });
      clock.advance(DAY);
      expect(await a.tl.refresh()).toBe('refreshed');
      const deadline = Date.now() + 20_000;
      while (!labels(b.trustStore).includes('EU trusted list ES: ES CA three') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(labels(b.trustStore)).toEqual(['EU trusted list ES: ES CA three']);
    } finally {
      await loop.stop();
    }
  });

  it('a list changed after signing is refused with one warning; the copy held stays (here and in the database)', async () => {
    const signed = esXml(13, caV2, 'ES CA four');
    lists.routes.set('/ES.xml', { body: signed.replace('ES CA four', 'ES CA evil') });
    clock.advance(DAY);
    const before = a.warnings().length;
    expect(await a.tl.refresh()).toBe('refreshed');
    expect(labels(a.trustStore)).toEqual(['EU trusted list ES: ES CA three']);
    const added = a.warnings().slice(before);
    expect(added).toHaveLength(2); // ES refused; FR still 404
    expect(esWarning(added)).toMatch(new RegExp(`^trusted lists: ES from ${lists.base}/ES.xml refused: signature`));
    const row = await app.services.db.selectFrom('trusted_lists').select('sequence').where('territory', '=', 'ES').executeTakeFirstOrThrow();
    expect(row.sequence).toBe(12);
  });

  it('a list signed by a key the LOTL does not announce is refused', async () => {
    lists.routes.set('/ES.xml', { body: esXml(14, caV2, 'ES CA five', stranger) });
    clock.advance(DAY);
    const before = a.warnings().length;
    expect(await a.tl.refresh()).toBe('refreshed');
    expect(labels(a.trustStore)).toEqual(['EU trusted list ES: ES CA three']);
    expect(esWarning(a.warnings().slice(before))).toMatch(/^trusted lists: ES from .* refused: KeyInfo carries a certificate that is not a pinned signer/);
  });

  it('a lower sequence number is refused (no rollback), even when it verifies', async () => {
    lists.routes.set('/ES.xml', { body: esXml(5, caV2, 'ES CA old') });
    clock.advance(DAY);
    const before = a.warnings().length;
    expect(await a.tl.refresh()).toBe('refreshed');
    expect(labels(a.trustStore)).toEqual(['EU trusted list ES: ES CA three']);
    expect(esWarning(a.warnings().slice(before))).toBe(`trusted lists: ES from ${lists.base}/ES.xml refused: sequence number 5 is lower than the 12 held`);
    // An older LOTL is refused too, and then nothing else is fetched.
    lists.routes.set('/lotl.xml', { body: lotlXml(0) });
    lists.routes.set('/ES.xml', { body: esXml(20, caV2, 'ES CA six') });
    clock.advance(DAY);
    const esHits = lists.hit('/ES.xml');
    expect(await a.tl.refresh()).toBe('failed');
    expect(lists.hit('/ES.xml')).toBe(esHits);
    expect(labels(a.trustStore)).toEqual(['EU trusted list ES: ES CA three']);
    lists.routes.set('/lotl.xml', { body: lotlXml(1) });
  });

  it('the same LOTL fetched again only moves its date forward; a list with the same sequence number is taken', async () => {
    lists.routes.set('/ES.xml', { body: esXml(12, caV1, 'ES CA three') }); // signed again: other bytes, same sequence
    clock.advance(DAY);
    expect(await a.tl.refresh()).toBe('refreshed');
    expect(labels(a.trustStore)).toEqual(['EU trusted list ES: ES CA three']);
    const lotlRow = await app.services.db.selectFrom('trusted_lists').select(['fetched_at', 'sequence']).where('territory', '=', 'EU').executeTakeFirstOrThrow();
    expect([lotlRow.sequence, new Date(lotlRow.fetched_at).toISOString()]).toEqual([1, clock.now().toISOString()]);
    expect(a.trustStore.listed![0].fetchedAt?.toISOString()).toBe(clock.now().toISOString());
  });

  it('COTEJO_TRUSTED_LISTS_TERRITORIES: the lists of other territories are neither fetched nor used', async () => {
    const fr = await process2({ trustedListsTerritories: new Set(['FR']) });
    expect(fr.tl.current.lotl?.list.sequence).toBe(1);
    expect(labels(fr.trustStore)).toEqual([]); // ES is in the database, but not wanted
    const [esHits, frHits] = [lists.hit('/ES.xml'), lists.hit('/FR.xml')];
    clock.advance(DAY);
    expect(await fr.tl.refresh()).toBe('refreshed');
    expect([lists.hit('/ES.xml'), lists.hit('/FR.xml')]).toEqual([esHits, frHits + 1]);
    expect(labels(fr.trustStore)).toEqual([]);
  });

  it('a server that does not answer, or cannot be reached, changes nothing; the next try comes within an hour', async () => {
    const slow = await process2({}, { timeoutMs: 500 });
    expect(labels(slow.trustStore)).toEqual(['EU trusted list ES: ES CA three']);
    lists.routes.set('/lotl.xml', { hang: true });
    clock.advance(DAY);
    expect(await slow.tl.refresh()).toBe('failed');
    expect(slow.warnings()).toEqual([`trusted lists: LOTL not fetched from ${lists.base}/lotl.xml: timed out after 1 s; the lists held stay in use`]);
    expect(labels(slow.trustStore)).toEqual(['EU trusted list ES: ES CA three']);
    lists.routes.set('/lotl.xml', { body: lotlXml(1) });

    // Unreachable: a port nobody listens on.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const away = await process2({ trustedListsUrl: `http://127.0.0.1:${port}/lotl.xml` });
    clock.advance(59 * 60_000);
    expect(await away.tl.refresh()).toBe('not_due');
    clock.advance(60_000);
    expect(await away.tl.refresh()).toBe('failed');
    expect(away.warnings()[0]).toMatch(/LOTL not fetched from .*: ECONNREFUSED/);
    expect(labels(away.trustStore)).toEqual(['EU trusted list ES: ES CA three']);
  });

  it('off fetches nothing; no pinned LOTL signer means no refresh either (one line says why: info when set off, debug when nothing is pinned)', async () => {
    const hits = lists.hit('/lotl.xml');
    clock.advance(DAY);
    const off = await process2({ trustedListsRefreshMs: null });
    expect(off.tl.refreshes).toBe(false);
    expect(await off.tl.refresh()).toBe('off');
    const loop = off.tl.start({ fetch: true, sweepMs: 20 });
    await new Promise((r) => setTimeout(r, 200));
    await loop.stop();
    expect(off.infos()).toContain('trusted lists: refresh is off (COTEJO_TRUSTED_LISTS_REFRESH=off)');

    const unpinned = await process2({ trustedListsDir: undefined });
    expect(await unpinned.tl.refresh()).toBe('off');
    // Not configured at all is the default: a debug line, not news for the person starting the server (#29 item 7).
    expect(unpinned.debugs()).toContain(
      'trusted lists: refresh is off: no pinned LOTL signer certificate (COTEJO_TRUSTED_LISTS_DIR/lotl-signers/), so nothing fetched could be verified',
    );
    // Without a pin, the database copies cannot be verified either: no anchors.
    expect(labels(unpinned.trustStore)).toEqual([]);
    expect(lists.hit('/lotl.xml')).toBe(hits);
  });

  it('seed directories (the one a release may ship, COTEJO_TRUSTED_LISTS_DIR) and the database: the newest verified copy wins', async () => {
    const shipped = await mkdtemp(join(tmpdir(), 'cotejo-tl-shipped-'));
    const operator = await mkdtemp(join(tmpdir(), 'cotejo-tl-operator-'));
    try {
      await mkdir(join(shipped, 'lotl-signers'));
      await writeFile(join(shipped, 'lotl-signers', 'oj.pem'), lotlSigner.pem);
      await writeFile(join(shipped, 'lotl.xml'), lotlXml(1));
      await writeFile(join(shipped, 'ES.xml'), esXml(3, caV2, 'ES CA shipped'));
      // The shipped seed alone (no COTEJO_TRUSTED_LISTS_DIR): its pins verify the database's LOTL, whose ES (12) is newer.
      const alone = await process2({ trustedListsDir: undefined }, { shippedDir: shipped });
      expect(alone.tl.refreshes).toBe(true);
      expect(labels(alone.trustStore)).toEqual(['EU trusted list ES: ES CA three']);
      // An operator's seed with a newer ES (30) wins over the database; it has no fetch date (its issue date ages it).
      await mkdir(join(operator, 'lotl-signers'));
      await writeFile(join(operator, 'lotl-signers', 'oj.pem'), lotlSigner.pem);
      await writeFile(join(operator, 'ES.xml'), esXml(30, caV2, 'ES CA operator'));
      const both = await process2({ trustedListsDir: operator }, { shippedDir: shipped });
      expect(labels(both.trustStore)).toEqual(['EU trusted list ES: ES CA operator']);
      expect(both.trustStore.listed![0].fetchedAt).toBeNull();
      expect(both.warnings()).toEqual([]);
    } finally {
      await rm(shipped, { recursive: true, force: true });
      await rm(operator, { recursive: true, force: true });
    }
  });

  it('a copy tampered with in the database is refused when read; the others stay', async () => {
    await a.tl.pickUp(); // A is up to date with the database
    const row = await app.services.db.selectFrom('trusted_lists').select('xml').where('territory', '=', 'ES').executeTakeFirstOrThrow();
    const tampered = Buffer.from(Buffer.from(row.xml).toString('utf8').replace('ES CA three', 'ES CA evil'));
    await app.services.db
      .updateTable('trusted_lists')
      .set({ xml: new Uint8Array(tampered), sha256: createHash('sha256').update(tampered).digest('hex') })
      .where('territory', '=', 'ES')
      .execute();
    const c = await process2();
    expect(labels(c.trustStore)).toEqual([]);
    expect(c.tl.current.lotl?.list.sequence).toBe(1);
    expect(c.warnings()).toEqual([expect.stringMatching(/^trusted lists: ES from the database refused: signature/)]);
    // A process that holds the good copy keeps it on its sweep (one warning), and does not read the bad row again.
    const before = a.warnings().length;
    expect(await a.tl.pickUp()).toBe(false);
    expect(labels(a.trustStore)).toEqual(['EU trusted list ES: ES CA three']);
    expect(a.warnings().slice(before)).toEqual([expect.stringMatching(/^trusted lists: ES from the database refused: signature/)]);
    expect(await a.tl.pickUp()).toBe(false);
    expect(a.warnings()).toHaveLength(before + 1);
  });

  it('a new LOTL that no longer announces the signer of the list held drops that list; the list signed by the new signer is taken', async () => {
    lists.routes.set('/lotl.xml', { body: lotlXml(2, esSigner2) });
    lists.routes.set('/ES.xml', { status: 503 });
    clock.advance(DAY);
    const before = a.warnings().length;
    expect(await a.tl.refresh()).toBe('refreshed');
    expect(a.tl.current.lotl?.list.sequence).toBe(2);
    expect(labels(a.trustStore)).toEqual([]);
    expect(a.warnings().slice(before)).toContain('trusted lists: ES: the LOTL no longer announces the certificate that signed the list held; dropped');

    lists.routes.set('/ES.xml', { body: esXml(13, caV2, 'ES CA rotated', esSigner2) });
    clock.advance(DAY);
    expect(await a.tl.refresh()).toBe('refreshed');
    expect(labels(a.trustStore)).toEqual(['EU trusted list ES: ES CA rotated']);
  });
});
