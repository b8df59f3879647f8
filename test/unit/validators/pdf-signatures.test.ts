// Verdicts of the PAdES verifier over the 68 PDFs of the shared test corpus (EU DSS, pyHanko,
// node-signpdf), compared with what each source project's own tests assert.
// The corpus is read at test time from ../shared/testdata/pdf-signatures (never copied here).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  loadTrustStore,
  verifyPdfSignatures,
  type PdfSignatureResult,
  type TrustStore,
} from '../../../server/src/validators/pdf-signature/index.ts';
import { corpusTrustStores, SOURCE_TRUST, TRUST_DIFFERENCES, trustOf } from '../../../bench/lib/pdf-signature-trust.ts';

const DATA = join(import.meta.dirname, '../../../../shared/testdata/pdf-signatures');

type Status = PdfSignatureResult['status'];
type Trust = 'testdata' | 'empty' | 'anchor';

interface Expectation {
  /** Statuses that agree with the source's assertion (two when the source does not assert trust). */
  expect: Status[] | null;
  /** Trust configuration mirroring the source test. */
  trust: Trust;
  /** Validation time frozen by the source test. */
  at?: string;
  why: string;
}

const VU: Status[] = ['valid', 'untrusted']; // intact & unmodified; the source does not assert trust
const PYHANKO_FROZEN = '2020-11-01T00:00:00Z';
const ADOBE_FROZEN = '2021-01-05T00:00:00Z';

