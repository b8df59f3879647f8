// LOTL signer rotation followed through pivot LOTLs (#20), offline: a node:http server on 127.0.0.1 serves LOTLs,
// pivots and a national list written and signed here. Through the real database (PGlite, and PostgreSQL when
// DATABASE_URL is set): with A pinned, a LOTL signed by B after a pivot signed by A that announces B is taken, then C
// after a second pivot; the chain is stored so another process (a restart) verifies without fetching a pivot; a forged
// pivot, or a LOTL signed by a key no pivot announces, is refused with one warning and everything held stays.
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
const DAY = 24 * 3_600_000;
const OJ = 'https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=uriserv:OJ.C_.2019.276.01.0001.01.ENG';

/** The lists' server: bodies by path, requests counted per path. */
class ListServer {
  bodies = new Map<string, string>();
  hits = new Map<string, number>();
  base = '';
  private server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
    const body = this.bodies.get(path);
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/xml' });
    res.end(body ?? '');
  });
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

function capturingLogger() {
  const lines: { level: string; msg: string }[] = [];
  const at = (level: string) => (x: unknown, y?: string) => void lines.push({ level, msg: typeof x === 'string' ? x : (y ?? '') });
  const logger = { info: at('info'), warn: at('warn'), error: at('error'), debug() {} } as unknown as Logger;
  return { logger, warnings: () => lines.filter((l) => l.level === 'warn').map((l) => l.msg), infos: () => lines.filter((l) => l.level === 'info').map((l) => l.msg) };
}

let pinA: Party; // pinned (lotl-signers/oj.pem)
let keyB: Party;
let keyC: Party;
let forger: Party;
let esSigner: Party;
let ca1: Party;
let ca2: Party;
let ca3: Party;
let lists: ListServer;
let seedDir: string;

const url = (path: string) => `${lists.base}${path}`;
/** A LOTL (or a pivot: an older LOTL) of `sequence`, signed by `signer`, announcing `announces` for the LOTL itself. */
const lotlDoc = (sequence: number, signer: Party, announces: Party, pivots: string[] = []) =>
  sign(
    listXml('EU', {
      sequence,
      uris: [OJ, ...pivots.map(url)],
      pointers: pointer('EU', announces, url('/lotl.xml')) + pointer('ES', esSigner, url('/ES.xml')),
    }),
    signer,
  );
const esXml = (sequence: number, ca: Party, name: string) =>
  sign(listXml('ES', { sequence, tsps: tsp('Example TSP', service(name, ca, GRANTED, '2016-07-01T00:00:00Z')) }), esSigner);
const labels = (store: TrustStore) => (store.listed ?? []).map((x) => x.label);

beforeAll(async () => {
  [pinA, keyB, keyC, forger, esSigner, ca1, ca2, ca3] = await Promise.all([
    party('LOTL signer A', RSA),
    party('LOTL signer B', EC),
    party('LOTL signer C', RSA),
    party('Forger', EC),
    party('ES TL signer', EC),
    party('ES CA 1', EC),
    party('ES CA 2', EC),
    party('ES CA 3', EC),
  ]);
  lists = new ListServer();
  await lists.start();
  seedDir = await mkdtemp(join(tmpdir(), 'cotejo-tl-pivots-'));
  await mkdir(join(seedDir, 'lotl-signers'));
  await writeFile(join(seedDir, 'lotl-signers', 'oj.pem'), pinA.pem);
}, 60_000);

afterAll(async () => {
  await lists?.stop();
  if (seedDir) await rm(seedDir, { recursive: true, force: true });
});

