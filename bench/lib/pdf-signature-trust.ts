// What each source project of the signed-PDF corpus (../shared/testdata/pdf-signatures) states about the
// *trust* of its own files, and how Cotejo's `trusted` is computed to be compared with it. Shared by
// bench/pdf-signatures.ts (the trust column of bench/results/pdf-signatures.md) and
// test/unit/validators/pdf-signatures.test.ts (the same agreement, asserted).
//
// Transcribed from the source tests at the commits named in PROVENANCE.md (manifest.json `expected_by_source`
// and `trust_note`, checked against the tests themselves):
// - pyHanko (pkgs/pyhanko/tests/*.py @7db4e6fe): `val_trusted` = validate with `simple_v_context()` (trust root:
//   the certomancer testing CA "Root CA") and require `trusted`; `val_untrusted` = validate with
//   `notrust_v_context()` (no trust root at all), so "not trusted" follows from the configuration; test
//   `test_anomalous_coverage` asserts `not status.trusted` with the testing CA as root. Times are the tests'
//   `@freeze_time`; tests without one run at the wall-clock time.
// - EU DSS (dss-pades/src/test/java/.../validation/** @d9473b8e): tests run offline and, unless they override
//   the trusted certificate source, with no anchor; only DSS1469Test (doc-firmado.pdf: anchor
//   "CA RAIZ NACIONAL - COSTA RICA v2", shipped as dss/doc-firmado.trust-anchor.pem) and
//   PAdESEndEntityCertIssuedByNotCACertTest (self-issued-qesig.pdf: anchor "LuxTrust Global Qualified CA 3",
//   not shipped; its issuer "LuxTrust Global Root 2" is in roots/) configure one. DSS validates at the current
//   time and uses the signature time-stamp as proof of existence; Cotejo's default, the signing time
//   (time-stamp first), is the nearest equivalent.
// - node-signpdf: its tests sign; they do not validate trust.
// A statement is *asserted* (a test asserts trusted / not trusted, or a trust indication) or *implied* (the test's
// purpose concerns trust: pyHanko's `val_untrusted` helper, a DSS test whose one configured anchor is the point).
// A test that merely runs with an empty store and asserts something else (DSS defaults, pyHanko diff-analysis tests
// with `notrust_v_context`) states nothing about trust.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseCertificates, type PdfSignatureResult, type TrustStore } from '../../server/src/validators/pdf-signature/index.ts';

/** Which trust store the source test used, as far as the corpus holds it. */
export type SourceStore =
  | 'empty' // no trust root (pyHanko notrust_v_context)
  | 'pyhanko-ca' // pyHanko's certomancer testing CA roots ("Root CA", O=Example Inc, OU=Testing Authority)
  | 'dss-anchor' // dss/doc-firmado.trust-anchor.pem
  | 'corpus'; // the source's anchor is not in the corpus; the corpus anchors stand in

export interface SourceTrust {
  /** What the source states: true = trusted, false = not trusted, null = not stated. */
  trusted: boolean | null;
  /** Stated by an assertion of the test, or implied by its configuration (no trust root => not trusted). */
  how?: 'asserted' | 'implied';
  /** The source's trust store (for a statement). */
  store?: SourceStore;
  /** Validation time frozen by the source test (ISO 8601); absent = Cotejo's default, the signing time. */
  at?: string;
  /** Approval signatures (signing order) the statement is about; absent = all of them. */
  covers?: number[];
  /** What the source says, for the table. */
  says: string;
}

const PY_FROZEN = '2020-11-01T00:00:00Z';
const ADOBE_FROZEN = '2021-01-05T00:00:00Z';
const DSS_NONE: SourceTrust = { trusted: null, says: 'not stated (DSS test offline, no anchor; trust not asserted)' };
const SIGNPDF: SourceTrust = { trusted: null, says: 'not stated (node-signpdf tests sign, do not validate)' };
const UNSIGNED: SourceTrust = { trusted: null, says: 'not stated (unsigned)' };
const PY_TRUSTED: SourceTrust = { trusted: true, how: 'asserted', store: 'pyhanko-ca', at: PY_FROZEN, says: 'trusted (val_trusted, testing-CA root, frozen 2020-11-01)' };
const PY_DIFF_ONLY: SourceTrust = { trusted: null, says: 'not stated (empty trust store; the test asserts the modification level only)' };
const PY_ANOMALY: SourceTrust = { trusted: false, how: 'asserted', store: 'pyhanko-ca', says: 'not trusted (asserted, testing-CA root, not frozen)' };
const PY_ADOBE: SourceTrust = { trusted: false, how: 'implied', store: 'empty', at: ADOBE_FROZEN, says: 'not trusted (implied: val_untrusted, empty trust store, frozen 2021-01-05)' };

