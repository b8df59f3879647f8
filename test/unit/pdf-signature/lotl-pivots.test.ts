// LOTL signer rotation through pivot LOTLs (#20): the pure walk from the pinned certificates to those of the current
// LOTL, with pivots written and signed here (never fetched), and the pivot URLs read from SchemeInformationURI.
import { beforeAll, describe, expect, it } from 'vitest';
import { followPivots, lotlPivotUrls, readTrustList, sha256Hex, type PivotCopy } from '../../../server/src/validators/pdf-signature/trusted-lists.ts';
import { EC, listXml, party, pointer, RSA, sign, type Party } from '../../support/trusted-lists.ts';

let a: Party; // the pinned LOTL signer (an older Official Journal notice)
let b: Party;
let c: Party;
let es: Party;
let stranger: Party;
const OJ = 'https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=uriserv:OJ.C_.2019.276.01.0001.01.ENG';
const at = new Date('2026-03-01T00:00:00Z');

/** A LOTL (or pivot) of `sequence` signed by `signer`, announcing `announces` for the LOTL itself. */
const lotlDoc = (sequence: number, signer: Party, announces: Party, uris: string[] = []) =>
  sign(listXml('EU', { sequence, uris, pointers: pointer('EU', announces, 'https://lotl.example/eu-lotl.xml') + pointer('ES', es) }), signer);
const copy = (url: string, xml: string): PivotCopy => ({ url, bytes: new Uint8Array(Buffer.from(xml)), fetchedAt: at });

beforeAll(async () => {
  [a, b, c, es, stranger] = await Promise.all([party('LOTL A', RSA), party('LOTL B', EC), party('LOTL C', RSA), party('ES TL', EC), party('Stranger', EC)]);
}, 60_000);

describe('lotlPivotUrls', () => {
  it('takes the SchemeInformationURI entries whose path ends in .xml, in the order listed; the OJ page is left out', () => {
    const xml = lotlDoc(3, c, c, [OJ, 'https://lotl.example/eu-lotl-pivot-2.xml', 'https://lotl.example/eu-lotl-pivot-1.XML?x=1', 'ftp://lotl.example/p.xml', 'not a url', 'https://lotl.example/eu-lotl-pivot-2.xml']);
    expect(lotlPivotUrls(xml)).toEqual(['https://lotl.example/eu-lotl-pivot-2.xml', 'https://lotl.example/eu-lotl-pivot-1.XML?x=1']);
    expect(lotlPivotUrls(Buffer.from(xml))).toHaveLength(2);
  });

  it('none for a list without them, a document with a DOCTYPE, or one that is not a list', () => {
    expect(lotlPivotUrls(lotlDoc(3, c, c))).toEqual([]);
    expect(lotlPivotUrls(`<!DOCTYPE x>${lotlDoc(3, c, c, ['https://lotl.example/p.xml'])}`)).toEqual([]);
    expect(lotlPivotUrls('<a><b>')).toEqual([]);
    expect(lotlPivotUrls('<x xmlns="urn:other"/>')).toEqual([]);
  });
});