// Mapping of each source assertion to a Cotejo status.
// DSS tests run offline without trust anchors (except doc-firmado): trust is not asserted, so
// "valid" and "untrusted" both agree; we still evaluate trust with every root of the testdata.
// pyHanko: tests that use an empty trust store assert "intact/valid, not trusted" => untrusted;
// tests that trust the testing CA at frozen time 2020-11-01 => valid.
const EXPECTED: Record<string, Expectation> = {
  'dss/BadEncodedCMS.pdf': { expect: ['missing'], trust: 'testdata', why: 'DSS: 0 signatures (NO_SIGNATURE_FOUND)' },
  'dss/Signature-P-PK7-2.pdf': { expect: VU, trust: 'testdata', why: 'DSS: PKCS7_T, signing certificate identified' },
  'dss/doc-firmado.pdf': { expect: ['valid'], trust: 'anchor', why: 'DSS: BASELINE-T, test trusts CA RAIZ NACIONAL COSTA RICA v2' },
  'dss/dss-2236_hide.pdf': { expect: ['modified'], trust: 'testdata', why: 'DSS: shadow attack (hide), undefined changes' },
  'dss/dss-2236_replace.pdf': { expect: ['modified'], trust: 'testdata', why: 'DSS: shadow attack (replace), undefined changes' },
  'dss/hello_signed_INCSAVE_signed.pdf': { expect: VU, trust: 'testdata', why: 'DSS: 2 signatures, both intact and valid' },
  'dss/hello_signed_INCSAVE_signed_EDITED.pdf': { expect: ['invalid'], trust: 'testdata', why: 'DSS: one ByteRange invalid (signature dictionary inconsistent)' },
  'dss/muestra-firmado-firmado.pdf': { expect: VU, trust: 'testdata', why: 'DSS: 2 signatures + 2 doc timestamps, no modifications' },
  'dss/pades-5-signatures-and-1-document-timestamp.pdf': { expect: VU, trust: 'testdata', why: 'DSS: 5 signatures + doc timestamp' },
  'dss/pades-bes-no-certificates.pdf': { expect: ['invalid'], trust: 'testdata', why: 'DSS: NOT B-level valid, no signing certificate' },
  'dss/pades-bes.pdf': { expect: VU, trust: 'testdata', why: 'DSS: valid PAdES-BES' },
  'dss/pades-signed-annot-added.pdf': { expect: VU, trust: 'testdata', why: 'DSS: annotation/form changes after signing, no undefined changes' },
  'dss/pades-spoofing-replaced-reason.pdf': { expect: ['modified'], trust: 'testdata', why: 'DSS: /Reason modified after signing' },
  'dss/pades-unsupported-signature-algorithm.pdf': { expect: ['invalid'], trust: 'testdata', why: 'DSS: NOT intact (unsupported algorithm)' },
  'dss/pdf-byterange-overlap.pdf': { expect: ['invalid'], trust: 'testdata', why: 'DSS: one of two signatures TOTAL_FAILED (ByteRange)' },
  'dss/pdf-double-signer-info.pdf': { expect: VU, trust: 'testdata', why: 'DSS: 1 signature, PDF_NOT_ETSI' },
  'dss/pdf-eof.pdf': { expect: ['invalid'], trust: 'testdata', why: 'DSS: ByteRange 1 byte past EOF' },
  'dss/pdf-removed-pages.pdf': { expect: ['modified'], trust: 'testdata', why: 'DSS: pages removed after signing' },
  'dss/pdf-signed-added-page.pdf': { expect: ['modified'], trust: 'testdata', why: 'DSS: page added after signing' },
  'dss/pdf-signed-corrupted.pdf': { expect: ['invalid'], trust: 'testdata', why: 'DSS: ByteRange invalid' },
  'dss/pdf-signed-original.pdf': { expect: VU, trust: 'testdata', why: 'DSS: intact and valid' },
  'dss/pdf-signed-out-of-byteRange.pdf': { expect: ['invalid'], trust: 'testdata', why: 'DSS: ByteRange outside the file' },
  'dss/pdf-spoofing-attack.pdf': { expect: ['modified'], trust: 'testdata', why: 'DSS: signature spoofing, undefined changes' },
  'dss/pdf-with-empty-sig.pdf': { expect: ['missing'], trust: 'testdata', why: 'DSS: empty (zero-filled) signature placeholder' },
  'dss/pkcs7-no-message-digest.pdf': { expect: VU, trust: 'testdata', why: 'DSS: PKCS7 without signed attributes, content digest matcher' },
  'dss/pkcs7.pdf': { expect: VU, trust: 'testdata', why: 'DSS: PKCS7_T' },
  'dss/self-issued-qesig.pdf': { expect: ['untrusted'], trust: 'testdata', why: 'DSS: INDETERMINATE / CERTIFICATE_CHAIN_GENERAL_FAILURE' },
  'node-signpdf/incrementally_signed.pdf': { expect: VU, trust: 'testdata', why: 'node-signpdf: signed with a self-signed test certificate' },
  'node-signpdf/signed-once.pdf': { expect: VU, trust: 'testdata', why: 'node-signpdf: signed with a self-signed test certificate' },
  'node-signpdf/signed-twice.pdf': { expect: VU, trust: 'testdata', why: 'node-signpdf: two incremental signatures' },
  'node-signpdf/signed.pdf': { expect: VU, trust: 'testdata', why: 'node-signpdf: signed with a self-signed test certificate' },
  'node-signpdf/w3dummy.pdf': { expect: ['missing'], trust: 'testdata', why: 'node-signpdf: unsigned' },
  'node-signpdf/with-placeholder.pdf': { expect: ['missing'], trust: 'testdata', why: 'node-signpdf: placeholder only' },
  'pyhanko/certified-with-indirect-refs-in-dir.pdf': { expect: ['valid'], trust: 'testdata', at: PYHANKO_FROZEN, why: 'pyHanko: val_trusted, ENTIRE_FILE' },
  'pyhanko/coverage-anomalies/base.pdf': { expect: null, trust: 'empty', why: 'not used by a pyHanko test (no verdict); all-zero placeholder' },
  'pyhanko/coverage-anomalies/one-byterange.pdf': { expect: ['invalid'], trust: 'empty', why: 'pyHanko: intact but NONSTANDARD_COVERAGE, bottom_line False; Cotejo: ByteRange not covering => invalid' },
  'pyhanko/coverage-anomalies/signature-gap-too-big.pdf': { expect: ['invalid'], trust: 'empty', why: 'pyHanko: NONSTANDARD_COVERAGE, bottom_line False => invalid' },
  'pyhanko/coverage-anomalies/tail-uncovered.pdf': { expect: ['invalid'], trust: 'empty', why: 'pyHanko: NONSTANDARD_COVERAGE, bottom_line False => invalid' },
  'pyhanko/coverage-anomalies/weird-byterange.pdf': { expect: ['invalid'], trust: 'empty', why: 'pyHanko: NONSTANDARD_COVERAGE, bottom_line False => invalid' },
  'pyhanko/ed448-disallowed-hash.pdf': { expect: ['invalid'], trust: 'empty', why: 'pyHanko: CRYPTO_CONSTRAINTS_FAILURE' },
  'pyhanko/ed448-shake256-nolen.pdf': { expect: ['untrusted'], trust: 'empty', why: 'pyHanko: intact/valid, empty trust store' },
  'pyhanko/extensions-direct.pdf': { expect: ['untrusted'], trust: 'empty', why: 'pyHanko: FORM_FILLING (extensions update allowed)' },
  'pyhanko/extensions-indirect-not-all-paths.pdf': { expect: ['modified'], trust: 'empty', why: 'pyHanko: SuspiciousModification (DontOverrideMe)' },
  'pyhanko/extensions-indirect.pdf': { expect: ['untrusted'], trust: 'empty', why: 'pyHanko: FORM_FILLING' },
  'pyhanko/extensions-update-direct.pdf': { expect: ['untrusted'], trust: 'empty', why: 'pyHanko: FORM_FILLING' },
  'pyhanko/extensions-update-indirect.pdf': { expect: ['untrusted'], trust: 'empty', why: 'pyHanko: FORM_FILLING' },
  'pyhanko/form-update-ap-indirect-sneaky-trailer.pdf': { expect: ['modified'], trust: 'empty', why: 'pyHanko: modification level OTHER (.FooBar)' },
  'pyhanko/form-update-no-override-appearance-stream-ap-indirect-sneaky.pdf': { expect: ['modified'], trust: 'empty', why: 'pyHanko: OTHER (.FooBar)' },
  'pyhanko/form-update-no-override-appearance-stream-ap-indirect.pdf': { expect: ['untrusted'], trust: 'empty', why: 'pyHanko: FORM_FILLING' },
  'pyhanko/form-update-original-ap-type-wrong.pdf': { expect: ['untrusted'], trust: 'empty', why: 'pyHanko: FORM_FILLING' },
  'pyhanko/form-update-override-appearance-stream-ap-indirect-sneaky.pdf': { expect: ['modified'], trust: 'empty', why: 'pyHanko: OTHER (.FooBar)' },
  'pyhanko/form-update-override-appearance-stream-ap-indirect.pdf': { expect: ['untrusted'], trust: 'empty', why: 'pyHanko: FORM_FILLING' },
  'pyhanko/form-update-override-appearance-stream-sneaky.pdf': { expect: ['modified'], trust: 'empty', why: 'pyHanko: OTHER (.FooBar)' },
  'pyhanko/form-update-override-appearance-stream.pdf': { expect: ['untrusted'], trust: 'empty', why: 'pyHanko: FORM_FILLING' },
  'pyhanko/minimal-signed-twice-both-created.pdf': { expect: ['untrusted'], trust: 'empty', at: ADOBE_FROZEN, why: 'pyHanko: both intact/valid, FORM_FILLING, untrusted' },
  'pyhanko/minimal-signed-twice-no-sig-type.pdf': { expect: ['untrusted'], trust: 'empty', why: 'pyHanko: FORM_FILLING' },
  'pyhanko/minimal-signed-twice-second-created.pdf': { expect: ['untrusted'], trust: 'empty', at: ADOBE_FROZEN, why: 'pyHanko: both intact/valid, untrusted' },
  'pyhanko/minimal-two-fields-signed-twice.pdf': { expect: ['untrusted'], trust: 'empty', at: ADOBE_FROZEN, why: 'pyHanko: both intact/valid, untrusted' },
  'pyhanko/minimal-two-fields.pdf': { expect: ['missing'], trust: 'empty', why: 'pyHanko: unsigned input' },
  'pyhanko/minimal-with-field.pdf': { expect: ['missing'], trust: 'empty', why: 'pyHanko: unsigned input' },
  'pyhanko/minimal.pdf': { expect: ['missing'], trust: 'empty', why: 'pyHanko: unsigned input' },
  'pyhanko/pades-lta-dss-indirect-arrs-test-2.pdf': { expect: ['valid'], trust: 'testdata', at: PYHANKO_FROZEN, why: 'pyHanko: Sig1 trusted at 2020-11-01' },
  'pyhanko/pades-lta-dss-indirect-arrs-test.pdf': { expect: ['valid'], trust: 'testdata', at: PYHANKO_FROZEN, why: 'pyHanko: B-LTA bottom_line True' },
  'pyhanko/pades-with-old-style-signing-cert-attr-issser.pdf': { expect: ['valid'], trust: 'testdata', at: PYHANKO_FROZEN, why: 'pyHanko: val_trusted' },
  'pyhanko/pades-with-old-style-signing-cert-attr.pdf': { expect: ['valid'], trust: 'testdata', at: PYHANKO_FROZEN, why: 'pyHanko: val_trusted' },
  'pyhanko/pdf-sig-with-econtent.pdf': { expect: ['invalid'], trust: 'empty', why: 'pyHanko: SignatureValidationError (detached with encapsulated content)' },
  'pyhanko/sig-no-signed-attrs.pdf': { expect: ['untrusted'], trust: 'empty', why: 'pyHanko: intact, valid, not trusted' },
  'pyhanko/sig-with-ski-sid.pdf': { expect: ['untrusted'], trust: 'empty', why: 'pyHanko: intact, valid (SKI signer identifier)' },
};