export const SOURCE_TRUST: Record<string, SourceTrust> = {
  'dss/BadEncodedCMS.pdf': DSS_NONE,
  'dss/Signature-P-PK7-2.pdf': DSS_NONE,
  'dss/doc-firmado.pdf': {
    trusted: true,
    how: 'implied',
    store: 'dss-anchor',
    says: 'trusted (implied: the test\'s only anchor, CA RAIZ NACIONAL - COSTA RICA v2; it asserts the level, not trust)',
  },
  'dss/dss-2236_hide.pdf': DSS_NONE,
  'dss/dss-2236_replace.pdf': DSS_NONE,
  'dss/hello_signed_INCSAVE_signed.pdf': DSS_NONE,
  'dss/hello_signed_INCSAVE_signed_EDITED.pdf': DSS_NONE,
  'dss/muestra-firmado-firmado.pdf': DSS_NONE,
  'dss/pades-5-signatures-and-1-document-timestamp.pdf': DSS_NONE,
  'dss/pades-bes-no-certificates.pdf': DSS_NONE,
  'dss/pades-bes.pdf': DSS_NONE,
  'dss/pades-signed-annot-added.pdf': DSS_NONE,
  'dss/pades-spoofing-replaced-reason.pdf': DSS_NONE,
  'dss/pades-unsupported-signature-algorithm.pdf': DSS_NONE,
  'dss/pdf-byterange-overlap.pdf': DSS_NONE,
  'dss/pdf-double-signer-info.pdf': DSS_NONE,
  'dss/pdf-eof.pdf': DSS_NONE,
  'dss/pdf-removed-pages.pdf': DSS_NONE,
  'dss/pdf-signed-added-page.pdf': DSS_NONE,
  'dss/pdf-signed-corrupted.pdf': DSS_NONE,
  'dss/pdf-signed-original.pdf': DSS_NONE,
  'dss/pdf-signed-out-of-byteRange.pdf': DSS_NONE,
  'dss/pdf-spoofing-attack.pdf': DSS_NONE,
  'dss/pdf-with-empty-sig.pdf': UNSIGNED,
  'dss/pkcs7-no-message-digest.pdf': DSS_NONE,
  'dss/pkcs7.pdf': DSS_NONE,
  'dss/self-issued-qesig.pdf': {
    trusted: false,
    how: 'asserted',
    store: 'corpus',
    says: 'not trusted (asserted: INDETERMINATE / CERTIFICATE_CHAIN_GENERAL_FAILURE, anchor LuxTrust Global Qualified CA 3)',
  },
  'node-signpdf/incrementally_signed.pdf': SIGNPDF,
  'node-signpdf/signed-once.pdf': SIGNPDF,
  'node-signpdf/signed-twice.pdf': SIGNPDF,
  'node-signpdf/signed.pdf': SIGNPDF,
  'node-signpdf/w3dummy.pdf': UNSIGNED,
  'node-signpdf/with-placeholder.pdf': UNSIGNED,
  'pyhanko/certified-with-indirect-refs-in-dir.pdf': PY_TRUSTED,
  'pyhanko/coverage-anomalies/base.pdf': { trusted: null, says: 'not stated (not used by a pyHanko test)' },
  'pyhanko/coverage-anomalies/one-byterange.pdf': PY_ANOMALY,
  'pyhanko/coverage-anomalies/signature-gap-too-big.pdf': PY_ANOMALY,
  'pyhanko/coverage-anomalies/tail-uncovered.pdf': PY_ANOMALY,
  'pyhanko/coverage-anomalies/weird-byterange.pdf': PY_ANOMALY,
  'pyhanko/ed448-disallowed-hash.pdf': {
    trusted: false,
    how: 'asserted',
    store: 'pyhanko-ca',
    at: PY_FROZEN,
    says: 'not trusted (asserted: trust_problem_indic CRYPTO_CONSTRAINTS_FAILURE, testing-CA root, frozen 2020-11-01)',
  },
  'pyhanko/ed448-shake256-nolen.pdf': { trusted: false, how: 'implied', store: 'empty', at: PY_FROZEN, says: 'not trusted (implied: val_untrusted, empty trust store, frozen 2020-11-01)' },
  'pyhanko/extensions-direct.pdf': PY_DIFF_ONLY,
  'pyhanko/extensions-indirect-not-all-paths.pdf': PY_DIFF_ONLY,
  'pyhanko/extensions-indirect.pdf': PY_DIFF_ONLY,
  'pyhanko/extensions-update-direct.pdf': PY_DIFF_ONLY,
  'pyhanko/extensions-update-indirect.pdf': PY_DIFF_ONLY,
  'pyhanko/form-update-ap-indirect-sneaky-trailer.pdf': PY_DIFF_ONLY,
  'pyhanko/form-update-no-override-appearance-stream-ap-indirect-sneaky.pdf': PY_DIFF_ONLY,
  'pyhanko/form-update-no-override-appearance-stream-ap-indirect.pdf': PY_DIFF_ONLY,
  'pyhanko/form-update-original-ap-type-wrong.pdf': PY_DIFF_ONLY,
  'pyhanko/form-update-override-appearance-stream-ap-indirect-sneaky.pdf': PY_DIFF_ONLY,
  'pyhanko/form-update-override-appearance-stream-ap-indirect.pdf': PY_DIFF_ONLY,
  'pyhanko/form-update-override-appearance-stream-sneaky.pdf': PY_DIFF_ONLY,
  'pyhanko/form-update-override-appearance-stream.pdf': PY_DIFF_ONLY,
  'pyhanko/minimal-signed-twice-both-created.pdf': PY_ADOBE,
  'pyhanko/minimal-signed-twice-no-sig-type.pdf': { trusted: null, says: 'not stated (the test runs the diff analysis only)' },
  'pyhanko/minimal-signed-twice-second-created.pdf': PY_ADOBE,
  'pyhanko/minimal-two-fields-signed-twice.pdf': PY_ADOBE,
  'pyhanko/minimal-two-fields.pdf': UNSIGNED,
  'pyhanko/minimal-with-field.pdf': UNSIGNED,
  'pyhanko/minimal.pdf': UNSIGNED,
  'pyhanko/pades-lta-dss-indirect-arrs-test-2.pdf': PY_TRUSTED,
  'pyhanko/pades-lta-dss-indirect-arrs-test.pdf': { ...PY_TRUSTED, covers: [0], says: 'trusted (PAdES bottom_line, testing-CA root, no revocation, frozen 2020-11-01)' },
  'pyhanko/pades-with-old-style-signing-cert-attr-issser.pdf': PY_TRUSTED,
  'pyhanko/pades-with-old-style-signing-cert-attr.pdf': PY_TRUSTED,
  'pyhanko/pdf-sig-with-econtent.pdf': { trusted: null, says: 'not stated (validation raises before trust is judged)' },
  'pyhanko/sig-no-signed-attrs.pdf': { trusted: false, how: 'implied', store: 'empty', says: 'not trusted (implied: val_untrusted, empty trust store, not frozen)' },
  'pyhanko/sig-with-ski-sid.pdf': { trusted: false, how: 'implied', store: 'empty', says: 'not trusted (implied: val_untrusted, empty trust store, not frozen)' },
};