describe.each(DATABASES)('LOTL signer rotation on %s', (kind) => {
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  const noShipped = join(tmpdir(), 'cotejo-no-shipped-seed');
  let app: TestApp;
  let config: Config;
  const others: Array<{ close(): Promise<void> }> = [];

  /** Another process on the same database (on PostgreSQL its own services and pool): what a restart sees. */
  async function process2() {
    const log = capturingLogger();
    const trustStore: TrustStore = { roots: [], source: 'test', listed: [] };
    let db = app.services.db;
    if (kind === 'postgres') {
      const services = await openServices(config, clock, createLogger('silent'), { schema: app.services.database.schema, poolSize: 2 });
      db = services.db;
      others.push({ close: () => services.database.close() });
    }
    const tl = await TrustedLists.open({ db, clock, config, logger: log.logger, trustStore }, { shippedDir: noShipped });
    return { tl, trustStore, ...log };
  }
  const pivotRows = async () => (await app.services.db.selectFrom('trusted_list_pivots').select(['url', 'position', 'sequence']).orderBy('position').execute()).map((r) => [r.url, r.position, r.sequence]);
  const lotlSequence = async () => (await app.services.db.selectFrom('trusted_lists').select('sequence').where('territory', '=', 'EU').executeTakeFirstOrThrow()).sequence;

  let a: Awaited<ReturnType<typeof process2>>;

  beforeAll(async () => {
    lists.bodies.clear();
    lists.hits.clear();
    app = await startTestApp(kind, { clock, config: { trustedListsDir: seedDir, trustedListsUrl: url('/lotl.xml'), allowPrivateUrls: true, trustedListsRefreshMs: DAY } });
    config = app.services.config;
  });
  afterAll(async () => {
    for (const o of others.reverse()) await o.close();
    await app?.close();
  });

  it('before any rotation: the LOTL signed by the pinned A is taken, no pivot fetched', async () => {
    lists.bodies.set('/lotl.xml', lotlDoc(1, pinA, pinA));
    lists.bodies.set('/ES.xml', esXml(10, ca1, 'ES CA one'));
    a = await process2();
    expect(await a.tl.refresh()).toBe('refreshed');
    expect(labels(a.trustStore)).toEqual(['EU trusted list ES: ES CA one']);
    expect(a.warnings()).toEqual([]);
    expect(await pivotRows()).toEqual([]);
  });

  it('A to B through one pivot: the LOTL signed by B is taken, the anchors change, the chain is stored', async () => {
    lists.bodies.set('/pivot-2.xml', lotlDoc(2, pinA, keyB));
    lists.bodies.set('/lotl.xml', lotlDoc(3, keyB, keyB, ['/pivot-2.xml']));
    lists.bodies.set('/ES.xml', esXml(11, ca2, 'ES CA two'));
    clock.advance(DAY);
    expect(await a.tl.refresh()).toBe('refreshed');
    expect(a.tl.current.lotl?.list.sequence).toBe(3);
    expect(labels(a.trustStore)).toEqual(['EU trusted list ES: ES CA two']);
    expect(lists.hit('/pivot-2.xml')).toBe(1);
    expect(a.warnings()).toEqual([]);
    expect(a.infos()).toContain('trusted lists: LOTL signing certificates rotated; followed 1 pivot LOTL(s) from the pinned certificates');
    expect(await pivotRows()).toEqual([[url('/pivot-2.xml'), 0, 2]]);
    expect(await lotlSequence()).toBe(3);

    // The same LOTL again: it verifies with B, no pivot fetched.
    clock.advance(DAY);
    expect(await a.tl.refresh()).toBe('refreshed');
    expect(lists.hit('/pivot-2.xml')).toBe(1);
  });

  it('a restart (another process on the database) verifies with the stored chain without fetching a pivot; a running one picks it up', async () => {
    const b = await process2();
    expect(b.tl.current.lotl?.list.sequence).toBe(3);
    expect(labels(b.trustStore)).toEqual(['EU trusted list ES: ES CA two']);
    expect(b.warnings()).toEqual([]);
    expect(lists.hit('/pivot-2.xml')).toBe(1);
    // The app's own services started before the rotation: their sweep takes the chain, then the LOTL signed by B.
    expect(await app.services.trustedLists!.pickUp()).toBe(true);
    expect(app.services.trustedLists!.current.lotl?.list.sequence).toBe(3);
    expect(labels(app.services.trustStore)).toEqual(['EU trusted list ES: ES CA two']);
    expect(await app.services.trustedLists!.pickUp()).toBe(false);
  });

  it('A to B to C through two pivots (oldest first); the pivot held is not fetched again', async () => {
    lists.bodies.set('/pivot-4.xml', lotlDoc(4, keyB, keyC, ['/pivot-2.xml']));
    lists.bodies.set('/lotl.xml', lotlDoc(5, keyC, keyC, ['/pivot-4.xml', '/pivot-2.xml']));
    lists.bodies.set('/ES.xml', esXml(12, ca3, 'ES CA three'));
    clock.advance(DAY);
    expect(await a.tl.refresh()).toBe('refreshed');
    expect(a.tl.current.lotl?.list.sequence).toBe(5);
    expect(labels(a.trustStore)).toEqual(['EU trusted list ES: ES CA three']);
    expect([lists.hit('/pivot-2.xml'), lists.hit('/pivot-4.xml')]).toEqual([1, 1]);
    expect(a.warnings()).toEqual([]);
    expect(await pivotRows()).toEqual([
      [url('/pivot-2.xml'), 0, 2],
      [url('/pivot-4.xml'), 1, 4],
    ]);
    // A fresh process rebuilds A to B to C from its pin and the stored chain.
    const c = await process2();
    expect(c.tl.current.lotl?.list.sequence).toBe(5);
    expect(labels(c.trustStore)).toEqual(['EU trusted list ES: ES CA three']);
    expect([lists.hit('/pivot-2.xml'), lists.hit('/pivot-4.xml')]).toEqual([1, 1]);
  });

  it('a forged pivot (signed by a key nobody announced) is refused with one warning naming it; everything held stays', async () => {
    lists.bodies.set('/pivot-6.xml', lotlDoc(6, forger, forger, ['/pivot-4.xml', '/pivot-2.xml']));
    lists.bodies.set('/lotl.xml', lotlDoc(7, forger, forger, ['/pivot-6.xml', '/pivot-4.xml', '/pivot-2.xml']));
    lists.bodies.set('/ES.xml', esXml(13, ca1, 'ES CA forged era'));
    const [esHits, before] = [lists.hit('/ES.xml'), a.warnings().length];
    clock.advance(DAY);
    expect(await a.tl.refresh()).toBe('failed');
    expect(a.warnings().slice(before)).toEqual([
      expect.stringMatching(
        new RegExp(`^trusted lists: LOTL from ${url('/lotl.xml')} not taken: pivot ${url('/pivot-6.xml')} refused: does not verify with the certificates the pivot before it announces: KeyInfo carries`),
      ),
    ]);
    expect(lists.hit('/ES.xml')).toBe(esHits);
    expect(a.tl.current.lotl?.list.sequence).toBe(5);
    expect(labels(a.trustStore)).toEqual(['EU trusted list ES: ES CA three']);
    expect(await pivotRows()).toHaveLength(2);
    expect(await lotlSequence()).toBe(5);
  });

  it('a LOTL signed by a key that no pivot announces is refused (its own KeyInfo and self-pointer bring no trust)', async () => {
    lists.bodies.set('/lotl.xml', lotlDoc(7, forger, forger, ['/pivot-4.xml', '/pivot-2.xml']));
    const before = a.warnings().length;
    clock.advance(DAY);
    expect(await a.tl.refresh()).toBe('failed');
    expect(a.warnings().slice(before)).toEqual([
      `trusted lists: LOTL from ${url('/lotl.xml')} not taken: it does not verify with the certificates the last pivot (${url('/pivot-4.xml')}) announces; the lists held stay in use`,
    ]);
    expect(a.tl.current.lotl?.list.sequence).toBe(5);
    expect(labels(a.trustStore)).toEqual(['EU trusted list ES: ES CA three']);
    expect(await lotlSequence()).toBe(5);
  });

  it('a pivot that cannot be fetched keeps everything as it was', async () => {
    lists.bodies.set('/lotl.xml', lotlDoc(9, forger, forger, ['/pivot-8.xml', '/pivot-4.xml', '/pivot-2.xml']));
    const before = a.warnings().length;
    clock.advance(DAY);
    expect(await a.tl.refresh()).toBe('failed');
    expect(a.warnings().slice(before)).toEqual([
      `trusted lists: LOTL from ${url('/lotl.xml')} not taken: pivot ${url('/pivot-8.xml')} not fetched: HTTP 404; the lists held stay in use`,
    ]);
    expect(a.tl.current.lotl?.list.sequence).toBe(5);
  });

  it('a stored pivot tampered with is refused when read: the pins alone, one warning', async () => {
    const row = await app.services.db.selectFrom('trusted_list_pivots').select('xml').where('position', '=', 1).executeTakeFirstOrThrow();
    const tampered = Buffer.from(Buffer.from(row.xml).toString('utf8').replace('<tsl:TSLSequenceNumber>4<', '<tsl:TSLSequenceNumber>40<'));
    await app.services.db
      .updateTable('trusted_list_pivots')
      .set({ xml: new Uint8Array(tampered), sha256: createHash('sha256').update(tampered).digest('hex') })
      .where('position', '=', 1)
      .execute();
    const d = await process2();
    expect(d.warnings()[0]).toMatch(new RegExp(`^trusted lists: the pivot chain in the database is not used: pivot ${url('/pivot-4.xml')} refused: `));
    // Without the chain the LOTL signed by C does not verify: no LOTL, no anchors (nothing is trusted on the database's word).
    expect(d.tl.current.lotl).toBeNull();
    expect(labels(d.trustStore)).toEqual([]);
  });
});