describe('followPivots', () => {
  it('no pivot: the pins', () => {
    const walk = followPivots([a.der], [], at);
    expect(walk).toEqual({ ok: true, signers: [a.der], followed: [], skipped: [] });
  });

  it('A to B through one pivot signed by A: B verifies the current LOTL, A no longer does', () => {
    const pivot = lotlDoc(2, a, b);
    const walk = followPivots([a.der], [copy('https://lotl.example/p2.xml', pivot)], at);
    if (!walk.ok) throw new Error(walk.reason);
    expect(walk.signers.map(sha256Hex)).toEqual([sha256Hex(b.der)]);
    expect(walk.followed.map((p) => [p.url, p.sequence, p.sha256])).toEqual([['https://lotl.example/p2.xml', 2, sha256Hex(Buffer.from(pivot))]]);
    const current = lotlDoc(3, b, b, ['https://lotl.example/p2.xml']);
    expect(readTrustList(current, walk.signers, at).sequence).toBe(3);
    expect(() => readTrustList(current, [a.der], at)).toThrow(/signature does not verify|KeyInfo/);
  });

  it('A to B to C through two pivots, oldest first', () => {
    const walk = followPivots([a.der], [copy('p2', lotlDoc(2, a, b)), copy('p3', lotlDoc(3, b, c))], at);
    if (!walk.ok) throw new Error(walk.reason);
    expect(walk.signers.map(sha256Hex)).toEqual([sha256Hex(c.der)]);
    expect(walk.followed.map((p) => p.url)).toEqual(['p2', 'p3']);
    // Newest first (as the LOTL lists them) does not work: the B to C pivot is skipped, then A to B is not enough.
    const wrong = followPivots([a.der], [copy('p3', lotlDoc(3, b, c)), copy('p2', lotlDoc(2, a, b))], at);
    expect(wrong.ok && wrong.signers.map(sha256Hex)).toEqual([sha256Hex(b.der)]);
  });

  it('pivots older than the pins are skipped: an operator who pinned B starts at the B to C pivot', () => {
    const walk = followPivots([b.der], [copy('p2', lotlDoc(2, a, b)), copy('p3', lotlDoc(3, b, c))], at);
    if (!walk.ok) throw new Error(walk.reason);
    expect(walk.signers.map(sha256Hex)).toEqual([sha256Hex(c.der)]);
    expect(walk.skipped.map((s) => s.url)).toEqual(['p2']);
    expect(walk.followed.map((p) => p.url)).toEqual(['p3']);
  });

  it('a forged pivot (signed by a key nobody pinned) is skipped and brings no trust', () => {
    const walk = followPivots([a.der], [copy('forged', lotlDoc(2, stranger, stranger))], at);
    expect(walk.ok).toBe(true);
    if (!walk.ok) return;
    expect(walk.signers).toEqual([a.der]);
    expect(walk.followed).toEqual([]);
    expect(walk.skipped).toEqual([{ url: 'forged', reason: expect.stringMatching(/KeyInfo carries a certificate that is not a pinned signer/) }]);
  });

  it('once the chain has started, a pivot that does not verify breaks it (naming the pivot)', () => {
    const walk = followPivots([a.der], [copy('p2', lotlDoc(2, a, b)), copy('forged', lotlDoc(3, stranger, stranger, []))], at);
    expect(walk).toEqual({ ok: false, pivot: 'forged', reason: expect.stringMatching(/^does not verify with the certificates the pivot before it announces: /) });
    // A pivot changed after signing, too.
    const tampered = lotlDoc(3, b, c).replace('<tsl:TSLSequenceNumber>3<', '<tsl:TSLSequenceNumber>4<');
    const broken = followPivots([a.der], [copy('p2', lotlDoc(2, a, b)), copy('p3', tampered)], at);
    expect(broken.ok === false && broken.pivot).toBe('p3');
  });

  it('a pivot that is not a LOTL, announces no LOTL signer, or does not move the sequence on is refused', () => {
    const national = sign(listXml('ES', { sequence: 2 }), a);
    expect(followPivots([a.der], [copy('es', national)], at)).toMatchObject({ ok: false, pivot: 'es', reason: 'scheme territory is ES, not EU' });
    const silent = sign(listXml('EU', { sequence: 2, pointers: pointer('ES', es) }), a);
    expect(followPivots([a.der], [copy('silent', silent)], at)).toMatchObject({ ok: false, pivot: 'silent', reason: expect.stringMatching(/announces no LOTL signer/) });
    const replay = followPivots([a.der], [copy('p2', lotlDoc(2, a, b)), copy('p2-again', lotlDoc(2, b, c))], at);
    expect(replay).toMatchObject({ ok: false, pivot: 'p2-again', reason: expect.stringMatching(/sequence number 2 is not above the 2/) });
  });

  it("the current LOTL's own KeyInfo and self-pointer bring nothing: a LOTL signed by C announcing C does not verify with B", () => {
    const walk = followPivots([a.der], [copy('p2', lotlDoc(2, a, b))], at);
    if (!walk.ok) throw new Error(walk.reason);
    expect(() => readTrustList(lotlDoc(3, c, c, ['p2']), walk.signers, at)).toThrow();
  });
});