/**
 * Files where Cotejo's `trusted` (corpus anchors, source's time) differs from the source's statement, each with
 * its reason. `store`: the difference comes from the trust store alone; with the source's own store (and time)
 * Cotejo agrees, which the unit test checks. `semantics`: the source folds something else into its trust result.
 */
export const TRUST_DIFFERENCES: Record<string, { kind: 'store' | 'semantics'; reason: string }> = {};

const SELF_SIGNED_TESTERINO =
  'roots/ holds the signer\'s own self-signed certificate ("Lord Testerino", extracted by the collector from the file); ' +
  'pyHanko trusts only its testing-CA root, which did not issue it. With that root alone Cotejo says not trusted too.';
const NO_ANCHOR = 'the source test ran with no trust root at all; the corpus holds the testing-CA root that issued the signer. With an empty store Cotejo says not trusted too.';
for (const f of ['one-byterange', 'signature-gap-too-big', 'tail-uncovered', 'weird-byterange']) {
  TRUST_DIFFERENCES[`pyhanko/coverage-anomalies/${f}.pdf`] = { kind: 'store', reason: SELF_SIGNED_TESTERINO };
}
for (const f of ['ed448-shake256-nolen', 'sig-no-signed-attrs', 'sig-with-ski-sid']) TRUST_DIFFERENCES[`pyhanko/${f}.pdf`] = { kind: 'store', reason: NO_ANCHOR };
for (const f of ['minimal-signed-twice-both-created', 'minimal-signed-twice-second-created', 'minimal-two-fields-signed-twice']) {
  TRUST_DIFFERENCES[`pyhanko/${f}.pdf`] = {
    kind: 'store',
    reason: 'signed in Adobe Reader with a self-signed certificate ("Lord Testerino") that roots/ holds; the source test ran with no trust root. With an empty store Cotejo says not trusted too.',
  };
}
TRUST_DIFFERENCES['pyhanko/ed448-disallowed-hash.pdf'] = {
  kind: 'semantics',
  reason:
    'the certification path to the testing-CA root is sound, and Cotejo\'s `trusted` judges the path only; the disallowed digest ' +
    '(SHA-512 with Ed448; RFC 8419 requires SHAKE256) makes the signature itself invalid (status invalid), which pyHanko reports through its trust indication (INDETERMINATE, CRYPTO_CONSTRAINTS_FAILURE).',
};