// Deliberate differences from the source's verdict, each with the reason. The test asserts that
// the set of files where Cotejo differs is exactly this set.
const DELIBERATE: Record<string, { ours: Status; reason: string }> = {
  'dss/BadEncodedCMS.pdf': {
    ours: 'invalid',
    reason:
      'DSS (BouncyCastle) cannot decode the CMS (non-DER INTEGER in the certificate) and reports no signature; ' +
      'Cotejo sees a signature dictionary with a non-empty /Contents that is not a valid DER CMS and reports it as invalid, ' +
      'so a corrupted signature is never downgraded to "unsigned".',
  },
  'dss/pdf-spoofing-attack.pdf': {
    ours: 'invalid',
    reason:
      'The attacker adds a second signature field whose dictionary copies the ByteRange and /Contents of the real signature ' +
      '(with a forged /Reason). DSS reports the document as modified with an inconsistent signature dictionary; Cotejo also finds ' +
      'the first signature modified, but the forged dictionary is a signature whose /Contents is not in its ByteRange gap, which ' +
      'the status precedence classifies as invalid (worst wins).',
  },
};

const SOURCES = ['dss', 'pyhanko', 'node-signpdf'] as const;

describe('PAdES verification over the shared corpus', () => {
  const manifest: Array<{ file: string; verdict: string }> = JSON.parse(readFileSync(join(DATA, 'manifest.json'), 'utf8'));
  const stores: Record<Trust, TrustStore> = {
    empty: { roots: [], source: 'empty' },
    testdata: { roots: [], source: 'testdata' },
    anchor: { roots: [], source: 'anchor' },
  };
  const results = new Map<string, PdfSignatureResult>();

  beforeAll(async () => {
    const [roots, pyca, anchorDir] = await Promise.all([
      loadTrustStore(join(DATA, 'roots')),
      loadTrustStore(join(DATA, 'pyhanko/ca')),
      loadTrustStore(join(DATA, 'dss')), // holds only doc-firmado.trust-anchor.pem
    ]);
    // pyhanko/ca also holds end-entity certificates (signer1, tsa): only self-signed roots are anchors
    const pyRoots = pyca.roots.filter((c) => c.subject.isEqual(c.issuer));
    stores.testdata = { roots: [...roots.roots, ...pyRoots, ...anchorDir.roots], source: 'testdata roots + pyhanko/ca roots + DSS anchor' };
    stores.anchor = anchorDir;
    for (const e of manifest) {
      const exp = EXPECTED[e.file];
      const pdf = new Uint8Array(readFileSync(join(DATA, e.file)));
      results.set(e.file, await verifyPdfSignatures(pdf, { trustStore: stores[exp?.trust ?? 'empty'], at: exp?.at ? new Date(exp.at) : undefined }));
    }
  }, 120_000);

  it('has an expectation for every manifest entry (68 files)', () => {
    expect(manifest.length).toBe(68);
    expect(Object.keys(EXPECTED).sort()).toEqual(manifest.map((e) => e.file).sort());
    expect(stores.anchor.roots.length).toBe(1);
  });

  it('agrees with each source except for the documented deliberate differences', () => {
    const differences: Record<string, Status> = {};
    const tally: Record<string, { agree: number; total: number; deliberate: number; unasserted: number }> = {};
    for (const e of manifest) {
      const src = e.file.split('/')[0];
      tally[src] ??= { agree: 0, total: 0, deliberate: 0, unasserted: 0 };
      const exp = EXPECTED[e.file];
      const got = results.get(e.file)!.status;
      if (exp.expect === null) {
        tally[src].unasserted++;
        continue;
      }
      tally[src].total++;
      if (exp.expect.includes(got)) tally[src].agree++;
      else {
        differences[e.file] = got;
        if (DELIBERATE[e.file]) tally[src].deliberate++;
      }
    }
    const lines = SOURCES.map((s) => {
      const t = tally[s];
      return `${s}: ${t.agree}/${t.total} agree, ${t.deliberate} deliberate difference(s)${t.unasserted ? `, ${t.unasserted} without a source verdict` : ''}`;
    });
    console.log(`PAdES corpus agreement\n  ${lines.join('\n  ')}`);
    expect(differences).toEqual(Object.fromEntries(Object.entries(DELIBERATE).map(([k, v]) => [k, v.ours])));
  });

  it('reports the unasserted placeholder file as missing', () => {
    expect(results.get('pyhanko/coverage-anomalies/base.pdf')!.status).toBe('missing');
  });

  it('fills signer, issuer, signed_at, trust anchor and counts', () => {
    const r = results.get('pyhanko/pades-with-old-style-signing-cert-attr.pdf')!;
    expect(r).toMatchObject({ status: 'valid', reasons: ['signature_valid'], signer: 'Alice', issuer: 'Intermediate CA', trusted: true, signatures: 1 });
    expect(r.trust_anchor).toBe('Root CA');
    expect(r.signed_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const five = results.get('dss/pades-5-signatures-and-1-document-timestamp.pdf')!;
    expect(five.signatures).toBe(6);
    expect(five.details.filter((d) => d.kind === 'document_timestamp')).toHaveLength(1);
    const firmado = results.get('dss/doc-firmado.pdf')!;
    expect(firmado.trust_anchor).toBe('CA RAIZ NACIONAL - COSTA RICA v2');
    expect(firmado.details[0].signed_at_source).toBe('timestamp');
    expect(results.get('dss/pdf-removed-pages.pdf')!.reasons).toContain('document_modified_after_signing');
    expect(results.get('dss/pdf-removed-pages.pdf')!.edited_suspected).toBe(true);
    expect(results.get('pyhanko/minimal.pdf')!).toMatchObject({ status: 'missing', reasons: ['signature_missing'], signatures: 0 });
  });

  it('detects every manipulated file of the attack categories', () => {
    for (const e of manifest.filter((x) => /attack|shadow|spoofing/.test(x.verdict))) {
      expect(['modified', 'invalid'], e.file).toContain(results.get(e.file)!.status);
    }
  });
});

// Trust (`trusted` per approval signature) against what each source states about trust for its own files.
// The statements, the trust stores and the deliberate differences (each with its reason) are in
// bench/lib/pdf-signature-trust.ts, shared with bench/pdf-signatures.ts, whose results table shows the same
// agreement. Cotejo's store: the corpus's published anchors (roots/*.pem + dss/doc-firmado.trust-anchor.pem);
// validation time: the source test's frozen time, else the signing time.
describe('PAdES trust over the shared corpus, against what each source states', () => {
  const manifest: Array<{ file: string }> = JSON.parse(readFileSync(join(DATA, 'manifest.json'), 'utf8'));
  const stated = Object.entries(SOURCE_TRUST)
    .filter(([, s]) => s.trusted !== null)
    .map(([f]) => f)
    .sort();
  const stores = corpusTrustStores(DATA);
  const withCorpus = new Map<string, boolean[]>();
  const withSourceStore = new Map<string, boolean[]>();

  beforeAll(async () => {
    for (const file of stated) {
      const src = SOURCE_TRUST[file];
      const pdf = new Uint8Array(readFileSync(join(DATA, file)));
      const at = src.at ? new Date(src.at) : undefined;
      withCorpus.set(file, trustOf(await verifyPdfSignatures(pdf, { trustStore: stores.corpus, at }), src.covers));
      withSourceStore.set(file, trustOf(await verifyPdfSignatures(pdf, { trustStore: stores[src.store!], at }), src.covers));
    }
  }, 120_000);

  it('has a trust statement for every manifest entry, and stores built from the corpus', () => {
    expect(Object.keys(SOURCE_TRUST).sort()).toEqual(manifest.map((e) => e.file).sort());
    expect(stated.length).toBe(18);
    for (const f of stated) expect(SOURCE_TRUST[f].how, f).toMatch(/^(asserted|implied)$/);
    expect(stores.corpus.roots.length).toBe(21); // 20 roots/*.pem + the DSS1469 anchor
    expect(stores['pyhanko-ca'].roots.length).toBe(7);
    expect(stores['dss-anchor'].roots.length).toBe(1);
    expect(Object.keys(TRUST_DIFFERENCES).every((f) => stated.includes(f))).toBe(true);
  });

  it.each(stated)('trust: %s', (file) => {
    const src = SOURCE_TRUST[file];
    const got = withCorpus.get(file)!;
    expect(got.length, 'signatures the statement covers').toBeGreaterThan(0);
    const diff = TRUST_DIFFERENCES[file];
    if (diff) expect(got.every((x) => x === src.trusted), `listed as a deliberate difference: ${diff.reason}`).toBe(false);
    else expect(got, src.says).toEqual(got.map(() => src.trusted));
  });

  it('differs from the sources only where listed, and agrees with each source\'s own store except on meaning', () => {
    const differing = stated.filter((f) => !withCorpus.get(f)!.every((x) => x === SOURCE_TRUST[f].trusted));
    expect(differing).toEqual(Object.keys(TRUST_DIFFERENCES).sort());
    for (const d of Object.values(TRUST_DIFFERENCES)) expect(d.reason.length).toBeGreaterThan(40);
    // with the store the source test used (stand-in where the corpus lacks it), only `semantics` differences remain
    const differingOwn = stated.filter((f) => !withSourceStore.get(f)!.every((x) => x === SOURCE_TRUST[f].trusted));
    expect(differingOwn).toEqual(Object.keys(TRUST_DIFFERENCES).filter((f) => TRUST_DIFFERENCES[f].kind === 'semantics').sort());
    const kinds = Object.values(TRUST_DIFFERENCES).map((d) => d.kind);
    console.log(
      `PAdES corpus trust: ${stated.length - differing.length}/${stated.length} agree where the source states trust; ` +
        `${kinds.filter((k) => k === 'store').length} differences from the trust store alone, ${kinds.filter((k) => k === 'semantics').length} of meaning`,
    );
  });
});