/** Notes on rows (agreeing or not stated) worth a word. */
export const TRUST_NOTES: Record<string, string> = {};
for (const [f, s] of Object.entries(SOURCE_TRUST)) {
  if (s === PY_DIFF_ONLY) {
    TRUST_NOTES[f] =
      'not stated by pyHanko; Cotejo says not trusted even with the corpus anchors: signed 2022-11 with "Alice" (valid 2020-01-01 to 2022-01-01), ' +
      'expired at the signing time (the chain to the testing-CA root is otherwise sound: trusted at 2020-11-01).';
  }
}
TRUST_NOTES['dss/self-issued-qesig.pdf'] =
  'the test\'s anchor (LuxTrust Global Qualified CA 3) is not shipped; its issuer, LuxTrust Global Root 2, is in roots/. Cotejo: issuer "Aleksandr Beliakov" is not a CA certificate.';

/** The trust stores: the corpus's published anchors and the stand-ins for each source's own store. */
export function corpusTrustStores(data: string): Record<SourceStore, TrustStore> {
  const read = (rel: string) => parseCertificates(new Uint8Array(readFileSync(join(data, rel))));
  const rootFiles = readdirSync(join(data, 'roots')).filter((n) => n.endsWith('.pem')).sort();
  const anchor = read('dss/doc-firmado.trust-anchor.pem');
  return {
    corpus: { roots: [...rootFiles.flatMap((n) => read(`roots/${n}`)), ...anchor], source: 'roots/*.pem + dss/doc-firmado.trust-anchor.pem' },
    empty: { roots: [], source: 'empty' },
    'pyhanko-ca': { roots: rootFiles.filter((n) => n.startsWith('Root_CA-')).flatMap((n) => read(`roots/${n}`)), source: 'roots/Root_CA-*.pem' },
    'dss-anchor': { roots: anchor, source: 'dss/doc-firmado.trust-anchor.pem' },
  };
}

/** Cotejo's `trusted` for the approval signatures a statement covers (document time-stamps left out). */
export function trustOf(r: PdfSignatureResult, covers?: number[]): boolean[] {
  const sigs = r.details.filter((d) => d.kind === 'signature');
  return (covers ? covers.map((i) => sigs[i]).filter((d) => d !== undefined) : sigs).map((d) => d.trusted);
}
